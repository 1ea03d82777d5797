/**
 * Presents one embedded PGlite database as the `pg`-style pool Kysely's PostgresDialect expects.
 * PGlite has a single session, so the pool hands out one connection at a time: a transaction owns the
 * session until it releases it, and other queries wait their turn (in order) instead of interleaving
 * with it. Code inside a transaction must therefore use the transaction, never the outer database.
 */
import type { PGlite } from '@electric-sql/pglite'
import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely'

export function pglitePool(pglite: PGlite): PostgresPool {
  let tail: Promise<void> = Promise.resolve()

  const client = (release: () => void): PostgresPoolClient => new PgliteClient(pglite, release)

  return {
    async connect() {
      let release!: () => void
      const turn = new Promise<void>((resolve) => (release = resolve))
      const previous = tail
      tail = previous.then(() => turn)
      await previous
      let released = false
      return client(() => {
        if (!released) {
          released = true
          release()
        }
      })
    },
    async end() {
      await tail
    },
  }
}

/** One turn on the session. Kysely's cursor form (streaming) is not used by the service and not supported. */
class PgliteClient implements PostgresPoolClient {
  constructor(
    private readonly pglite: PGlite,
    readonly release: () => void,
  ) {}

  query<R>(sql: string, parameters: readonly unknown[]): Promise<PostgresQueryResult<R>>
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>
  query<R>(
    sql: string | PostgresCursor<R>,
    parameters: readonly unknown[] = [],
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    if (typeof sql !== 'string') throw new Error('The embedded database does not stream results (cursors).')
    return this.run<R>(sql, parameters)
  }

  private async run<R>(sql: string, parameters: readonly unknown[]): Promise<PostgresQueryResult<R>> {
    // Without parameters the simple protocol is used, which also runs multi-statement scripts (migrations).
    const result =
      parameters.length === 0
        ? ((await this.pglite.exec(sql)).at(-1) ?? { rows: [], affectedRows: 0 })
        : await this.pglite.query<R>(sql, [...parameters], { rowMode: 'object' })
    const command = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? 'SELECT'
    return {
      command: command as PostgresQueryResult<R>['command'],
      rowCount: result.affectedRows ?? result.rows.length,
      rows: result.rows as R[],
    }
  }
}
