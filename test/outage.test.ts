/**
 * PostgreSQL unreachable mid-run: a TCP proxy between the service and the database is cut (open connections
 * dropped, new ones black-holed). Requests get 503 problems within the configured timeout, nothing hangs
 * or crashes; once the proxy forwards again, requests succeed without restarting the service.
 */
import assert from 'node:assert/strict'
import net from 'node:net'
import { Writable } from 'node:stream'
import { after, before, test } from 'node:test'
import pg from 'pg'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { openPostgres } from '../src/db/database.ts'
import { clientFor, sampleTenant, testApp, testKeys, TEST_AUDIENCE, type TestContext } from './helpers/app.ts'
import { engineUnderTest, testDatabase, type TestDatabase } from './helpers/db.ts'
import { adminUrl } from './helpers/template.ts'

const TIMEOUT_MS = 1000

/** Forwards to PostgreSQL until cut; when cut, drops every connection and leaves new ones hanging. */
class Proxy {
  readonly server: net.Server
  readonly sockets = new Set<net.Socket>()
  forwarding = true

  constructor(target: { host: string; port: number }) {
    this.server = net.createServer((client) => {
      this.sockets.add(client)
      client.on('close', () => this.sockets.delete(client))
      client.on('error', () => client.destroy())
      if (!this.forwarding) return // black hole: accept, never answer
      const upstream = net.connect(target)
      this.sockets.add(upstream)
      upstream.on('close', () => this.sockets.delete(upstream))
      upstream.on('error', () => client.destroy())
      client.pipe(upstream).pipe(client)
    })
  }
  listen = () =>
    new Promise<number>((resolve) =>
      this.server.listen(0, '127.0.0.1', () => resolve((this.server.address() as net.AddressInfo).port)),
    )
  cut() {
    this.forwarding = false
    for (const socket of this.sockets) socket.destroy()
  }
  restore() {
    this.forwarding = true
  }
  close = () =>
    new Promise<void>((resolve) => {
      for (const socket of this.sockets) socket.destroy()
      this.server.close(() => resolve())
    })
}

let direct: TestDatabase
let proxy: Proxy
let ctx: TestContext

before(async () => {
  if (engineUnderTest !== 'postgres') return
  direct = await testDatabase()
  const target = new URL(direct.url!)
  proxy = new Proxy({ host: target.hostname, port: Number(target.port || 5432) })
  const port = await proxy.listen()
  const viaProxy = new URL(direct.url!)
  viaProxy.host = `127.0.0.1:${port}`
  const database = openPostgres({ url: viaProxy.toString(), timeoutMs: TIMEOUT_MS, onError: () => undefined })
  const config = loadConfig({
    API_AUDIENCE: TEST_AUDIENCE,
    LOG_LEVEL: 'silent',
    DATABASE_TIMEOUT_MS: String(TIMEOUT_MS),
  })
  const keys = testKeys()
  const app = await buildApp({
    config,
    database,
    keys,
    logStream: new Writable({ write: (_c, _e, done) => done() }),
    checkResponses: true,
  })
  ctx = {
    app,
    database,
    config,
    keys,
    logs: [],
    close: async () => {
      await app.close()
      await database.close()
    },
  }
})
after(async () => {
  if (engineUnderTest !== 'postgres') return
  await ctx.close()
  await proxy.close()
  await direct.close()
})

/** A sample tenant's application: its token request, and a vendor list with the token it got (asserted 200). */
async function vendorReader() {
  const tenant = await sampleTenant(ctx)
  const creds = await clientFor(ctx, tenant)
  const tokenRequest = () =>
    ctx.app.inject({
      method: 'POST',
      url: '/oauth/token',
      payload: { ...creds, audience: TEST_AUDIENCE, grant_type: 'client_credentials' },
    })
  const token = (await tokenRequest()).json().access_token as string
  const vendors = () =>
    ctx.app.inject({
      url: '/api/v3/vendors/',
      headers: { authorization: `Bearer ${token}`, 'x-service-client': 'api' },
    })
  assert.equal((await vendors()).statusCode, 200)
  return { tokenRequest, vendors }
}

/** Fails the test if the request has not answered by the deadline (a hang), instead of waiting forever. */
async function answered<T>(promise: Promise<T>, deadlineMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${deadlineMs} ms`)), deadlineMs)),
  )
  try {
    return await Promise.race([promise, deadline])
  } finally {
    clearTimeout(timer)
  }
}

test(
  'database cut: 503 within the timeout, no crash; restored: back to normal without a restart',
  { skip: engineUnderTest !== 'postgres' && 'PostgreSQL-only' },
  async () => {
    const { tokenRequest, vendors } = await vendorReader()

    proxy.cut()
    for (const call of [vendors, () => ctx.app.inject('/readyz'), vendors]) {
      const response = await answered(call(), TIMEOUT_MS * 3 + 2000)
      assert.equal(response.statusCode, 503, response.body)
      assert.match(String(response.headers['content-type']), /problem\+json/)
      assert.ok(response.headers['retry-after'])
      assert.doesNotMatch(response.body, /ECONN|timeout exceeded|pg|SELECT/i, 'no internals')
    }
    const tokenDuringOutage = await answered(tokenRequest(), TIMEOUT_MS * 3 + 2000)
    assert.equal(tokenDuringOutage.statusCode, 503)
    assert.equal(tokenDuringOutage.json().error, 'temporarily_unavailable')

    proxy.restore()
    assert.equal((await ctx.app.inject('/readyz')).statusCode, 200)
    assert.equal((await vendors()).statusCode, 200)
  },
)

test(
  'a database that refuses connections (55000) or drops them (57P01): 503 everywhere, then back without a restart',
  { skip: engineUnderTest !== 'postgres' && 'PostgreSQL-only' },
  async () => {
    const { tokenRequest, vendors } = await vendorReader()
    const name = new URL(direct.url!).pathname.slice(1)
    const admin = new pg.Client({ connectionString: adminUrl(direct.url!) })
    await admin.connect()
    try {
      await admin.query(`ALTER DATABASE "${name}" WITH ALLOW_CONNECTIONS false`)
      await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [name],
      )
      for (const call of [vendors, () => ctx.app.inject('/readyz'), vendors]) {
        const response = await answered(call(), TIMEOUT_MS * 3 + 2000)
        assert.equal(response.statusCode, 503, response.body)
        assert.match(String(response.headers['content-type']), /problem\+json/)
        assert.ok(response.headers['retry-after'])
      }
      const refusedToken = await answered(tokenRequest(), TIMEOUT_MS * 3 + 2000)
      assert.equal(refusedToken.statusCode, 503, refusedToken.body)
      assert.equal(refusedToken.json().error, 'temporarily_unavailable')
    } finally {
      await admin.query(`ALTER DATABASE "${name}" WITH ALLOW_CONNECTIONS true`)
      await admin.end()
    }
    assert.equal((await ctx.app.inject('/readyz')).statusCode, 200)
    assert.equal((await vendors()).statusCode, 200)
    assert.equal((await tokenRequest()).statusCode, 200)
  },
)

test(
  'a statement waiting past the statement timeout: 503, and the server has given it up, not only the client',
  { skip: engineUnderTest !== 'postgres' && 'PostgreSQL-only' },
  async () => {
    const { vendors } = await vendorReader()
    const name = new URL(direct.url!).pathname.slice(1)
    const holder = new pg.Client({ connectionString: direct.url! })
    await holder.connect()
    try {
      await holder.query('BEGIN')
      await holder.query('LOCK TABLE vendors IN ACCESS EXCLUSIVE MODE')
      const blocked = await answered(vendors(), TIMEOUT_MS * 8)
      assert.equal(blocked.statusCode, 503, blocked.body)
      assert.ok(blocked.headers['retry-after'])
      // The lock is still held: a statement the server had not given up would still be waiting on it (and
      // the connection, back in the pool, would make the next request queue behind it).
      const { rows } = await holder.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'",
        [name],
      )
      assert.equal(rows[0].n, 0, 'no statement of the service is left waiting on the lock')
    } finally {
      await holder.query('ROLLBACK')
      await holder.end()
    }
    assert.equal((await vendors()).statusCode, 200)
  },
)

test(
  'the embedded database failing under the app: 503 on the API, /readyz and the token endpoint, no crash',
  { skip: engineUnderTest !== 'pglite' && 'embedded-only' },
  async () => {
    const embedded = await testApp()
    try {
      const tenant = await sampleTenant(embedded)
      const creds = await clientFor(embedded, tenant)
      const token = (
        await embedded.app.inject({
          method: 'POST',
          url: '/oauth/token',
          payload: { ...creds, audience: TEST_AUDIENCE, grant_type: 'client_credentials' },
        })
      ).json().access_token as string
      await embedded.database.close()
      const calls = [
        () =>
          embedded.app.inject({
            url: '/api/v3/vendors/',
            headers: { authorization: `Bearer ${token}`, 'x-service-client': 'api' },
          }),
        () => embedded.app.inject('/readyz'),
      ]
      for (const call of calls) {
        const response = await call()
        assert.equal(response.statusCode, 503, response.body)
        assert.match(String(response.headers['content-type']), /problem\+json/)
      }
      const refused = await embedded.app.inject({
        method: 'POST',
        url: '/oauth/token',
        payload: { ...creds, audience: TEST_AUDIENCE, grant_type: 'client_credentials' },
      })
      assert.equal(refused.statusCode, 503, refused.body)
      assert.equal(refused.json().error, 'temporarily_unavailable')
    } finally {
      await embedded.app.close()
    }
  },
)
