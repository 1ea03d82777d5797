/**
 * Opens the database: PostgreSQL when DATABASE_URL is set, otherwise the embedded PGlite in DATA_DIR.
 * Both speak the same SQL and return the same JavaScript types (see `parsers`), so nothing above this
 * file knows which one it has.
 */
import { sql } from 'kysely'
import fs from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { PGlite } from '@electric-sql/pglite'
import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import type { Config } from '../config.ts'
import { OperatorError, RESTORE_REMEDY } from '../core/operator-error.ts'
import { lockDataDir, pgdataPaths } from './data-dir.ts'
import { checkPgdataFiles, securePermissions } from './integrity.ts'
import { everyone, listenPostgres, type Subscribers, type Subscription } from './listener.ts'
import { pglitePool } from './pglite-pool.ts'
import { takePglitePreload, type PglitePreload } from './pglite-preload.ts'
import { preparedStatements } from './prepared.ts'
import { keepPrivate } from './private-files.ts'
import type { DB } from './schema.ts'

export type Engine = 'postgres' | 'pglite'

/** One round trip to the database (a start's first connection: it fails here, not at the first request). */
export async function ping(database: Database): Promise<void> {
  await sql`select 1`.execute(database.db)
}

export interface Database {
  readonly db: Kysely<DB>
  readonly engine: Engine
  /**
   * Subscribes to notification channels (LISTEN), one subscriber each. PostgreSQL delivers notifications
   * from every process sharing the database, over one connection of the subscription's own; the embedded
   * engine from this one.
   */
  listen(subscribers: Subscribers): Promise<Subscription>
  /** Embedded only: the data directory as a gzipped tarball, consistent (taken from the open database). */
  dump?(): Promise<Blob>
  close(): Promise<void>
}

/** Type OIDs whose JavaScript form we fix: int8 as number, date as 'YYYY-MM-DD', numeric as string. */
const INT8 = 20
const DATE = 1082
const NUMERIC = 1700
const parsers: Record<number, (text: string) => unknown> = {
  [INT8]: Number,
  [DATE]: (text) => text,
  [NUMERIC]: (text) => text,
}

export interface PostgresOptions {
  url: string
  poolMax?: number
  timeoutMs?: number
  onError?: (error: Error) => void
}

export function openPostgres(options: PostgresOptions): Database {
  const timeout = options.timeoutMs ?? 5000
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolMax ?? 10,
    connectionTimeoutMillis: timeout,
    // The server gives up on a statement after 30 s (SQLSTATE 57014, a 503), releasing its locks and leaving
    // the connection usable; the client's own limit, a little later, is for a server that no longer answers.
    statement_timeout: timeout * 6,
    query_timeout: timeout * 7,
    keepAlive: true,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary'): unknown =>
        parsers[oid] ?? (pg.types.getTypeParser(oid, format) as unknown)) as typeof pg.types.getTypeParser,
    },
  })
  // A connection that breaks must not take the process down: the pool reports idle ones here, and a client
  // that breaks while checked out emits 'error' on itself (with no listener that would be an uncaught
  // exception). Its query fails (→ 503) and the pool drops it; the next query reconnects.
  const report = (error: Error) => options.onError?.(error)
  pool.on('error', report)
  pool.on('connect', (client) => client.on('error', report))
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: preparedStatements(pool) }) })
  return {
    db,
    engine: 'postgres',
    listen: (subscribers) =>
      Promise.resolve(
        listenPostgres(options.url, subscribers, {
          connectTimeoutMs: timeout,
          ...(options.onError ? { onError: options.onError } : {}),
        }),
      ),
    close: () => db.destroy(),
  }
}

type PgliteOptions = { dataDir?: string; loadDataDir?: Blob; compiled?: PglitePreload | undefined }

/** An embedded database in memory, or in `dataDir`, or loaded from a dump (tests). */
export async function openPglite(options: PgliteOptions = {}): Promise<Database & { dump(): Promise<Blob> }> {
  const pglite = await startPglite(options)
  return pgliteDatabase(Promise.resolve(pglite))
}

/** PGlite, open on `options`. */
async function startPglite(options: PgliteOptions): Promise<PGlite> {
  // Loaded only when the embedded engine is used: a PostgreSQL deployment never pays for its WebAssembly.
  const { PGlite } = await import('@electric-sql/pglite')
  const preload = options.compiled ?? (await takePglitePreload())
  return PGlite.create({
    ...(preload !== undefined ? { pgliteWasmModule: preload.wasmModule, fsBundle: preload.fsBundle } : {}),
    // PostgreSQL's default 128 MB of shared buffers lives in the WebAssembly heap and is never given back;
    // 8 MB holds the hot pages of a company's data, and the operating system caches the rest of the files.
    // One process, one backend: shared memory sized for 3 connections, not 100 (idle RSS −17 MB with both).
    startParams: [
      ...PGlite.defaultStartParams,
      ...['-c', 'shared_buffers=8MB', '-c', 'max_connections=3', '-c', 'wal_buffers=512kB'],
    ],
    ...(options.dataDir !== undefined ? { dataDir: options.dataDir } : {}),
    ...(options.loadDataDir !== undefined ? { loadDataDir: options.loadDataDir } : {}),
    parsers,
  })
}

/**
 * The embedded database once `opened` resolves: usable at once, its queries waiting their turn until then
 * (and failing with the open's error if it fails).
 */
function pgliteDatabase(opened: Promise<PGlite>): Database & { dump(): Promise<Blob> } {
  const pool = pglitePool(opened)
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) })
  return {
    db,
    engine: 'pglite',
    async listen(subscribers) {
      // LISTEN takes its turn like any query, so it never lands inside another caller's transaction.
      const turn = await pool.connect()
      try {
        const pglite = await opened
        const unlisten = await Promise.all(
          Object.entries(subscribers).map(([channel, subscriber]) =>
            pglite.listen(channel, (payload) => subscriber.notify(payload)),
          ),
        )
        everyone(subscribers, 'up')
        return {
          // Notifications are delivered in process as the committing statement completes: nothing to wait for.
          fence: () => Promise.resolve(),
          async close() {
            // A database already closed under the app (its pool ended) has nothing left to unlisten.
            const closing = await pool.connect().catch(() => undefined)
            if (closing === undefined) return
            await Promise.all(unlisten.map((stop) => stop().catch(() => undefined)))
            closing.release()
          },
        }
      } finally {
        turn.release()
      }
    },
    dump: async () => (await opened).dumpDataDir('gzip'),
    async close() {
      await db.destroy()
      // Nothing to close when it never opened.
      await (await opened.catch(() => undefined))?.close()
    },
  }
}

export interface OpenOptions {
  /** Names this process to a second one that finds the embedded data directory taken. */
  command: string
  /** Brings the database up to date (migrations, first-run data). For a new embedded database it runs
   * before the database is moved into place, so an interrupted first start leaves nothing half-made. */
  prepare: (database: Database) => Promise<void>
  onError?: (error: Error) => void
  /** Told what a long first step is doing (building a new embedded database). */
  progress?: (line: string) => void
  /** `prepare` seeds the demo into a new database: a new embedded one may then start as a copy of the build's
   * database with the demo already in it (dist/embedded-template-demo/). */
  seedsDemo?: boolean
}

/** The database cannot be used at all: one line that says what to do, for the operator. */
export class DatabaseStartError extends Error {
  override name = 'DatabaseStartError'
}

/** Turns a failure to reach PostgreSQL at start into advice; anything else is rethrown as it is. */
function explainPostgresFailure(error: unknown, url: string): unknown {
  const { host, pathname } = new URL(url)
  const name = decodeURIComponent(pathname.slice(1))
  const code = (error as { code?: unknown }).code
  if (code === '3D000')
    return new DatabaseStartError(
      `Database "${name}" does not exist on ${host}: create it (createdb ${name}) or fix DATABASE_URL.`,
    )
  if (code === '28P01' || code === '28000')
    return new DatabaseStartError(
      `PostgreSQL at ${host} refused the credentials in DATABASE_URL: fix the user or password.`,
    )
  if (code === '55000')
    return new DatabaseStartError(
      `Database "${name}" on ${host} does not accept connections now (ALLOW_CONNECTIONS false?).`,
    )
  if (
    typeof code === 'string' &&
    /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH)$/.test(code)
  ) {
    return new DatabaseStartError(`Cannot reach PostgreSQL at ${host} (${code}): start it, or fix DATABASE_URL.`)
  }
  if (error instanceof Error && /timeout exceeded when trying to connect/i.test(error.message)) {
    return new DatabaseStartError(
      `PostgreSQL at ${host} did not answer within DATABASE_TIMEOUT_MS: check that it runs and is reachable.`,
    )
  }
  return error
}

/**
 * dist/embedded-template/ (scripts/embedded-template.js), found beside the bundle, dist/procurement.js, that
 * runs this code. Absent when the TypeScript runs through tsx, or tsc's output unbundled: then the first start
 * builds its database itself.
 */
const BUILT_TEMPLATE = fileURLToPath(new URL('./embedded-template/', import.meta.url))
/** The same with the demo tenant seeded in it (src/seed/demo-template.ts). */
const BUILT_DEMO_TEMPLATE = fileURLToPath(new URL('./embedded-template-demo/', import.meta.url))

/** Opens the configured database, prepared and ready to serve. */
export async function openDatabase(config: Config, options: OpenOptions): Promise<Database> {
  const { database, ready } = await openDatabaseInBackground(config, options)
  try {
    await ready
  } catch (error) {
    await database.close()
    throw error
  }
  return database
}

/**
 * Opens the configured database as `openDatabase` does, but returns once what can fail at once has been
 * checked (the embedded data directory is this process's, and whole): `database` is usable from then on, its
 * queries waiting until `ready` — the database open and prepared — and failing as `ready` does. Meanwhile
 * the caller does its own work: `serve` builds the app while the embedded engine's WebAssembly finishes
 * compiling on other threads and PGlite starts (the main thread would otherwise wait). On PostgreSQL
 * `ready` has already settled. If `ready` fails, the caller closes `database` (which releases the data
 * directory).
 */
export async function openDatabaseInBackground(
  config: Config,
  options: OpenOptions,
): Promise<{ database: Database; ready: Promise<void> }> {
  if (config.DATABASE_URL !== undefined) {
    const database = openPostgres({
      url: config.DATABASE_URL,
      poolMax: config.DATABASE_POOL_MAX,
      timeoutMs: config.DATABASE_TIMEOUT_MS,
      ...(options.onError ? { onError: options.onError } : {}),
    })
    try {
      await options.prepare(database)
    } catch (error) {
      await database.close()
      throw explainPostgresFailure(error, config.DATABASE_URL)
    }
    return { database, ready: Promise.resolve() }
  }
  const lock = await lockDataDir(config.dataDir, options.command)
  try {
    const { database, ready } = openEmbedded(config.dataDir, options)
    // Handled by whoever awaits it; until then, a failure is not an unhandled rejection.
    ready.catch(() => undefined)
    const close = () => database.close().then(() => securePermissions(config.dataDir))
    return { database: { ...database, close: () => close().finally(() => lock.release()) }, ready }
  } catch (error) {
    await lock.release()
    throw error
  }
}

/**
 * The embedded database in `dir`: its files checked (or, on a first start, the build's database copied)
 * before this returns, then opened and prepared in the background (`ready`). Nothing else reaches it before
 * `prepare` is done: the database handed back waits for `ready`, `prepare` has one of its own.
 */
function openEmbedded(dir: string, { prepare, progress, seedsDemo }: OpenOptions): PendingDatabase {
  const { ready: pgdata, partial } = pgdataPaths(dir)
  // What PGlite writes from now on (pg_internal.init while serving, new relation files) is private too.
  keepPrivate(dir)
  const exists = fs.existsSync(pgdata)
  if (exists) checkPgdataFiles(pgdata)
  const opened = (async () => {
    if (!exists) {
      progress?.(`Creating the embedded database in ${dir} (first start; a few seconds)…`)
      fs.rmSync(partial, { recursive: true, force: true })
      const template = seedsDemo === true && fs.existsSync(BUILT_DEMO_TEMPLATE) ? BUILT_DEMO_TEMPLATE : BUILT_TEMPLATE
      if (fs.existsSync(template)) {
        // The database made at build time, migrated (and with the demo seeded, when it is wanted), copied:
        // PGlite's initdb costs seconds and a peak of some 900 MB of memory, the demo seed some 560 statements.
        // `prepare` below seeds the demo (or dates the copied one) in one transaction, so a start killed before
        // that committed does it on the next start.
        fs.cpSync(template, partial, { recursive: true })
      } else {
        const fresh = await openPglite({ dataDir: partial })
        try {
          await prepare(fresh)
        } finally {
          await fresh.close()
        }
      }
      fs.renameSync(partial, pgdata)
    }
    // PGlite makes its files 0666 whatever the umask: private again at every start, and at every close.
    securePermissions(dir)
    let pglite: PGlite
    try {
      pglite = await startPglite({ dataDir: pgdata })
    } catch (error) {
      // Past the file checks, PGlite still aborts on what it cannot read (a WebAssembly trap and its stack).
      const what = error instanceof Error ? error.message.split('\n')[0]!.slice(0, 200) : String(error)
      throw new OperatorError(`The embedded database in ${pgdata} cannot be opened (${what}): ${RESTORE_REMEDY}.`)
    }
    try {
      await prepare(pgliteDatabase(Promise.resolve(pglite)))
    } catch (error) {
      // The failure to report is prepare's, whatever closing says.
      await pglite.close().catch(() => undefined)
      throw error
    }
    return pglite
  })()
  return { database: pgliteDatabase(opened), ready: opened.then(() => undefined) }
}

interface PendingDatabase {
  database: Database
  ready: Promise<void>
}
