/**
 * Upgrades: a database as an earlier version left it, with data, is upgraded through every migration added
 * since, and then serves its old data and credentials. Each fixture in test/fixtures/upgrade/ is a database
 * at one migration (never edited after it is made); when a migration is added, this test runs it on every
 * fixture, so a migration that breaks an existing database fails here. docs/upgrading.md says how to add a
 * fixture for a new release.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { Writable } from 'node:stream'
import { test } from 'node:test'
import { sql } from 'kysely'
import pg from 'pg'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { checkDatabase } from '../src/db/check.ts'
import { openPglite, openPostgres, type Database } from '../src/db/database.ts'
import { migrateToLatest, migrationNames, migrationStatus } from '../src/db/migrate.ts'
import { testDatabaseUrl } from './helpers/db.ts'
import { adminUrl, runPrefix } from './helpers/template.ts'

const fixtures = path.resolve(import.meta.dirname, 'fixtures/upgrade')

interface Fixture {
  migration: string
  token_signing_key: string
  secret_pepper: string
  client_id: string
  client_secret: string
  domain: string
  vendors: number
}

/** An empty database of the engine under test (no migrations at all). */
async function emptyDatabase(): Promise<Database> {
  if (testDatabaseUrl === undefined) return openPglite()
  const name = `${runPrefix(testDatabaseUrl, process.env.TEST_RUN_ID ?? 'local')}upgrade${randomBytes(4).toString('hex')}`
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: adminUrl(testDatabaseUrl!) })
    await client.connect()
    await client.query(statement).finally(() => client.end())
  }
  await admin(`CREATE DATABASE "${name}"`)
  const database = openPostgres({ url: adminUrl(testDatabaseUrl, name) })
  return {
    ...database,
    close: () => database.close().then(() => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)),
  }
}

const names = fs.readdirSync(fixtures).filter((file) => file.endsWith('.sql'))

test('there is a fixture at the latest migration of the last release', () => {
  assert.ok(names.length > 0)
})

for (const file of names) {
  const fixture = JSON.parse(fs.readFileSync(path.join(fixtures, file.replace(/\.sql$/, '.json')), 'utf8')) as Fixture

  test(`a database at ${fixture.migration}, with data, upgrades through every later migration and serves it`, async () => {
    const database = await emptyDatabase()
    try {
      await sql.raw(fs.readFileSync(path.join(fixtures, file), 'utf8')).execute(database.db)
      await sql`reset all`.execute(database.db) // the dump's session settings (search_path …) are not the service's

      const known = migrationNames()
      const at = known.indexOf(fixture.migration)
      assert.ok(at >= 0, `${fixture.migration} is a known migration`)
      const later = known.slice(at + 1)
      const pending = (await migrationStatus(database.db)).filter((m) => m.executedAt === undefined).map((m) => m.name)
      assert.deepEqual(pending, later, 'the fixture is exactly at its migration')

      assert.deepEqual(await migrateToLatest(database.db), later, 'every later migration ran, in order')
      assert.ok((await migrationStatus(database.db)).every((m) => m.executedAt !== undefined))
      assert.deepEqual((await checkDatabase(database.db)).problems, [], 'every table reads and every count agrees')

      const app = await buildApp({
        config: loadConfig({ DEMO_SEED: 'false' }),
        database,
        keys: {
          signingKey: new TextEncoder().encode(fixture.token_signing_key),
          pepper: Buffer.from(fixture.secret_pepper, 'utf8'),
        },
        logStream: new Writable({ write: (_chunk, _encoding, done) => done() }),
      })
      try {
        const token = await app.inject({
          method: 'POST',
          url: '/oauth/token',
          payload: {
            client_id: fixture.client_id,
            client_secret: fixture.client_secret,
            audience: 'procurement-api',
            grant_type: 'client_credentials',
          },
        })
        assert.equal(token.statusCode, 200, `the old client secret works: ${token.body}`)
        const vendors = await app.inject({
          url: '/api/v3/vendors/',
          headers: {
            authorization: `Bearer ${token.json<{ access_token: string }>().access_token}`,
            'x-service-client': 'api',
          },
        })
        assert.equal(vendors.statusCode, 200, vendors.body)
        assert.equal(
          vendors.json<{ metadata: { pagination: { count: number } } }>().metadata.pagination.count,
          fixture.vendors,
        )
      } finally {
        await app.close()
      }
    } finally {
      await database.close()
    }
  })
}
