/**
 * The real app, in-process, on this file's own database, with every log line captured so tests can
 * assert on what was (and was not) logged.
 */
import { randomBytes } from 'node:crypto'
import type { FastifyInstance, InjectOptions } from 'fastify'
import type { Kysely } from 'kysely'
import type { DB } from '../../src/db/schema.ts'
import { Writable } from 'node:stream'
import { after, before } from 'node:test'
import { buildApp } from '../../src/app.ts'
import { loadConfig, type Config } from '../../src/config.ts'
import type { ServerKeys } from '../../src/keys.ts'
import { insertWithCredentials } from '../../src/applications/service.ts'
import { createSampleTenant, type SampleOptions } from '../../src/seed/demo.ts'
import { testDatabase, type TestDatabase } from './db.ts'

export const TEST_AUDIENCE = 'procurement-api-test'

export interface TestContext {
  app: FastifyInstance
  database: TestDatabase
  config: Readonly<Config>
  keys: ServerKeys
  /** Every log line written so far, as text. */
  logs: string[]
  close(): Promise<void>
}

export const testKeys = (): ServerKeys => ({ signingKey: randomBytes(32), pepper: randomBytes(32) })

export async function testApp(env: Record<string, string> = {}): Promise<TestContext> {
  const database = await testDatabase()
  const config = loadConfig({ API_AUDIENCE: TEST_AUDIENCE, LOG_LEVEL: 'info', DEMO_SEED: 'false', ...env })
  const keys = testKeys()
  const logs: string[] = []
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(chunk.toString())
      done()
    },
  })
  const app = await buildApp({ config, database, keys, logStream, checkResponses: true })
  await app.ready()
  // The console, which a server builds after it listens (http/mount.ts), at once: its routes are then in
  // app.routeTable for the tests that go through every route.
  await app.prepareMounts()
  return {
    app,
    database,
    config,
    keys,
    logs,
    async close() {
      await app.close()
      await database.close()
    },
  }
}

/** The real app for this test file: built before its tests run, closed after them. */
export function useTestApp(env: Record<string, string> = {}): TestContext {
  const ctx = {} as TestContext
  before(async () => {
    Object.assign(ctx, await testApp(env))
  })
  after(() => ctx.close())
  return ctx
}

export interface SampleTenant {
  tenantId: number
  domain: string
  /** user ids by e-mail: admin@, buyer@, requester@ and manager@example.com */
  users: Record<'admin' | 'buyer' | 'requester' | 'manager', number>
}

/**
 * What a test's sample tenant holds: the demo's people, places, vendors and rules; its requests, orders and bills
 * only when the test asks (`{ documents: true }`), since seeding them is most of a tenant's cost.
 */
const testSample = (options: SampleOptions): SampleOptions => ({ documents: false, ...options })

/** A sample tenant made directly in `db` (no app needed), with the id of its admin@example.com. */
export async function tenantWithAdmin(
  db: Kysely<DB>,
  domain: string,
  options: SampleOptions = {},
): Promise<{ tenantId: number; adminId: number }> {
  const tenantId = await db
    .transaction()
    .execute((tx) => createSampleTenant(tx, domain, `Tenant ${domain}`, testSample(options)))
  const admin = await db
    .selectFrom('users')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('email', '=', 'admin@example.com')
    .executeTakeFirstOrThrow()
  return { tenantId, adminId: admin.id }
}

let counter = 0
/** A tenant with the full sample data set under a fresh domain. */
export async function sampleTenant(
  ctx: TestContext,
  domain = `t${process.pid}x${++counter}`,
  options: SampleOptions = {},
): Promise<SampleTenant> {
  const tenantId = await ctx.database.db
    .transaction()
    .execute((tx) => createSampleTenant(tx, domain, `Tenant ${domain}`, testSample(options)))
  const users = await ctx.database.db
    .selectFrom('users')
    .select(['id', 'email'])
    .where('tenant_id', '=', tenantId)
    .execute()
  const id = (name: string) => users.find((u) => u.email === `${name}@example.com`)!.id
  return {
    tenantId,
    domain,
    users: { admin: id('admin'), buyer: id('buyer'), requester: id('requester'), manager: id('manager') },
  }
}

export async function clientFor(ctx: TestContext, tenant: SampleTenant, who: keyof SampleTenant['users'] = 'admin') {
  const app = await insertWithCredentials(ctx.database.db, ctx.keys.pepper, {
    tenantId: tenant.tenantId,
    userId: tenant.users[who],
  })
  return { client_id: app.client_id, client_secret: app.client_secret }
}

export async function tokenFor(ctx: TestContext, creds: { client_id: string; client_secret: string }): Promise<string> {
  const response = await ctx.app.inject({
    method: 'POST',
    url: '/oauth/token',
    payload: { ...creds, audience: TEST_AUDIENCE, grant_type: 'client_credentials' },
  })
  if (response.statusCode !== 200) throw new Error(`token request failed: ${response.statusCode} ${response.body}`)
  return response.json<{ access_token: string }>().access_token
}

/** A tenant, an application for one of its users, and a token: ready to call the API as that user. */
export async function signedIn(ctx: TestContext, who: keyof SampleTenant['users'] = 'admin', tenant?: SampleTenant) {
  const t = tenant ?? (await sampleTenant(ctx))
  const creds = await clientFor(ctx, t, who)
  const token = await tokenFor(ctx, creds)
  const api = (options: InjectOptions & { url: string }) =>
    ctx.app.inject({
      ...options,
      headers: { authorization: `Bearer ${token}`, 'x-service-client': 'api', ...(options.headers ?? {}) },
    })
  return { tenant: t, creds, token, api }
}
