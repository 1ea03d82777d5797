/**
 * Where the data is: scratch PostgreSQL databases, embedded data directories, the server's configuration for
 * either, and the store opened through a Kysely that records every statement.
 */
import { Kysely, PostgresDialect, type LogEvent } from 'kysely'
import pg from 'pg'
import { loadConfig, type Config } from '../../src/config.ts'
import { pgdataPaths } from '../../src/db/data-dir.ts'
import { openDatabase, type Database } from '../../src/db/database.ts'
import { everyone, listenPostgres } from '../../src/db/listener.ts'
import { pglitePool } from '../../src/db/pglite-pool.ts'
import type { DB } from '../../src/db/schema.ts'
import { serverKeys, type ServerKeys } from '../../src/keys.ts'
import { prepareDatabase } from '../../src/seed/prepare.ts'
import type { Statement } from '../floor/spec.ts'
import { onCleanup } from './cleanup.ts'
import { ADMIN_URL, BASE_DOMAIN, POOL_MAX, serverEnv } from './settings.ts'

/** A PostgreSQL database made for this run (procurement_bench_*) and dropped at clean-up. */
export async function scratchDatabase(label: string): Promise<string> {
  const name = `procurement_bench_${label}_${process.pid}_${Date.now().toString(36)}`
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: ADMIN_URL })
    await client.connect()
    try {
      await client.query(statement)
    } finally {
      await client.end()
    }
  }
  await admin(`CREATE DATABASE "${name}"`)
  onCleanup(() => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`))
  const url = new URL(ADMIN_URL)
  url.pathname = `/${name}`
  return url.toString()
}

/** Where the data is: a PostgreSQL database, or an embedded data directory (DATA_DIR). */
export type Store = { engine: 'postgres'; url: string } | { engine: 'pglite'; dataDir: string }

/** The server's environment for a store. */
export const storeEnv = (store: Store): Record<string, string> =>
  store.engine === 'postgres' ? { DATABASE_URL: store.url } : { DATA_DIR: store.dataDir }

/** The configuration the server will have for this store, and its keys. */
export function configFor(
  store: Store,
  extra: Record<string, string> = {},
): { config: Readonly<Config>; keys: ServerKeys } {
  const config = loadConfig(serverEnv({ ...storeEnv(store), BASE_DOMAIN, DEMO_SEED: 'false', ...extra }))
  return { config, keys: serverKeys(config) }
}

/** The type parsers the service uses (src/db/database.ts): int8 as number, date and numeric as text. */
export const PARSERS: Record<number, (text: string) => unknown> = { 20: Number, 1082: (t) => t, 1700: (t) => t }

/**
 * The store opened through a Kysely whose every statement is recorded, and made ready the way the server
 * does it (migrations; an embedded data directory laid out as the server lays it out).
 */
export async function openRecorded(
  store: Store,
): Promise<{ database: Database; log: Statement[]; results: Statement[] }> {
  const log: Statement[] = []
  /** PostgreSQL only: every statement with the rows it returned, in the order the answers came. */
  const results: Statement[] = []
  const record = (event: LogEvent) => {
    if (event.level === 'query') log.push({ sql: event.query.sql, parameters: [...event.query.parameters] })
  }
  const { config } = configFor(store)
  if (store.engine === 'postgres') {
    const pool = new pg.Pool({
      connectionString: store.url,
      max: POOL_MAX,
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary'): unknown =>
          PARSERS[oid] ?? (pg.types.getTypeParser(oid, format) as unknown)) as typeof pg.types.getTypeParser,
      },
    })
    pool.on('connect', (client) => {
      const query = client.query.bind(client) as (text: unknown, values?: unknown[]) => unknown
      ;(client as unknown as { query: typeof query }).query = (text, values) => {
        const answer = query(text, values)
        if (typeof text === 'string' && answer instanceof Promise)
          answer.then(
            (r: { rows?: unknown[] }) =>
              results.push({ sql: text, parameters: [...(values ?? [])], rows: r.rows ?? [] }),
            () => undefined,
          )
        return answer
      }
    })
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }), log: record })
    const url = store.url
    const database: Database = {
      db,
      engine: 'postgres',
      listen: (subscribers) => Promise.resolve(listenPostgres(url, subscribers)),
      close: () => db.destroy(),
    }
    await prepareDatabase(database, config)
    return { database, log, results }
  }
  // The server builds DATA_DIR/pgdata on its first start; this does the same, through the same code.
  const made = await openDatabase(config, { command: 'bench', prepare: (d) => prepareDatabase(d, config) })
  await made.close()
  const { PGlite } = await import('@electric-sql/pglite')
  const pglite = await PGlite.create({ dataDir: pgdataPaths(store.dataDir).ready, parsers: PARSERS })
  const db = new Kysely<DB>({
    dialect: new PostgresDialect({ pool: pglitePool(Promise.resolve(pglite)) }),
    log: record,
  })
  return {
    database: {
      db,
      engine: 'pglite',
      async listen(subscribers) {
        const unlisten = await Promise.all(
          Object.entries(subscribers).map(([channel, s]) => pglite.listen(channel, (payload) => s.notify(payload))),
        )
        everyone(subscribers, 'up')
        return {
          fence: () => Promise.resolve(),
          close: () => Promise.all(unlisten.map((stop) => stop())).then(() => {}),
        }
      },
      async close() {
        await db.destroy()
        await pglite.close()
      },
    },
    log,
    results: [],
  }
}
