/**
 * Prepared statements for PostgreSQL: each distinct statement text with parameters gets a name, so a
 * connection parses and plans it once and afterwards only binds and executes it. Kysely compiles the same
 * query shape to the same text, so the hot paths reuse a handful of names.
 *
 * Bounded: at most MAX_NAMES texts are named per process, and statements with many parameters (batch
 * inserts, whose text varies with the batch size) are left unnamed. When a cached plan no longer fits the
 * schema (a migration changed a table under a running process, SQLSTATE 0A000), the statement is run again
 * unprepared if it was not in a transaction (else that transaction fails), and the connection is closed
 * instead of returned to the pool, so later requests prepare afresh.
 */
import type { PostgresPool, PostgresPoolClient } from 'kysely'
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

  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    let stale = false
    let inTransaction = false
    return {
      async query(text: string, values: readonly unknown[]) {
        if (/^\s*(begin|start)\b/i.test(text)) inTransaction = true
        else if (/^\s*(commit|rollback|end)\b/i.test(text)) inTransaction = false
        const name = nameOf(text, values)
        if (name === undefined || stale) return client.query(text, values as unknown[])
        try {
          return await client.query({ name, text, values: values as unknown[] })
        } catch (error) {
          if ((error as { code?: unknown }).code !== '0A000') throw error
          stale = true
          // Outside a transaction nothing was done: the statement runs again unprepared. Inside one, the
          // transaction is already aborted and the error stands (the caller's retry finds a fresh connection).
          if (inTransaction) throw error
          return client.query(text, values as unknown[])
        }
      },
      release() {
        if (stale) wrapped.delete(client)
        client.release(stale)
        stale = false
      },
    } as unknown as PostgresPoolClient
  }

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
