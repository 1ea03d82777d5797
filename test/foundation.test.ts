import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { sql } from 'kysely'
import fs from 'node:fs'
import { ConfigError, EnvSchema, loadConfig } from '../src/config.ts'
import pg from 'pg'
import { foldKeptCounts, purgeExpired, startMaintenance, vacuumAnalyze } from '../src/db/maintenance.ts'
import { seedDemo } from '../src/seed/demo.ts'
import { sampleTenant, signedIn, useTestApp } from './helpers/app.ts'
import { engineUnderTest } from './helpers/db.ts'

const ctx = useTestApp()

describe('configuration', () => {
  test('defaults apply and the result is frozen', () => {
    const config = loadConfig({})
    assert.equal(config.PORT, 3000)
    assert.equal(config.HOST, '127.0.0.1')
    assert.ok(Object.isFrozen(config))
  })

  test('a bad value stops start-up with a message naming the variable', () => {
    assert.throws(
      () => loadConfig({ PORT: 'eighty' }),
      (e: unknown) => e instanceof ConfigError && /PORT/.test(e.message),
    )
    assert.throws(
      () => loadConfig({ LOG_LEVEL: 'loud' }),
      (e: unknown) => e instanceof ConfigError && /LOG_LEVEL/.test(e.message),
    )
    assert.throws(
      () => loadConfig({ DATABASE_URL: 'mysql://x' }),
      (e: unknown) => e instanceof ConfigError && /DATABASE_URL/.test(e.message),
    )
    assert.throws(
      () => loadConfig({ SECRET_PEPPER: 'too-short-but-secret' }),
      (e: unknown) =>
        e instanceof ConfigError && /SECRET_PEPPER/.test(e.message) && !e.message.includes('too-short-but-secret'),
      'the message names the variable, never its value',
    )
  })

  test('docs/configuration.md documents every setting', () => {
    const docs = fs.readFileSync(new URL('../docs/configuration.md', import.meta.url), 'utf8')
    for (const name of Object.keys(EnvSchema.properties))
      assert.ok(docs.includes(`| \`${name}\` |`), `${name} is documented`)
  })

  test('PostgreSQL mode insists on shared signing key and pepper', () => {
    assert.throws(
      () => loadConfig({ DATABASE_URL: 'postgres://localhost/x' }),
      (e: unknown) => e instanceof ConfigError && /TOKEN_SIGNING_KEY/.test(e.message),
    )
    const ok = loadConfig({
      DATABASE_URL: 'postgres://localhost/x',
      TOKEN_SIGNING_KEY: 'k'.repeat(32),
      SECRET_PEPPER: 'p'.repeat(32),
    })
    assert.equal(ok.DATABASE_URL, 'postgres://localhost/x')
  })

  test('no demo tenant on PostgreSQL unless asked for; the embedded default keeps it', () => {
    const production = {
      DATABASE_URL: 'postgres://localhost/x',
      TOKEN_SIGNING_KEY: 'k'.repeat(32),
      SECRET_PEPPER: 'p'.repeat(32),
    }
    assert.equal(loadConfig(production).demoSeed, false)
    assert.equal(loadConfig({ ...production, DEMO_SEED: 'true' }).demoSeed, true)
    assert.equal(loadConfig({}).demoSeed, true)
    assert.equal(loadConfig({ DEMO_SEED: 'false' }).demoSeed, false)
  })
})

describe('operations endpoints', () => {
  test('/healthz and /readyz answer 200; /healthz names the version in package.json', async () => {
    const health = await ctx.app.inject('/healthz')
    assert.equal(health.statusCode, 200)
    const { version } = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string
    }
    assert.deepEqual(health.json(), { status: 'ok', version })
    const ready = await ctx.app.inject('/readyz')
    assert.equal(ready.statusCode, 200)
    assert.deepEqual(ready.json(), { status: 'ok', database: engineUnderTest })
  })

  test('every response carries a request id; a well-formed incoming one is kept', async () => {
    const mine = await ctx.app.inject({ url: '/healthz', headers: { 'x-request-id': 'abc-123' } })
    assert.equal(mine.headers['x-request-id'], 'abc-123')
    const made = await ctx.app.inject({ url: '/healthz', headers: { 'x-request-id': 'bad id with spaces' } })
    assert.match(String(made.headers['x-request-id']), /^[0-9a-f-]{36}$/)
    assert.ok(ctx.logs.some((line) => line.includes('"request_id":"abc-123"')))
  })

  test('/metrics counts requests per route pattern with latency histograms', async () => {
    await ctx.app.inject('/healthz')
    await ctx.app.inject('/healthz')
    const response = await ctx.app.inject('/metrics')
    assert.equal(response.statusCode, 200)
    assert.match(String(response.headers['content-type']), /^text\/plain/)
    const count = /http_requests_total\{method="GET",route="\/healthz",status="200"\} (\d+)/.exec(response.body)
    assert.ok(count && Number(count[1]) >= 2, 'healthz requests are counted')
    assert.match(response.body, /http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/healthz"\}/)
    assert.match(response.body, /process_cpu_seconds_total/)
  })

  test('/metrics: each status is counted apart; the histogram is cumulative and ends at the count', async () => {
    const route = 'method="GET",route="/api/v3/vendors/"'
    const value = (body: string, sample: string) => {
      const line = body.split('\n').find((l) => l.startsWith(`${sample} `))
      return line === undefined ? 0 : Number(line.slice(sample.length + 1))
    }
    const scrape = async () => (await ctx.app.inject('/metrics')).body
    const before = await scrape()
    await ctx.app.inject('/api/v3/vendors/') // no X-Service-Client: 400
    await ctx.app.inject('/api/v3/vendors/')
    await ctx.app.inject({ url: '/api/v3/vendors/', headers: { 'x-service-client': 'api' } }) // no token: 401
    const after = await scrape()
    const delta = (sample: string) => value(after, sample) - value(before, sample)
    assert.equal(delta(`http_requests_total{${route},status="400"}`), 2)
    assert.equal(delta(`http_requests_total{${route},status="401"}`), 1)
    assert.equal(delta(`http_request_duration_seconds_count{${route}}`), 3)
    assert.equal(delta(`http_request_duration_seconds_bucket{le="+Inf",${route}}`), 3)
    assert.ok(value(after, `http_request_duration_seconds_sum{${route}}`) > 0)
    const buckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5].map((le) =>
      value(after, `http_request_duration_seconds_bucket{le="${le}",${route}}`),
    )
    buckets.push(value(after, `http_request_duration_seconds_bucket{le="+Inf",${route}}`))
    for (let i = 1; i < buckets.length; i++)
      assert.ok(buckets[i]! >= buckets[i - 1]!, `cumulative: ${buckets.join(', ')}`)
    assert.equal(buckets.at(-1), value(after, `http_request_duration_seconds_count{${route}}`))
  })

  test('a malformed Host header on a paged list is a 400, not a crash', async () => {
    const { api } = await signedIn(ctx)
    const response = await api({ method: 'GET', url: '/api/v3/vendors/?page_size=1', headers: { host: 'bad host' } })
    assert.equal(response.statusCode, 400)
  })

  test('unknown path → 404 problem; wrong method → 405 with Allow', async () => {
    const missing = await ctx.app.inject('/nope')
    assert.equal(missing.statusCode, 404)
    assert.match(String(missing.headers['content-type']), /application\/problem\+json/)
    assert.equal(missing.json().status, 404)
    const wrong = await ctx.app.inject({ method: 'DELETE', url: '/readyz' })
    assert.equal(wrong.statusCode, 405)
    assert.match(String(wrong.headers.allow), /GET/)
    assert.ok(wrong.json().detail)
  })
})

describe('data model constraints', () => {
  test('e-mail is unique per tenant, case-insensitively, and free across tenants', async () => {
    const a = await sampleTenant(ctx)
    const b = await sampleTenant(ctx)
    const insert = (tenant_id: number, email: string) =>
      ctx.database.db.insertInto('users').values({ tenant_id, email }).execute()
    await assert.rejects(insert(a.tenantId, 'ADMIN@example.com'), (e: { code?: string }) => e.code === '23505')
    await insert(b.tenantId, 'new.person@example.com')
    await insert(a.tenantId, 'new.person@example.com')
  })

  test('a row cannot point at another tenant’s row', async () => {
    const a = await sampleTenant(ctx)
    const b = await sampleTenant(ctx)
    const otherCurrency = await ctx.database.db
      .selectFrom('currencies')
      .select('id')
      .where('tenant_id', '=', b.tenantId)
      .executeTakeFirstOrThrow()
    await assert.rejects(
      ctx.database.db
        .insertInto('locations')
        .values({
          tenant_id: a.tenantId,
          name: 'X',
          currency_id: otherCurrency.id,
          phone_one: '1',
          legal_entity_id: null,
        })
        .execute(),
      (e: { code?: string }) => e.code === '23503',
    )
  })

  test('checks hold: one base currency, role type range, approval kind', async () => {
    const t = await sampleTenant(ctx, undefined, { documents: true })
    const db = ctx.database.db
    await assert.rejects(
      db.insertInto('currencies').values({ tenant_id: t.tenantId, name: 'GBP', rate: '1', base: true }).execute(),
      (e: { code?: string }) => e.code === '23505',
    )
    await assert.rejects(
      db.insertInto('roles').values({ tenant_id: t.tenantId, name: 'Odd', type: 11 }).execute(),
      (e: { code?: string }) => e.code === '23514',
    )
    await assert.rejects(
      sql`update request_approvals set kind = 'lunch' where tenant_id = ${t.tenantId}`.execute(db),
      (e: { code?: string }) => e.code === '23514',
    )
  })

  test('housekeeping deletes expired idempotency keys and token revocations, and nothing live', async () => {
    const t = await signedIn(ctx)
    const app = await ctx.database.db
      .selectFrom('applications')
      .select('id')
      .where('client_id', '=', t.creds.client_id)
      .executeTakeFirstOrThrow()
    const base = { tenant_id: t.tenant.tenantId, application_id: app.id }
    await ctx.database.db
      .insertInto('idempotency_keys')
      .values([
        { ...base, key: 'old', request_hash: 'x', expires_at: new Date(Date.now() - 1000) },
        { ...base, key: 'live', request_hash: 'x', expires_at: new Date(Date.now() + 60_000) },
      ])
      .execute()
    await ctx.database.db
      .insertInto('token_revocations')
      .values([
        { ...base, jti: '00000000-0000-4000-8000-000000000001', expires_at: new Date(Date.now() - 1000) },
        { ...base, jti: '00000000-0000-4000-8000-000000000002', expires_at: new Date(Date.now() + 60_000) },
      ])
      .execute()
    await purgeExpired(ctx.database)
    const keys = await ctx.database.db
      .selectFrom('idempotency_keys')
      .select('key')
      .where('application_id', '=', app.id)
      .execute()
    assert.deepEqual(
      keys.map((k) => k.key),
      ['live'],
    )
    const revoked = await ctx.database.db
      .selectFrom('token_revocations')
      .select('jti')
      .where('application_id', '=', app.id)
      .execute()
    assert.deepEqual(
      revoked.map((r) => r.jti),
      ['00000000-0000-4000-8000-000000000002'],
    )
  })

  test('embedded maintenance gives the planner real statistics', async () => {
    await sampleTenant(ctx)
    const estimate = async () =>
      Number(
        (
          await sql<{ n: number }>`select reltuples::int as n from pg_class where relname = 'vendors'`.execute(
            ctx.database.db,
          )
        ).rows[0]!.n,
      )
    await vacuumAnalyze(ctx.database)
    assert.ok((await estimate()) >= 28, 'ANALYZE saw the rows')
  })

  test('housekeeping runs on its schedule and says when each round is over (the idle release re-arms on it)', async () => {
    const errors: object[] = []
    let rounds = 0
    let stop: (() => Promise<void>) | undefined
    await new Promise<void>((resolve) => {
      stop = startMaintenance(ctx.database, { error: (obj) => errors.push(obj) }, 50, () => {
        if (++rounds === 2) resolve()
      })
    })
    await stop!()
    assert.deepEqual(errors, [])
    assert.ok(rounds >= 2)
  })

  test('row counts kept by triggers match the tables', async () => {
    const t = await sampleTenant(ctx, undefined, { documents: true })
    const counted = await ctx.database.db
      .selectFrom('row_counts')
      .select(['table_name', sql<string>`sum(n)`.as('n')])
      .where('tenant_id', '=', t.tenantId)
      .groupBy('table_name')
      .execute()
    const byTable = Object.fromEntries(counted.map((r) => [r.table_name, Number(r.n)]))
    // Orders are counted in all and per status (migration 0017), each against the table itself.
    const orders = await sql<{ status: string; n: string }>`select status, count(*) as n from purchase_orders
      where tenant_id = ${t.tenantId} group by status`.execute(ctx.database.db)
    const perStatus = Object.fromEntries(orders.rows.map((r) => [`purchase_orders.status:${r.status}`, Number(r.n)]))
    const total = orders.rows.reduce((sum, r) => sum + Number(r.n), 0)
    assert.ok(total > 0, 'the sample tenant has orders')
    assert.deepEqual(byTable, { vendors: 28, locations: 3, users: 4, purchase_orders: total, ...perStatus })
    const draft = await ctx.database.db
      .selectFrom('purchase_orders')
      .select('id')
      .where('tenant_id', '=', t.tenantId)
      .where('status', '=', 'draft')
      .executeTakeFirstOrThrow()
    await ctx.database.db
      .updateTable('purchase_orders')
      .set({ status: 'cancelled' })
      .where('id', '=', draft.id)
      .execute()
    const moved = await sql<{ table_name: string; n: string }>`select table_name, sum(n) as n from row_counts
      where tenant_id = ${t.tenantId} and table_name in ('purchase_orders.status:draft', 'purchase_orders.status:cancelled')
      group by table_name`.execute(ctx.database.db)
    const now = Object.fromEntries(moved.rows.map((r) => [r.table_name, Number(r.n)]))
    assert.equal(now['purchase_orders.status:draft'], (perStatus['purchase_orders.status:draft'] ?? 0) - 1)
    assert.equal(now['purchase_orders.status:cancelled'], (perStatus['purchase_orders.status:cancelled'] ?? 0) + 1)
    await ctx.database.db
      .deleteFrom('vendors')
      .where('tenant_id', '=', t.tenantId)
      .where('external_id', 'in', ['V-1000', 'V-1001'])
      .execute()
    const after = await ctx.database.db
      .selectFrom('row_counts')
      .select(sql<string>`sum(n)`.as('n'))
      .where('tenant_id', '=', t.tenantId)
      .where('table_name', '=', 'vendors')
      .executeTakeFirstOrThrow()
    assert.equal(Number(after.n), 26, 'deletes are counted too')
  })

  test(
    'a write left open in one session holds up no other write to the table; folded, the counts stay exact',
    { skip: engineUnderTest !== 'postgres' && 'needs two sessions (PostgreSQL)' },
    async () => {
      const { api, tenant } = await signedIn(ctx)
      const kept = async () =>
        Number(
          (
            await sql<{ n: string }>`select sum(n) as n from row_counts
              where tenant_id = ${tenant.tenantId} and table_name = 'vendors'`.execute(ctx.database.db)
          ).rows[0]!.n,
        )
      const open = new pg.Client({ connectionString: ctx.database.url! })
      await open.connect()
      try {
        // A transaction that has counted a change to the tenant's vendors and is still open.
        await open.query('BEGIN')
        await open.query("DELETE FROM vendors WHERE tenant_id = $1 AND external_id = 'V-1000'", [tenant.tenantId])
        // With count rows shared between sessions, some of these would wait for it to end.
        for (let i = 0; i < 24; i++) {
          const created = await Promise.race([
            api({ method: 'POST', url: '/api/v3/vendors/', payload: { name: `Not held up ${i}` } }),
            new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`create ${i} waited`)), 5000)),
          ])
          assert.equal(created.statusCode, 201, created.body)
        }
      } finally {
        await open.query('ROLLBACK')
        await open.end()
      }
      assert.equal(await kept(), 28 + 24)
      assert.ok((await foldKeptCounts(ctx.database)) > 0)
      assert.equal(await kept(), 28 + 24, 'folding keeps the sum')
      const rows = await sql<{ n: number }>`select count(*)::int as n from row_counts
        where tenant_id = ${tenant.tenantId} and table_name = 'vendors'`.execute(ctx.database.db)
      assert.equal(rows.rows[0]!.n, 1, 'one row after folding')
    },
  )
})

describe('demo seed', () => {
  test('creates the whole demo tenant once; a second run changes nothing', async () => {
    const db = ctx.database.db
    assert.equal(await seedDemo(db), true)
    assert.equal(await seedDemo(db), false)
    const tenant = await db.selectFrom('tenants').selectAll().where('domain', '=', 'demo').executeTakeFirstOrThrow()
    const count = async (
      table: 'currencies' | 'locations' | 'vendors' | 'users' | 'departments' | 'legal_entities' | 'delegations',
    ) =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .where('tenant_id', '=', tenant.id)
            .executeTakeFirstOrThrow()
        ).n,
      )
    assert.deepEqual(
      await db
        .selectFrom('currencies')
        .select(['name', 'base'])
        .where('tenant_id', '=', tenant.id)
        .orderBy('name')
        .execute(),
      [
        { name: 'CAD', base: false },
        { name: 'EUR', base: false },
        { name: 'USD', base: true },
      ],
    )
    assert.equal(await count('locations'), 3)
    assert.ok((await count('vendors')) >= 25)
    assert.equal(await count('users'), 4, 'admin, buyer, requester and manager')
    assert.ok((await count('departments')) > 0)
    assert.equal(await count('legal_entities'), 1)
    assert.equal(await count('delegations'), 1)
    const roles = await db
      .selectFrom('roles as r')
      .innerJoin('role_permissions as rp', 'rp.role_id', 'r.id')
      .innerJoin('permissions as p', 'p.id', 'rp.permission_id')
      .select(['r.name', 'p.key'])
      .where('r.tenant_id', '=', tenant.id)
      .execute()
    const keysOf = (name: string) =>
      roles
        .filter((r) => r.name === name)
        .map((r) => r.key)
        .sort()
    assert.deepEqual(keysOf('Buyer'), ['nav_purchase', 'nav_receive', 'nav_request'])
    assert.deepEqual(keysOf('Requester'), ['nav_request'])
    assert.ok(keysOf('Administrator').includes('superuser'))
    assert.ok(keysOf('Administrator').filter((k) => k.startsWith('nav_')).length === 7)
    const hq = await db
      .selectFrom('addresses')
      .select('kind')
      .where('tenant_id', '=', tenant.id)
      .where('kind', '=', 'alternate')
      .execute()
    assert.ok(hq.length >= 3)
  })
})
