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
import { sql, type Kysely } from 'kysely'
import pg from 'pg'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { checkDatabase } from '../src/db/check.ts'
import { checkTenancy } from '../src/db/tenancy-check.ts'
import { openPglite, openPostgres, type Database } from '../src/db/database.ts'
import { migrateTo, migrateToLatest, migrationNames, migrationStatus } from '../src/db/migrate.ts'
import type { DB } from '../src/db/schema.ts'
import { DEMO_ADMIN_EMAIL } from '../src/seed/demo.ts'
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
      assert.deepEqual(await checkTenancy(database.db), [], 'every table is keyed by tenant (DECISIONS, Tenancy)')

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

const REKEY = '0031_tenant_keys'

/**
 * A few thousand rows beside the demo tenant's, in the tables the re-key changes most: vendors and the audit log,
 * request, order and receipt lines chained by the foreign keys that gain tenant_id, webhook deliveries, sessions,
 * revoked tokens, rate-limit windows and departments of user locations.
 */
const fill = (db: Kysely<DB>, t: number, application: number) =>
  sql
    .raw(
      `INSERT INTO vendors (tenant_id, name, currency_id)
         SELECT ${t}, 'Bulk vendor ' || g, (SELECT min(id) FROM currencies WHERE tenant_id = ${t}) FROM generate_series(1, 3000) g;
       INSERT INTO audit_log (tenant_id, action, resource_type, resource_id)
         SELECT ${t}, 'bulk', 'vendor', g::text FROM generate_series(1, 3000) g;
       INSERT INTO request_lines (tenant_id, request_id, position, quantity, unit_price)
         SELECT ${t}, (SELECT min(id) FROM purchase_requests WHERE tenant_id = ${t}), 100 + g, 1, 1 FROM generate_series(1, 2000) g;
       INSERT INTO purchase_order_lines (tenant_id, order_id, position, request_line_id, quantity, unit_price, amount, tax)
         SELECT ${t}, (SELECT min(id) FROM purchase_orders WHERE tenant_id = ${t}), l.position, l.id, 1, 1, 1, 0
           FROM request_lines l WHERE l.tenant_id = ${t} AND l.position > 100;
       INSERT INTO receipt_lines (tenant_id, receipt_id, position, po_line_id, accepted_quantity, rejected_quantity)
         SELECT ${t}, (SELECT min(id) FROM receipts WHERE tenant_id = ${t}), p.position, p.id, 0, 0
           FROM purchase_order_lines p WHERE p.tenant_id = ${t} AND p.position > 100;
       INSERT INTO webhook_endpoints (tenant_id, url, event_types, secret)
         VALUES (${t}, 'https://hooks.example.com/in', '{vendor.created}', 'whsec_upgrade');
       INSERT INTO webhook_deliveries (tenant_id, endpoint_id, event_xid, event_seq, event_type, status)
         SELECT ${t}, e.id, '1'::xid8, g, 'vendor.created', 'succeeded'
           FROM webhook_endpoints e, generate_series(1, 2000) g WHERE e.tenant_id = ${t};
       INSERT INTO sessions (tenant_id, user_id, token_hash, expires_at)
         SELECT ${t}, u.id, decode(md5('session ' || u.id || ' ' || g), 'hex'), now() + interval '1 day'
           FROM users u, generate_series(1, 250) g WHERE u.tenant_id = ${t};
       INSERT INTO token_revocations (jti, tenant_id, application_id, expires_at)
         SELECT md5('jti ' || g)::uuid, ${t}, ${application}, now() + interval '1 hour' FROM generate_series(1, 500) g;
       INSERT INTO rate_limit_windows (tenant_id, application_id, window_start, n)
         SELECT ${t}, ${application}, date_trunc('minute', now()) - g * interval '1 minute', g FROM generate_series(1, 100) g;
       INSERT INTO user_location_departments (tenant_id, user_id, location_id, department_id)
         SELECT ul.tenant_id, ul.user_id, ul.location_id, d.id FROM user_locations ul
           JOIN departments d ON d.tenant_id = ul.tenant_id AND d.location_id = ul.location_id WHERE ul.tenant_id = ${t};`,
    )
    .execute(db)

/** Every table's row count and a digest of its rows (the migrator's own tables left out). */
async function snapshot(db: Kysely<DB>): Promise<Record<string, string>> {
  const { rows: tables } = await sql<{ name: string }>`
    SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname NOT LIKE 'schema_migrations%'`.execute(db)
  const result: Record<string, string> = {}
  for (const { name } of tables) {
    const { rows } = await sql<{ n: number; digest: string | null }>`
      SELECT count(*)::int AS n, md5(string_agg(t::text, E'\n' ORDER BY t::text)) AS digest
        FROM ${sql.table(name)} t`.execute(db)
    result[name] = `${rows[0]!.n} rows, ${rows[0]!.digest ?? '-'}`
  }
  return result
}

test(`${REKEY} keys a database with the demo tenant and thousands of rows by tenant, and changes no row`, async () => {
  const database = await emptyDatabase()
  try {
    const db = database.db
    const known = migrationNames()
    // The database the version before the re-key left: its demo seed and an application (the fixture at the
    // migration before it; today's seed writes columns that later migrations add).
    const before = known[known.indexOf(REKEY) - 1]!
    const fixture = JSON.parse(fs.readFileSync(path.join(fixtures, `${before}.json`), 'utf8')) as Fixture
    await sql.raw(fs.readFileSync(path.join(fixtures, `${before}.sql`), 'utf8')).execute(db)
    await sql`reset all`.execute(db)
    const tenant = await db
      .selectFrom('tenants')
      .select('id')
      .where('domain', '=', fixture.domain)
      .executeTakeFirstOrThrow()
    const admin = await db
      .selectFrom('users')
      .select('id')
      .where('tenant_id', '=', tenant.id)
      .where('email', '=', DEMO_ADMIN_EMAIL)
      .executeTakeFirstOrThrow()
    const keys = {
      signingKey: new TextEncoder().encode(fixture.token_signing_key),
      pepper: Buffer.from(fixture.secret_pepper, 'utf8'),
    }
    const creds = { client_id: fixture.client_id, client_secret: fixture.client_secret }
    const application = await db
      .selectFrom('applications')
      .select('id')
      .where('client_id', '=', creds.client_id)
      .executeTakeFirstOrThrow()
    await fill(db, tenant.id, application.id)

    const rules: Record<string, number> = {}
    for (const b of await checkTenancy(db)) rules[b.rule] = (rules[b.rule] ?? 0) + 1
    assert.deepEqual(rules, { 'primary-key': 33, unique: 10, 'foreign-key': 4 }, 'the 47 breaches issue #46 counted')
    const rows = await snapshot(db)
    const { n: vendorCount } = await db
      .selectFrom('vendors')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', tenant.id)
      .executeTakeFirstOrThrow()
    assert.ok(Number(vendorCount) > 3000)

    assert.deepEqual(await migrateTo(db, REKEY), [REKEY])
    assert.deepEqual(await checkTenancy(db), [], 'every table is keyed by tenant')
    assert.deepEqual(await snapshot(db), rows, 'every row is as it was')
    assert.deepEqual(await migrateToLatest(db), known.slice(known.indexOf(REKEY) + 1))
    assert.deepEqual(await checkTenancy(db), [], 'and stays so through every later migration')
    assert.deepEqual((await checkDatabase(db)).problems, [], 'every table reads and every count agrees')

    const app = await buildApp({
      config: loadConfig({ DEMO_SEED: 'false' }),
      database,
      keys,
      logStream: new Writable({ write: (_chunk, _encoding, done) => done() }),
    })
    try {
      const token = await app.inject({
        method: 'POST',
        url: '/oauth/token',
        payload: { ...creds, audience: 'procurement-api', grant_type: 'client_credentials' },
      })
      assert.equal(token.statusCode, 200, token.body)
      const headers = {
        authorization: `Bearer ${token.json<{ access_token: string }>().access_token}`,
        'x-service-client': 'api',
      }
      const vendors = await app.inject({ url: '/api/v3/vendors/', headers })
      assert.equal(vendors.statusCode, 200, vendors.body)
      assert.equal(
        vendors.json<{ metadata: { pagination: { count: number } } }>().metadata.pagination.count,
        Number(vendorCount),
      )
      const created = await app.inject({
        method: 'POST',
        url: '/api/v3/vendors/',
        headers,
        payload: { name: 'After the re-key' },
      })
      assert.equal(created.statusCode, 201, created.body)
      const id = created.json<{ data: { id: number } }>().data.id
      const max = await db
        .selectFrom('vendors')
        .select((eb) => eb.fn.max('id').as('id'))
        .executeTakeFirstOrThrow()
      assert.equal(id, max.id, 'ids still come from the sequence, above every earlier one')
      const users = await app.inject({ url: '/api/v3/users/', headers })
      assert.equal(users.statusCode, 200, users.body)
    } finally {
      await app.close()
    }

    // ON DELETE CASCADE is kept on the foreign keys that gained tenant_id.
    await db.deleteFrom('webhook_endpoints').where('tenant_id', '=', tenant.id).execute()
    const deliveries = await db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    assert.equal(Number(deliveries.n), 0)
    await db.deleteFrom('user_locations').where('tenant_id', '=', tenant.id).where('user_id', '=', admin.id).execute()
    const left = await db
      .selectFrom('user_location_departments')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', admin.id)
      .executeTakeFirstOrThrow()
    assert.equal(Number(left.n), 0)
  } finally {
    await database.close()
  }
})
