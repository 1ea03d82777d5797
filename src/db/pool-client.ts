/**
 * The connection shape Kysely's PostgresDialect expects, for the two adapters that present a database to it
 * (the embedded PGlite, and pg with prepared statements). Kysely's overloaded `query` also takes a cursor, for
 * streaming results; the service does not stream, so that form is refused.
 */
import type { PostgresCursor, PostgresPoolClient, PostgresQueryResult } from 'kysely'

export abstract class PoolClient implements PostgresPoolClient {
  query<R>(sql: string, parameters: readonly unknown[]): Promise<PostgresQueryResult<R>>
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>
  query<R>(
    sql: string | PostgresCursor<R>,
    parameters: readonly unknown[] = [],
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    if (typeof sql !== 'string') throw new Error('Streaming results (cursors) is not supported.')
    return this.run<R>(sql, [...parameters])
  }

  /** Runs one statement with its parameters. */
  protected abstract run<R>(sql: string, parameters: unknown[]): Promise<PostgresQueryResult<R>>

  abstract release(): void
}

/** The command word of a result, as Kysely types it (the drivers name it in a plain string). */
export const commandOf = (text: string): PostgresQueryResult<unknown>['command'] =>
  text.toUpperCase() as PostgresQueryResult<unknown>['command']
