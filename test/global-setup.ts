/**
 * Runs once before the test files: builds the migrated template for the engine under test.
 * `TEST_DATABASE_URL` set → PostgreSQL; otherwise the embedded PGlite.
 */
import fs from 'node:fs'
import path from 'node:path'
import { sql } from 'kysely'
import pg from 'pg'
import { openPglite, openPostgres } from '../src/db/database.ts'
import { migrateToLatest } from '../src/db/migrate.ts'
import { adminUrl, PG_PREFIX, PG_TEMPLATE, pgliteDumpPath } from './helpers/template.ts'

const url = process.env.TEST_DATABASE_URL
if (url === undefined || url === '') {
  const dump = pgliteDumpPath()
  if (!fs.existsSync(dump)) {
    const database = await openPglite()
    await migrateToLatest(database.db)
    const blob = await database.dump()
    await database.close()
    fs.mkdirSync(path.dirname(dump), { recursive: true })
    fs.writeFileSync(`${dump}.partial`, Buffer.from(await blob.arrayBuffer()))
    fs.renameSync(`${dump}.partial`, dump)
  }
  console.log(`test database: embedded PGlite (template ${path.basename(dump)})`)
} else {
  const admin = new pg.Client({ connectionString: adminUrl(url) })
  await admin.connect()
  const { rows } = await admin.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [`${PG_PREFIX}%`])
  for (const { datname } of rows) {
    await admin.query(`ALTER DATABASE "${datname}" WITH IS_TEMPLATE false`).catch(() => undefined)
    await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`)
  }
  await admin.query(`CREATE DATABASE "${PG_TEMPLATE}"`)
  const database = openPostgres({ url: adminUrl(url, PG_TEMPLATE) })
  await migrateToLatest(database.db)
  await sql`select 1`.execute(database.db)
  await database.close()
  await admin.query(`ALTER DATABASE "${PG_TEMPLATE}" WITH IS_TEMPLATE true`)
  await admin.end()
  console.log(`test database: PostgreSQL at ${new URL(url).host} (template ${PG_TEMPLATE})`)
}
