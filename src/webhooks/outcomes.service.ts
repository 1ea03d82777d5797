/**
 * Writes the results of finished attempts for the delivery worker, several in one statement: a write starts
 * once `GATHER` results wait or `GATHER_MS` after the first, and results that finish while one is under way
 * go together in the next. A batch the database refuses is
 * written again one result at a time, so one bad row cannot lose the others' results.
 */
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'
import * as queue from './queue.repository.ts'

const BATCH = 256
/** A write starts when this many results wait, or `GATHER_MS` after the first of them. */
const GATHER = 64
const GATHER_MS = 20

export interface Written {
  /** Whether any of the results written schedules another attempt. */
  retries: boolean
  /** Endpoints of the results written that are now off. */
  disabled: number[]
  /** Endpoints of the batch's 410 results (written or not). */
  gone: Set<number>
}

export function outcomeWriter(
  db: Kysely<DB>,
  failingLimitMs: number,
  log: { error(obj: object, msg: string): void },
  written: (result: Written) => void,
) {
  const waiting: queue.Outcome[] = []
  let inWrite = 0
  let writing: Promise<void> | undefined
  let gathering: NodeJS.Timeout | undefined
  const begin = () => {
    clearTimeout(gathering)
    gathering = undefined
    writing ??= run()
  }

  async function write(batch: queue.Outcome[]): Promise<void> {
    const gone = new Set(batch.filter((o) => o.gone).map((o) => o.claimed.endpoint_id))
    try {
      const { disabled } = await queue.recordOutcomes(db, batch, failingLimitMs)
      written({ retries: batch.some((o) => o.status === 'pending'), disabled, gone })
    } catch (error) {
      if (batch.length > 1) {
        for (const outcome of batch) await write([outcome])
        return
      }
      log.error({ err: error, delivery: batch[0]!.claimed.id }, 'webhook delivery result not written')
      written({ retries: false, disabled: [], gone })
    }
  }

  async function run(): Promise<void> {
    do {
      const batch = waiting.splice(0, BATCH)
      inWrite = batch.length
      await write(batch)
      inWrite = 0
    } while (waiting.length >= GATHER)
    writing = undefined
    if (waiting.length > 0) gathering ??= setTimeout(begin, GATHER_MS)
  }

  return {
    add(outcome: queue.Outcome): void {
      waiting.push(outcome)
      if (writing !== undefined) return
      if (waiting.length >= GATHER) begin()
      else gathering ??= setTimeout(begin, GATHER_MS)
    },
    /** Results not written yet. */
    get pending(): number {
      return waiting.length + inWrite
    },
    /** Resolves once every result added so far is written. */
    async drain(): Promise<void> {
      while (waiting.length > 0 || writing !== undefined) {
        if (writing === undefined) begin()
        await writing
      }
    },
  }
}
