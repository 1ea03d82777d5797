/** A database of this test file's own, copied from the migrated template (see global-setup.ts). */
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import pg from 'pg'
import { openPglite, openPostgres, type Database } from '../../src/db/database.ts'
import { adminUrl, PG_PREFIX, PG_TEMPLATE, pgliteDumpPath } from './template.ts'

export const testDatabaseUrl = process.env.TEST_DATABASE_URL || undefined
export const engineUnderTest = testDatabaseUrl === undefined ? 'pglite' : 'postgres'

export interface TestDatabase extends Database {
  /** Connection string of the copy (PostgreSQL only), e.g. for a child process. */
  url?: string
}

export async function testDatabase(): Promise<TestDatabase> {
  if (testDatabaseUrl === undefined) {
    const dump = new Blob([fs.readFileSync(pgliteDumpPath())])
    return openPglite({ loadDataDir: dump })
  }
  const name = `${PG_PREFIX}${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: adminUrl(testDatabaseUrl) })
  await admin.connect()
  await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${PG_TEMPLATE}"`)
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
