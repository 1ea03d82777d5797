/**
 * Prepared statements for PostgreSQL: each distinct statement text with parameters gets a name, so a
 * connection parses and plans it once and afterwards only binds and executes it. Kysely compiles the same
 * query shape to the same text, so the hot paths reuse a handful of names.
 *
 * Bounded: at most MAX_NAMES texts are named per process, and statements with many parameters (batch
 * inserts, whose text varies with the batch size) are left unnamed. A statement whose cached plan no longer
 * fits the schema (a migration changed a table under a running process, SQLSTATE 0A000) fails once; its
 * connection is then closed instead of returned to the pool, so the next request prepares afresh.
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
    return {
      async query(text: string, values: readonly unknown[]) {
        const name = nameOf(text, values)
        if (name === undefined) return client.query(text, values as unknown[])
        try {
          return await client.query({ name, text, values: values as unknown[] })
        } catch (error) {
          if ((error as { code?: unknown }).code === '0A000') stale = true
          throw error
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
