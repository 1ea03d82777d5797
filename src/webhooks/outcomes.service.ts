/**
 * Writes the results of finished attempts for the delivery worker, several in one statement: results that
 * finish while a write is under way wait for it and go together in the next. A batch the database refuses is
 * written again one result at a time, so one bad row cannot lose the others' results.
 */
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'
import * as queue from './queue.repository.ts'

const BATCH = 256

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
    while (waiting.length > 0) {
      const batch = waiting.splice(0, BATCH)
      inWrite = batch.length
      await write(batch)
      inWrite = 0
    }
    writing = undefined
  }

  return {
    add(outcome: queue.Outcome): void {
      waiting.push(outcome)
      writing ??= run()
    },
    /** Results not written yet. */
    get pending(): number {
      return waiting.length + inWrite
    },
    /** Resolves once every result added so far is written. */
    async drain(): Promise<void> {
      while (writing !== undefined) await writing
    },
  }
}
