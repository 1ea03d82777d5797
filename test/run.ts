/**
 * `npm test`: makes the migrated template for the engine under test, runs the test files (three at a time, or
 * `TEST_CONCURRENCY`; up to 20 files one after another in a process, each file with its own copy of the
 * template; see helpers/runner.ts), prints the ten slowest files, and cleans up. The test processes load TypeBox and Kysely each as one file
 * (helpers/vendor.ts). `TEST_DATABASE_URL` set → PostgreSQL; otherwise the embedded PGlite.
 * Extra arguments are test files, and flags for node's test runner (`--test-name-pattern=…`).
 *
 * On PostgreSQL the run has its own id: its template and every per-file database are named
 * `<configured database>_<run id>_…`, and at the end (also after Ctrl-C) it drops exactly those — so two
 * runs against one server, at the same time, leave each other alone.
 */
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { gunzipSync } from 'node:zlib'
import { sql } from 'kysely'
import pg from 'pg'
import { openPglite, openPostgres } from '../src/db/database.ts'
import { migrateToLatest } from '../src/db/migrate.ts'
import { adminUrl, pgliteDumpPath, runPrefix, templateName } from './helpers/template.ts'
import { printSummary, runFiles } from './helpers/runner.ts'
import { vendorTsconfig } from './helpers/vendor.ts'

const url = process.env.TEST_DATABASE_URL || undefined
const runId = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`
const files = process.argv.slice(2).filter((a) => !a.startsWith('-'))
/** Flags for node itself, e.g. `--test-name-pattern=…` or `--test-only`, passed on to every file's process. */
const nodeOptions = process.argv.slice(2).filter((a) => a.startsWith('-'))
/**
 * Three at a time on this project's two-core machines: the files that start servers or wait out timeouts
 * (webhook retries, slow clients) leave a core idle, and a third file fills it (the embedded suite: 474 s at
 * two, 397 s at three, the same CPU time).
 */
const concurrency = Math.max(1, Number(process.env.TEST_CONCURRENCY) || 3)

async function buildPgliteTemplate(): Promise<void> {
  const dump = pgliteDumpPath()
  if (!fs.existsSync(dump)) {
    const database = await openPglite()
    await migrateToLatest(database.db)
    // Only the `postgres` database is used: without template0 and template1 the dump is 29 MB instead of 44, in
    // some 700 files instead of 1,300, and loading it is a fifth less of each test file's set-up.
    await sql`UPDATE pg_database SET datistemplate = false WHERE datname IN ('template0', 'template1')`.execute(
      database.db,
    )
    for (const name of ['template0', 'template1']) await sql`DROP DATABASE ${sql.id(name)}`.execute(database.db)
    await sql`CHECKPOINT`.execute(database.db)
    const blob = await database.dump()
    await database.close()
    fs.mkdirSync(path.dirname(dump), { recursive: true })
    const partial = `${dump}.${process.pid}.partial`
    // Kept as a plain tar: every test file loads it, and un-gzipping 40 MB cost each of them ~0.1–0.3 s of CPU.
    fs.writeFileSync(partial, gunzipSync(Buffer.from(await blob.arrayBuffer())))
    fs.renameSync(partial, dump)
  }
  console.log(`test database: embedded PGlite (template ${path.basename(dump)})`)
}

async function withAdmin<T>(work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: adminUrl(url!) })
  await admin.connect()
  try {
    return await work(admin)
  } finally {
    await admin.end()
  }
}

async function buildPostgresTemplate(): Promise<void> {
  const template = templateName(url!, runId)
  await withAdmin((admin) => admin.query(`CREATE DATABASE "${template}"`))
  const database = openPostgres({ url: adminUrl(url!, template) })
  await migrateToLatest(database.db)
  await database.close()
  await withAdmin((admin) => admin.query(`ALTER DATABASE "${template}" WITH IS_TEMPLATE true`))
  console.log(`test database: PostgreSQL at ${new URL(url!).host} (run ${runId}, template ${template})`)
}

/** Drops this run's databases, and only these. */
async function dropRunDatabases(): Promise<void> {
  if (url === undefined) return
  const prefix = runPrefix(url, runId)
  await withAdmin(async (admin) => {
    const { rows } = await admin.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE starts_with(datname, $1)',
      [prefix],
    )
    for (const { datname } of rows) {
      await admin.query(`ALTER DATABASE "${datname}" WITH IS_TEMPLATE false`)
      await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`)
    }
  })
}

async function main(): Promise<number> {
  const started = performance.now()
  if (url === undefined) await buildPgliteTemplate()
  else await buildPostgresTemplate()
  // The test processes (and what they start) load TypeBox and Kysely joined into one file each: helpers/vendor.ts.
  process.env.TSX_TSCONFIG_PATH ??= await vendorTsconfig()
  const testFiles =
    files.length > 0
      ? files
      : fs
          .readdirSync(import.meta.dirname)
          .filter((f) => f.endsWith('.test.ts'))
          .sort()
          .map((f) => path.join('test', f))
  const results = await runFiles(testFiles, { runId, nodeOptions, concurrency })
  printSummary(results, performance.now() - started)
  return results.files.some((r) => r.code !== 0) ? 1 : 0
}

const code = await main().catch((error: unknown) => {
  console.error(error)
  return 1
})
await dropRunDatabases().catch((error: unknown) => console.error('could not drop this run’s databases:', error))
process.exit(code)
