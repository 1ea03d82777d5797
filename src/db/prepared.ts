/**
 * Prepared statements for PostgreSQL: each distinct statement text with parameters gets a name, so a
 * connection parses and plans it once and afterwards only binds and executes it. Kysely compiles the same
 * query shape to the same text, so the hot paths reuse a handful of names.
 *
 * Bounded: at most MAX_NAMES texts are named per process, and statements with many parameters (batch
 * inserts, whose text varies with the batch size) are left unnamed. When a cached plan no longer fits the
 * schema (a migration changed a table under a running process, SQLSTATE 0A000), the statement is run again
 * unprepared if it was not in a transaction (else that transaction fails), and the connection is closed
 * instead of returned to the pool, so later requests prepare afresh. A connection whose answer timed out is
 * closed likewise.
 */
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely'
import { commandOf, PoolClient } from './pool-client.ts'
import type pg from 'pg'

const MAX_NAMES = 1000
const MAX_PARAMETERS = 100

export function preparedStatements(pool: pg.Pool): PostgresPool {
  const names = new Map<string, string>()
  const nameOf = (text: string, values: readonly unknown[]): string | undefined => {
    if (values.length === 0 || values.length > MAX_PARAMETERS) return undefined
    let name = names.get(text)
    if (name === undefined && names.size < MAX_NAMES) names.set(text, (name = `p${names.size}`))
    return name
  }
  const wrapped = new WeakMap<pg.PoolClient, PostgresPoolClient>()

  const wrap = (client: pg.PoolClient): PostgresPoolClient =>
    new PreparedClient(client, nameOf, () => wrapped.delete(client))

  return {
    async connect() {
      const client = await pool.connect()
      let handle = wrapped.get(client)
      if (handle === undefined) wrapped.set(client, (handle = wrap(client)))
      return handle
    },
    end: () => pool.end(),
  }
}

/** A pooled connection that names its statements. */
class PreparedClient extends PoolClient {
  private stale = false
  private inTransaction = false

  constructor(
    private readonly client: pg.PoolClient,
    private readonly nameOf: (text: string, values: readonly unknown[]) => string | undefined,
    private readonly forget: () => void,
  ) {
    super()
  }

  protected async run<R>(text: string, values: unknown[]): Promise<PostgresQueryResult<R>> {
    if (/^\s*(begin|start)\b/i.test(text)) this.inTransaction = true
    else if (/^\s*(commit|rollback|end)\b/i.test(text)) this.inTransaction = false
    const name = this.nameOf(text, values)
    const unprepared = () => this.client.query<R & pg.QueryResultRow>(text, values).catch(this.timedOut)
    if (name === undefined || this.stale) return result(await unprepared())
    try {
      return result(await this.client.query<R & pg.QueryResultRow>({ name, text, values }).catch(this.timedOut))
    } catch (error) {
      if ((error as { code?: unknown }).code !== '0A000') throw error
      this.stale = true
      // Outside a transaction nothing was done: the statement runs again unprepared. Inside one, the
      // transaction is already aborted and the error stands (the caller's retry finds a fresh connection).
      if (this.inTransaction) throw error
      return result(await unprepared())
    }
  }

  /**
   * pg's read timeout gives up on an answer, not on the statement: the server may still be running it, and
   * the next query on this connection would queue behind it. Such a connection is closed, not reused.
   */
  private readonly timedOut = (error: unknown): never => {
    if (error instanceof Error && error.message === 'Query read timeout') this.stale = true
    throw error
  }

  release(): void {
    if (this.stale) this.forget()
    this.client.release(this.stale)
    this.stale = false
  }
}

/**
 * pg's result as Kysely reads it (pg names the command in a plain string). A script of several statements
 * (migrations) gives one result per statement, though pg's types do not say so: the last one stands.
 */
function result<R>(answer: pg.QueryResult<R & pg.QueryResultRow>): PostgresQueryResult<R> {
  const results: readonly pg.QueryResult<R & pg.QueryResultRow>[] = Array.isArray(answer) ? answer : [answer]
  const r = results.at(-1)
  return { command: commandOf(r?.command ?? 'SELECT'), rowCount: r?.rowCount ?? 0, rows: r?.rows ?? [] }
}
