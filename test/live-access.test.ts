/**
 * Live access from the in-process cache: a warm API request makes one database round trip (its own query),
 * and no change is ever answered from a stale entry — on the node that made it at once, on every other node
 * sharing PostgreSQL within a second, and through a lost listening connection.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import type { KyselyPlugin } from 'kysely'
import { sql } from 'kysely'
import { buildApp } from '../src/app.ts'
import { insertWithCredentials } from '../src/applications/service.ts'
import { loadConfig } from '../src/config.ts'
import { serverKeys } from '../src/keys.ts'
import { signedIn, tenantWithAdmin, TEST_AUDIENCE, useTestApp } from './helpers/app.ts'
import { engineUnderTest, testDatabase, type TestDatabase } from './helpers/db.ts'
import { run, type Running } from './helpers/process.ts'

/** Polls `check` until it holds, for at most `ms`; returns how long that took. */
async function within(ms: number, what: string, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now()
  for (;;) {
    if (await check()) return Date.now() - started
    if (Date.now() - started > ms) assert.fail(`${what}: not within ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

describe('one node', () => {
  const ctx = useTestApp()

  test('a warm API request makes one database round trip; a change is seen by the next request', async () => {
    let queries = 0
    const counter: KyselyPlugin = {
      // Counted as they run (a query compiled once is built, and seen by transformQuery, only once).
      transformQuery: (args) => args.node,
      transformResult: (args) => (queries++, Promise.resolve(args.result)),
    }
    const counted = { ...ctx.database, db: ctx.database.db.withPlugin(counter) }
    // No rate limit: on PostgreSQL its counts are synchronised in the background, through the same database.
    const config = { ...ctx.config, RATE_LIMIT_PER_MINUTE: 0 }
    const app = await buildApp({ config, database: counted, keys: ctx.keys })
    try {
      const { token, creds } = await signedIn(ctx)
      const call = (url = '/api/v3/vendors/') =>
        app.inject({ url, headers: { authorization: `Bearer ${token}`, 'x-service-client': 'api' } })
      assert.equal((await call()).statusCode, 200)
      queries = 0
      for (let i = 0; i < 20; i++) assert.equal((await call()).statusCode, 200)
      assert.equal(queries, 20, 'one query per warm request: the page with its total')

      // The token revoked through this node: its very next request is refused.
      const revoked = await app.inject({ method: 'POST', url: '/oauth/revoke', payload: { ...creds, token } })
      assert.equal(revoked.statusCode, 200)
      assert.equal((await call()).statusCode, 401)
    } finally {
      await app.close()
    }
  })

  test('permissions changed behind the service (SQL) take effect without a restart', async () => {
    const { api, tenant } = await signedIn(ctx)
    const create = () => api({ method: 'POST', url: '/api/v3/vendors/', payload: { name: 'Cache check' } })
    assert.equal((await create()).statusCode, 201)
    // Take every permission away from the admin's roles.
    await sql`delete from role_permissions where tenant_id = ${tenant.tenantId}`.execute(ctx.database.db)
    await within(1000, 'permissions removed', async () => (await create()).statusCode === 403)
    await ctx.database.db.updateTable('users').set({ is_active: false }).where('id', '=', tenant.users.admin).execute()
    await within(1000, 'owner deactivated', async () => (await api({ url: '/api/v3/vendors/' })).statusCode === 401)
  })
})

const skip = engineUnderTest !== 'postgres' && 'PostgreSQL-only: the embedded database is one process'
const env = (url: string) => ({
  DATABASE_URL: url,
  TOKEN_SIGNING_KEY: 'live-access-signing-key-'.padEnd(40, 'k'),
  SECRET_PEPPER: 'live-access-pepper-'.padEnd(40, 'p'),
  API_AUDIENCE: TEST_AUDIENCE,
  DEMO_SEED: 'false',
  PORT: '0',
  RATE_LIMIT_PER_MINUTE: '0',
})

describe('two processes sharing PostgreSQL', { skip }, () => {
  let database: TestDatabase
  const servers: Running[] = []
  let a: string
  let b: string
  before(async () => {
    database = await testDatabase()
    const start = async () => {
      const server = run(['serve'], env(database.url!))
      servers.push(server)
      return (await server.waitFor(/listening on (http:\/\/\S+)/, 60_000))[1]!
    }
    ;[a, b] = await Promise.all([start(), start()])
  })
  after(async () => {
    for (const server of servers) server.child.kill('SIGTERM')
    await Promise.all(servers.map((s) => s.exited))
    await database.close()
  })

  /** A fresh tenant whose admin has an application and a token from node A. */
  async function client() {
    const { tenantId, adminId } = await tenantWithAdmin(database.db, `live${randomBytes(4).toString('hex')}`)
    const creds = await insertWithCredentials(database.db, serverKeys(loadConfig(env(database.url!))).pepper, {
      tenantId,
      userId: adminId,
    })
    const response = await fetch(`${a}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...creds, audience: TEST_AUDIENCE, grant_type: 'client_credentials' }),
    })
    const token = ((await response.json()) as { access_token: string }).access_token
    const call = async (node: string, method = 'GET', body?: unknown) =>
      (
        await fetch(`${node}/api/v3/vendors/`, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            'x-service-client': 'api',
            ...(body ? { 'content-type': 'application/json' } : {}),
          },
          ...(body ? { body: JSON.stringify(body) } : {}),
        })
      ).status
    // Warm both caches.
    for (let i = 0; i < 5; i++) assert.deepEqual([await call(a), await call(b)], [200, 200])
    return { tenantId, userId: adminId, creds, token, call }
  }

  test('a token revoked on node A is refused at once on A and within a second on B', async () => {
    const { creds, token, call } = await client()
    const revoked = await fetch(`${a}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...creds, token }),
    })
    assert.equal(revoked.status, 200)
    assert.equal(await call(a), 401)
    await within(1000, 'revocation on B', async () => (await call(b)) === 401)
  })

  test('an application revoked, an owner deactivated, a role changed or a tenant switched off by hand: both nodes refuse within a second', async () => {
    const changes: [string, (c: Awaited<ReturnType<typeof client>>) => Promise<unknown>, number, string?][] = [
      [
        'application revoked',
        (c) =>
          sql`update applications set revoked_at = now() where client_id = ${c.creds.client_id}`.execute(database.db),
        401,
      ],
      [
        'secret rotated',
        (c) =>
          sql`update applications set secret_version = secret_version + 1 where client_id = ${c.creds.client_id}`.execute(
            database.db,
          ),
        401,
      ],
      [
        'owner deactivated',
        (c) => sql`update users set is_active = false where id = ${c.userId}`.execute(database.db),
        401,
      ],
      [
        'tenant switched off',
        (c) => sql`update tenants set active = false where id = ${c.tenantId}`.execute(database.db),
        401,
      ],
      [
        'permissions taken',
        (c) => sql`delete from role_permissions where tenant_id = ${c.tenantId}`.execute(database.db),
        403,
        'POST',
      ],
    ]
    for (const [what, change, status, method] of changes) {
      const c = await client()
      await change(c)
      for (const node of [a, b]) {
        const took = await within(
          1000,
          `${what} on ${node}`,
          async () => (await c.call(node, method ?? 'GET', method ? { name: 'x' } : undefined)) === status,
        )
        assert.ok(took <= 1000)
      }
    }
  })

  test('while the listening connections are lost, nothing stale is served; afterwards the cache serves again', async () => {
    const c = await client()
    const listeners = sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
      where application_name = 'procurement-listen' and datname = current_database()`
    assert.equal((await listeners.execute(database.db)).rows[0]!.n, 2)
    // Cut both listeners and revoke in the same breath: the change can only be learnt from the database.
    await sql`select pg_terminate_backend(pid) from pg_stat_activity
      where application_name = 'procurement-listen' and datname = current_database()`.execute(database.db)
    await sql`update applications set revoked_at = now() where client_id = ${c.creds.client_id}`.execute(database.db)
    // A lost connection is noticed when it closes (or, if it dies silently, by the next heartbeat).
    await within(1500, 'refused on A', async () => (await c.call(a)) === 401)
    await within(1500, 'refused on B', async () => (await c.call(b)) === 401)
    // Both reconnect, and a fresh client is served and then refused after a change, as before.
    await within(5000, 'listeners back', async () => (await listeners.execute(database.db)).rows[0]!.n === 2)
    const d = await client()
    await sql`update users set is_active = false where id = ${d.userId}`.execute(database.db)
    await within(1000, 'after reconnect, on A', async () => (await d.call(a)) === 401)
    await within(1000, 'after reconnect, on B', async () => (await d.call(b)) === 401)
  })
})
