/** Idempotency-Key on POST: replay, 422 on another body, 409 while running (docs/api.md, Idempotency). */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { signedIn, testApp, type TestContext } from './helpers/app.ts'

let ctx: TestContext
before(async () => {
  ctx = await testApp()
})
after(() => ctx.close())

const vendorCount = (tenantId: number) =>
  ctx.database.db.selectFrom('vendors').select((eb) => eb.fn.countAll<string>().as('n')).where('tenant_id', '=', tenantId).executeTakeFirstOrThrow().then((r) => Number(r.n))

test('same key and body: one row, the identical response replayed', async () => {
  const { api, tenant } = await signedIn(ctx)
  const before = await vendorCount(tenant.tenantId)
  const post = () => api({ method: 'POST', url: '/api/v3/vendors/', payload: { name: 'Once Only Ltd' }, headers: { 'idempotency-key': 'order-42' } })
  const first = await post()
  assert.equal(first.statusCode, 201)
  const second = await post()
  assert.equal(second.statusCode, 201)
  assert.equal(second.body, first.body)
  assert.equal(second.headers.location, first.headers.location)
  assert.equal(second.headers['idempotent-replayed'], 'true')
  assert.equal(await vendorCount(tenant.tenantId), before + 1)
})

test('same key, another body → 422 and nothing written; a bad key → 400', async () => {
  const { api, tenant } = await signedIn(ctx)
  await api({ method: 'POST', url: '/api/v3/vendors/', payload: { name: 'A' }, headers: { 'idempotency-key': 'k1' } })
  const before = await vendorCount(tenant.tenantId)
  const other = await api({ method: 'POST', url: '/api/v3/vendors/', payload: { name: 'B' }, headers: { 'idempotency-key': 'k1' } })
  assert.equal(other.statusCode, 422)
  assert.match(String(other.headers['content-type']), /problem\+json/)
  assert.equal(await vendorCount(tenant.tenantId), before)
  const bad = await api({ method: 'POST', url: '/api/v3/vendors/', payload: { name: 'C' }, headers: { 'idempotency-key': 'x'.repeat(256) } })
  assert.equal(bad.statusCode, 400)
})

test('while the first request still runs → 409; keys are per application', async () => {
  const { api, tenant, creds } = await signedIn(ctx)
  const app = await ctx.database.db.selectFrom('applications').select('id').where('client_id', '=', creds.client_id).executeTakeFirstOrThrow()
  // What another process sees while it is still handling the first request with this key.
  await ctx.database.db
    .insertInto('idempotency_keys')
    .values({ tenant_id: tenant.tenantId, application_id: app.id, key: 'busy', request_hash: 'x', expires_at: new Date(Date.now() + 60_000) })
    .execute()
  const before = await vendorCount(tenant.tenantId)
  const busy = await api({ method: 'POST', url: '/api/v3/vendors/', payload: { name: 'Busy' }, headers: { 'idempotency-key': 'busy' } })
  assert.equal(busy.statusCode, 409)
  assert.equal(await vendorCount(tenant.tenantId), before)
  const other = await signedIn(ctx, 'buyer', tenant)
  const separate = await other.api({ method: 'POST', url: '/api/v3/vendors/', payload: { name: 'Busy' }, headers: { 'idempotency-key': 'busy' } })
  assert.equal(separate.statusCode, 201, 'another application has its own keys')
})

test('concurrent requests with one key: exactly one write', async () => {
  const { api, tenant } = await signedIn(ctx)
  const before = await vendorCount(tenant.tenantId)
  const responses = await Promise.all(
    Array.from({ length: 5 }, () => api({ method: 'POST', url: '/api/v3/vendors/', payload: { name: 'Racer' }, headers: { 'idempotency-key': 'race' } })),
  )
  for (const r of responses) assert.ok([201, 409].includes(r.statusCode), String(r.statusCode))
  assert.equal(await vendorCount(tenant.tenantId), before + 1)
})

test('responses carrying a secret are never stored: Idempotency-Key is ignored there', async () => {
  const { api, tenant } = await signedIn(ctx)
  const post = () => api({ method: 'POST', url: '/api/v3/applications/', payload: { description: 'twice' }, headers: { 'idempotency-key': 'app-1' } })
  const first = await post()
  const second = await post()
  assert.equal(first.statusCode, 201)
  assert.equal(second.statusCode, 201)
  assert.notEqual(first.json().data.client_id, second.json().data.client_id)
  const stored = await ctx.database.db.selectFrom('idempotency_keys').select('response_body').where('tenant_id', '=', tenant.tenantId).execute()
  assert.ok(stored.every((row) => !String(row.response_body).includes(first.json().data.client_secret)))
  assert.equal(stored.length, 0)
})
