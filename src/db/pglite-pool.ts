/**
 * Presents one embedded PGlite database, once it is open, as the `pg`-style pool Kysely's PostgresDialect expects.
 * PGlite has a single session, so the pool hands out one connection at a time: a transaction owns the
 * session until it releases it, and other queries wait their turn (in order) instead of interleaving
 * with it. Code inside a transaction must therefore use the transaction, never the outer database.
 */
import type { PGlite } from '@electric-sql/pglite'
import type { PostgresPool, PostgresQueryResult } from 'kysely'
import { commandOf, PoolClient } from './pool-client.ts'

export function pglitePool(opened: Promise<PGlite>): PostgresPool {
  let tail: Promise<void> = Promise.resolve()
  let ended = false

  return {
    async connect() {
      // Until the database is open, callers wait here, in the order they came; they fail if it does not open,
      // or if the pool was ended meanwhile (the database is being closed).
      const pglite = await opened
      if (ended) throw new Error('The embedded database is closed.')
      let release!: () => void
      const turn = new Promise<void>((resolve) => (release = resolve))
      const previous = tail
      tail = previous.then(() => turn)
      await previous
      let released = false
      return new PgliteClient(pglite, () => {
        if (!released) {
          released = true
          release()
        }
      })
    },
    async end() {
      ended = true
      await tail
    },
  }
}

/** One turn on the session. */
class PgliteClient extends PoolClient {
  constructor(
    private readonly pglite: PGlite,
    readonly release: () => void,
  ) {
    super()
  }

  protected async run<R>(sql: string, parameters: unknown[]): Promise<PostgresQueryResult<R>> {
    // Without parameters the simple protocol is used, which also runs multi-statement scripts (migrations).
    const result =
      parameters.length === 0
        ? ((await this.pglite.exec(sql)).at(-1) ?? { rows: [], affectedRows: 0 })
        : await this.pglite.query<R>(sql, parameters, { rowMode: 'object' })
    return {
      command: commandOf(/^\s*(\w+)/.exec(sql)?.[1] ?? 'SELECT'),
      rowCount: result.affectedRows ?? result.rows.length,
      rows: result.rows as R[],
    }
  }
}
