/**
 * PostgreSQL unreachable mid-run: a TCP proxy between the service and the database is cut (open connections
 * dropped, new ones black-holed). Requests get 503 problems within the configured timeout, nothing hangs
 * or crashes; once the proxy forwards again, requests succeed without restarting the service.
 */
import assert from 'node:assert/strict'
import net from 'node:net'
import { Writable } from 'node:stream'
import { after, before, test } from 'node:test'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { openPostgres } from '../src/db/database.ts'
import { clientFor, sampleTenant, testKeys, TEST_AUDIENCE, type TestContext } from './helpers/app.ts'
import { engineUnderTest, testDatabase, type TestDatabase } from './helpers/db.ts'

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
  listen = () => new Promise<number>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve((this.server.address() as net.AddressInfo).port)))
  cut() {
    this.forwarding = false
    for (const socket of this.sockets) socket.destroy()
  }
  restore() {
    this.forwarding = true
  }
  close = () => new Promise<void>((resolve) => {
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
  const config = loadConfig({ API_AUDIENCE: TEST_AUDIENCE, LOG_LEVEL: 'silent', DATABASE_TIMEOUT_MS: String(TIMEOUT_MS) })
  const keys = testKeys()
  const app = await buildApp({ config, database, keys, logStream: new Writable({ write: (_c, _e, done) => done() }), checkResponses: true })
  ctx = { app, database, config, keys, logs: [], close: async () => { await app.close(); await database.close() } }
})
after(async () => {
  if (engineUnderTest !== 'postgres') return
  await ctx.close()
  await proxy.close()
  await direct.close()
})

/** Fails the test if the request has not answered by the deadline (a hang), instead of waiting forever. */
async function answered<T>(promise: Promise<T>, deadlineMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${deadlineMs} ms`)), deadlineMs)))
  try {
    return await Promise.race([promise, deadline])
  } finally {
    clearTimeout(timer)
  }
}

test('database cut: 503 within the timeout, no crash; restored: back to normal without a restart', { skip: engineUnderTest !== 'postgres' && 'PostgreSQL-only' }, async () => {
  const tenant = await sampleTenant(ctx)
  const creds = await clientFor(ctx, tenant)
  const token = (await ctx.app.inject({ method: 'POST', url: '/oauth/token', payload: { ...creds, audience: TEST_AUDIENCE, grant_type: 'client_credentials' } })).json().access_token as string
  const vendors = () => ctx.app.inject({ url: '/api/v3/vendors/', headers: { authorization: `Bearer ${token}`, 'x-service-client': 'api' } })
  assert.equal((await vendors()).statusCode, 200)

  proxy.cut()
  for (const call of [vendors, () => ctx.app.inject('/readyz'), vendors]) {
    const response = await answered(call(), TIMEOUT_MS * 3 + 2000)
    assert.equal(response.statusCode, 503, response.body)
    assert.match(String(response.headers['content-type']), /problem\+json/)
    assert.ok(response.headers['retry-after'])
    assert.doesNotMatch(response.body, /ECONN|timeout exceeded|pg|SELECT/i, 'no internals')
  }
  const tokenDuringOutage = await answered(ctx.app.inject({ method: 'POST', url: '/oauth/token', payload: { ...creds, audience: TEST_AUDIENCE, grant_type: 'client_credentials' } }), TIMEOUT_MS * 3 + 2000)
  assert.equal(tokenDuringOutage.statusCode, 503)
  assert.equal(tokenDuringOutage.json().error, 'temporarily_unavailable')

  proxy.restore()
  assert.equal((await ctx.app.inject('/readyz')).statusCode, 200)
  assert.equal((await vendors()).statusCode, 200)
})
