/**
 * Webhooks across processes, on PostgreSQL with the real server: SIGKILL while deliveries are due loses none
 * (after a restart every event arrives; duplicates allowed), and two servers on one database never both
 * send the same attempt.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, test } from 'node:test'
import { insertWithCredentials } from '../src/applications/service.ts'
import { loadConfig } from '../src/config.ts'
import { serverKeys } from '../src/keys.ts'
import { tenantWithAdmin, TEST_AUDIENCE } from './helpers/app.ts'
import { engineUnderTest, testDatabase, type TestDatabase } from './helpers/db.ts'
import { run, type Running } from './helpers/process.ts'
import { startReceiver } from './helpers/receiver.ts'

const skip = engineUnderTest !== 'postgres' && 'PostgreSQL-only (several server processes on one database)'
const env = (url: string) => ({
  DATABASE_URL: url,
  TOKEN_SIGNING_KEY: 'webhook-test-signing-key-'.padEnd(40, 'k'),
  SECRET_PEPPER: 'webhook-test-pepper-'.padEnd(40, 'p'),
  API_AUDIENCE: TEST_AUDIENCE,
  DEMO_SEED: 'false',
  PORT: '0',
  RATE_LIMIT_PER_MINUTE: '0',
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_RETRY_SCHEDULE: '200ms,200ms,200ms,200ms,200ms,200ms,200ms,200ms',
  WEBHOOK_TIMEOUT: '1s',
})

let database: TestDatabase
const servers: Running[] = []
before(async () => {
  if (skip) return
  database = await testDatabase()
})
after(async () => {
  if (skip) return
  for (const s of servers) s.child.kill('SIGKILL')
  await database.close()
})

async function start(extra: Record<string, string> = {}): Promise<string> {
  const server = run(['serve'], { ...env(database.url!), ...extra })
  servers.push(server)
  return (await server.waitFor(/listening on (http:\/\/\S+)/, 60_000))[1]!
}

let tenant: Promise<{ tenantId: number; adminId: number }> | undefined

/** An application of the file's one tenant (single-tenant mode), and a caller for `base`. */
async function client() {
  tenant ??= tenantWithAdmin(database.db, `wh${randomBytes(3).toString('hex')}`)
  const { tenantId, adminId } = await tenant
  const keys = serverKeys(loadConfig(env(database.url!)))
  const creds = await insertWithCredentials(database.db, keys.pepper, { tenantId, userId: adminId })
  return async (base: string) => {
    const response = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...creds, audience: TEST_AUDIENCE, grant_type: 'client_credentials' }),
    })
    const { access_token } = (await response.json()) as { access_token: string }
    return async (path: string, body: unknown) => {
      const r = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${access_token}`,
          'x-service-client': 'api',
          'content-type': 'application/json',
        },
        body: JSON.stringify(body),
      })
      assert.equal(r.status, 201, await r.clone().text())
      return ((await r.json()) as { data: { id: number } }).data
    }
  }
}

test(
  'SIGKILL while deliveries are due: after a restart every event is delivered',
  { skip, timeout: 120_000 },
  async () => {
    // Slow, and every other first try fails: at the kill, some attempts are in flight and some are waiting.
    const receiver = await startReceiver((n) => ({ status: n % 2 === 0 ? 503 : 200, delayMs: 150 }))
    try {
      const base = await start()
      const post = await (await client())(base)
      await post('/api/v3/webhook-endpoints/', { url: receiver.url })
      const names = Array.from({ length: 30 }, (_, i) => `K${i}`)
      await Promise.all(names.map((name) => post('/api/v3/vendors/', { name })))
      await receiver.waitFor(5)
      servers.pop()!.child.kill('SIGKILL')
      // Delivered: answered 200 (the odd-numbered requests); a 503 is not a delivery.
      const delivered = () =>
        new Set(
          receiver.received.filter((_, n) => n % 2 === 1).map((r) => JSON.parse(r.body).data.object.name as string),
        )
      assert.ok(delivered().size < names.length, 'the kill came before every event was delivered')
      await start()
      // In-flight attempts of the killed process are due again when their lease (2 × 1 s + 12 s) ends.
      const end = Date.now() + 60_000
      while (delivered().size < names.length && Date.now() < end) await new Promise((r) => setTimeout(r, 200))
      assert.deepEqual([...delivered()].sort(), [...names].sort())
    } finally {
      await receiver.close()
    }
  },
)

test(
  'two servers on one database: every attempt is sent by exactly one of them',
  { skip, timeout: 120_000 },
  async () => {
    const receiver = await startReceiver(() => ({ status: 200, delayMs: 20 }))
    try {
      const [a, b] = await Promise.all([start(), start()])
      const connect = await client()
      const [postA, postB] = await Promise.all([connect(a), connect(b)])
      await postA('/api/v3/webhook-endpoints/', { url: receiver.url })
      const writes = Array.from({ length: 100 }, (_, i) =>
        (i % 2 === 0 ? postA : postB)('/api/v3/vendors/', { name: `T${i}` }),
      )
      await Promise.all(writes)
      await receiver.waitFor(100, 60_000)
      await new Promise((r) => setTimeout(r, 1000))
      const ids = receiver.received.map((r) => r.headers['webhook-id'])
      assert.equal(ids.length, 100, 'no attempt was sent twice')
      assert.equal(new Set(ids).size, 100)
    } finally {
      await receiver.close()
    }
  },
)

test(
  'SIGTERM with attempts in flight: they are given back, and the next process sends them at once',
  { skip, timeout: 120_000 },
  async () => {
    let slow = true
    const receiver = await startReceiver(() => ({ status: 200, delayMs: slow ? 30_000 : 0 }))
    try {
      // A long timeout and lease: only a release (not the lease's end) can make them due again soon.
      const base = await start({ WEBHOOK_TIMEOUT: '60s' })
      const post = await (await client())(base)
      await post('/api/v3/webhook-endpoints/', { url: receiver.url })
      for (const name of ['S1', 'S2', 'S3']) await post('/api/v3/vendors/', { name })
      await receiver.waitFor(3)
      const server = servers.pop()!
      const stopped = Date.now()
      server.child.kill('SIGTERM')
      assert.equal(await server.exited, 0)
      assert.ok(Date.now() - stopped < 9000, 'the shutdown did not wait for the receiver')
      slow = false
      await start({ WEBHOOK_TIMEOUT: '60s' })
      // Every one of them arrives again, soon (at least once: a duplicate is allowed, a loss is not).
      const again = () => new Set(receiver.received.slice(3).map((r) => JSON.parse(r.body).data.object.name as string))
      const end = Date.now() + 20_000
      while (again().size < 3 && Date.now() < end) await new Promise((r) => setTimeout(r, 100))
      assert.deepEqual([...again()].sort(), ['S1', 'S2', 'S3'])
    } finally {
      await receiver.close()
    }
  },
)
