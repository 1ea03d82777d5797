/**
 * Exactly once across crashes: the real server on PostgreSQL is killed with SIGKILL at 20 different instants
 * while idempotent POSTs (vendor creates and user batches) are in flight; after each restart every key is
 * retried with its body. Every key must end with exactly one write and a 201 — the replayed response when
 * the write had committed — never a 409 or 400, never a second row.
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

const skip =
  engineUnderTest !== 'postgres' &&
  'PostgreSQL-only (the embedded database is one process with its own crash test in serve.test.ts)'
const KILLS = 20
const env = (url: string) => ({
  DATABASE_URL: url,
  TOKEN_SIGNING_KEY: 'crash-test-signing-key-'.padEnd(40, 'k'),
  SECRET_PEPPER: 'crash-test-pepper-'.padEnd(40, 'p'),
  API_AUDIENCE: TEST_AUDIENCE,
  DEMO_SEED: 'false',
  PORT: '0',
  RATE_LIMIT_PER_MINUTE: '0',
})

let database: TestDatabase
let server: Running | undefined
before(async () => {
  if (skip) return
  database = await testDatabase()
})
after(async () => {
  if (skip) return
  server?.child.kill('SIGKILL')
  await database.close()
})

interface Attempt {
  key: string
  path: string
  body: unknown
  /** What identifies the rows this request writes. */
  names: string[]
  kind: 'vendor' | 'users'
}

async function start(url: string): Promise<string> {
  server = run(['serve'], env(url))
  return (await server.waitFor(/listening on (http:\/\/\S+)/, 60_000))[1]!
}

test(
  `SIGKILL at ${KILLS} instants of idempotent POSTs: every key ends with exactly one write and its response`,
  { skip, timeout: 600_000 },
  async () => {
    const url = database.url!
    const { tenantId, adminId } = await tenantWithAdmin(database.db, `crash${randomBytes(3).toString('hex')}`)
    const keys = serverKeys(loadConfig(env(url)))
    const creds = await insertWithCredentials(database.db, keys.pepper, { tenantId, userId: adminId })

    let base = await start(url)
    const token = async () => {
      const response = await fetch(`${base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...creds, audience: TEST_AUDIENCE, grant_type: 'client_credentials' }),
      })
      return ((await response.json()) as { access_token: string }).access_token
    }
    const accessToken = await token()
    const post = (a: Attempt) =>
      fetch(`${base}${a.path}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${accessToken}`,
          'x-service-client': 'api',
          'content-type': 'application/json',
          'idempotency-key': a.key,
        },
        body: JSON.stringify(a.body),
      })

    const attempts: Attempt[] = []
    let n = 0
    const next = (): Attempt => {
      const id = `${++n}-${randomBytes(4).toString('hex')}`
      const key = `crash-${id}`
      if (n % 3 === 0) {
        const emails = [0, 1, 2].map((i) => `crash-${id}-${i}@example.org`)
        return { key, path: '/api/v3/users/', body: emails.map((email) => ({ email })), names: emails, kind: 'users' }
      }
      return { key, path: '/api/v3/vendors/', body: { name: `Crash ${id}` }, names: [`Crash ${id}`], kind: 'vendor' }
    }

    for (let kill = 0; kill < KILLS; kill++) {
      // Four streams of requests keep writes at every stage when the kill lands, at a different moment each round.
      let stopped = false
      const stream = async () => {
        while (!stopped) {
          const attempt = next()
          attempts.push(attempt)
          try {
            await post(attempt)
          } catch {
            return // the server died mid-request
          }
        }
      }
      const streams = Array.from({ length: 4 }, stream)
      await new Promise((resolve) => setTimeout(resolve, 30 + kill * 23))
      server!.child.kill('SIGKILL')
      await server!.exited
      stopped = true
      await Promise.all(streams)
      base = await start(url)
    }

    // Every key, retried with its body after the crashes: 201, and the same response when replayed.
    for (const attempt of attempts) {
      const retried = await post(attempt)
      assert.equal(retried.status, 201, `${attempt.key}: ${retried.status} ${await retried.clone().text()}`)
      const again = await post(attempt)
      assert.equal(again.status, 201)
      assert.equal(again.headers.get('idempotent-replayed'), 'true')
      assert.equal(await again.text(), await retried.text(), `${attempt.key}: the replay is the first response`)
    }
    const vendorNames = attempts.filter((a) => a.kind === 'vendor').flatMap((a) => a.names)
    const emails = attempts.filter((a) => a.kind === 'users').flatMap((a) => a.names)
    const vendors = await database.db
      .selectFrom('vendors')
      .select('name')
      .where('tenant_id', '=', tenantId)
      .where('name', 'in', vendorNames)
      .execute()
    const users = await database.db
      .selectFrom('users')
      .select('email')
      .where('tenant_id', '=', tenantId)
      .where('email', 'in', emails)
      .execute()
    assert.equal(vendors.length, vendorNames.length, 'one vendor per key, never two')
    assert.equal(new Set(vendors.map((v) => v.name)).size, vendorNames.length)
    assert.equal(users.length, emails.length, 'each batch written once, whole')
    assert.ok(attempts.length >= KILLS * 4, `requests were in flight at every kill (${attempts.length})`)
    server!.child.kill('SIGTERM')
    await server!.exited
  },
)
