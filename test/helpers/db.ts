/** A database of this test file's own, copied from the run's migrated template (see test/run.ts). */
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import pg from 'pg'
import { openPglite, openPostgres, type Database } from '../../src/db/database.ts'
import { compilePglite } from '../../src/db/pglite-preload.ts'
import { adminUrl, pgliteDumpPath, runPrefix, templateName } from './template.ts'

export const testDatabaseUrl = process.env.TEST_DATABASE_URL || undefined
export const engineUnderTest = testDatabaseUrl === undefined ? 'pglite' : 'postgres'

export interface TestDatabase extends Database {
  /** Connection string of the copy (PostgreSQL only), e.g. for a child process. */
  url?: string
}

/** PGlite's WebAssembly, compiled once for every database this process opens (many files share a process). */
let compiled: ReturnType<typeof compilePglite> | undefined

export async function testDatabase(): Promise<TestDatabase> {
  if (testDatabaseUrl === undefined) {
    const dump = new Blob([fs.readFileSync(pgliteDumpPath())])
    return openPglite({ loadDataDir: dump, compiled: await (compiled ??= compilePglite()) })
  }
  const runId = process.env.TEST_RUN_ID
  if (runId === undefined)
    throw new Error(
      'TEST_RUN_ID is not set: run the tests through `npm test` (`npm test -- test/x.test.ts` for one file)',
    )
  const name = `${runPrefix(testDatabaseUrl, runId)}${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: adminUrl(testDatabaseUrl) })
  await admin.connect()
  await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${templateName(testDatabaseUrl, runId)}"`)
  await admin.end()
  const url = adminUrl(testDatabaseUrl, name)
  const database = openPostgres({ url })
  return {
    ...database,
    url,
    async close() {
      await database.close()
      const drop = new pg.Client({ connectionString: adminUrl(testDatabaseUrl) })
      await drop.connect()
      await drop.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
      await drop.end()
    },
  }
}
