/** Idempotency-Key on POST: replay, 422 on another body, 409 while running (docs/api.md, Idempotency). */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { signedIn, useTestApp } from './helpers/app.ts'
import { engineUnderTest } from './helpers/db.ts'

const ctx = useTestApp()

const vendorCount = (tenantId: number) =>
  ctx.database.db
    .selectFrom('vendors')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('tenant_id', '=', tenantId)
    .executeTakeFirstOrThrow()
    .then((r) => Number(r.n))

test('same key and body: one row, the identical response replayed', async () => {
  const { api, tenant } = await signedIn(ctx)
  const before = await vendorCount(tenant.tenantId)
  const post = () =>
    api({
      method: 'POST',
      url: '/api/v3/vendors/',
      payload: { name: 'Once Only Ltd' },
      headers: { 'idempotency-key': 'order-42' },
    })
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
  const other = await api({
    method: 'POST',
    url: '/api/v3/vendors/',
    payload: { name: 'B' },
    headers: { 'idempotency-key': 'k1' },
  })
  assert.equal(other.statusCode, 422)
  assert.match(String(other.headers['content-type']), /problem\+json/)
  assert.equal(await vendorCount(tenant.tenantId), before)
  const bad = await api({
    method: 'POST',
    url: '/api/v3/vendors/',
    payload: { name: 'C' },
    headers: { 'idempotency-key': 'x'.repeat(256) },
  })
  assert.equal(bad.statusCode, 400)
})

test(
  'while the first request still runs → 409; keys are per application',
  {
    skip:
      engineUnderTest === 'pglite' &&
      'PGlite has one session: a second request waits for the first instead of overlapping it',
  },
  async () => {
    const { api, tenant, creds } = await signedIn(ctx)
    const app = await ctx.database.db
      .selectFrom('applications')
      .select('id')
      .where('client_id', '=', creds.client_id)
      .executeTakeFirstOrThrow()
    const before = await vendorCount(tenant.tenantId)
    // What another process holds while it is still handling the first request with this key.
    await ctx.database.db.transaction().execute(async (tx) => {
      await sql`select pg_advisory_xact_lock(hashtextextended(${`idempotency ${tenant.tenantId} ${app.id} busy`}, 0))`.execute(
        tx,
      )
      const busy = await api({
        method: 'POST',
        url: '/api/v3/vendors/',
        payload: { name: 'Busy' },
        headers: { 'idempotency-key': 'busy' },
      })
      assert.equal(busy.statusCode, 409)
      const other = await signedIn(ctx, 'buyer', tenant)
      const separate = await other.api({
        method: 'POST',
        url: '/api/v3/vendors/',
        payload: { name: 'Busy' },
        headers: { 'idempotency-key': 'busy' },
      })
      assert.equal(separate.statusCode, 201, 'another application has its own keys')
    })
    assert.equal(await vendorCount(tenant.tenantId), before + 1)
    const after = await api({
      method: 'POST',
      url: '/api/v3/vendors/',
      payload: { name: 'Busy' },
      headers: { 'idempotency-key': 'busy' },
    })
    assert.equal(after.statusCode, 201, 'once the first is over, the key runs')
  },
)

test('a request that fails writes nothing and stores nothing: the retry with its key runs again', async () => {
  const { api, tenant } = await signedIn(ctx)
  const before = await vendorCount(tenant.tenantId)
  const bad = await api({
    method: 'POST',
    url: '/api/v3/vendors/',
    payload: { name: 'Ref', currency: 999999 },
    headers: { 'idempotency-key': 'retry-me' },
  })
  assert.equal(bad.statusCode, 400)
  assert.equal(await vendorCount(tenant.tenantId), before)
  const keys = await ctx.database.db
    .selectFrom('idempotency_keys')
    .select('key')
    .where('tenant_id', '=', tenant.tenantId)
    .execute()
  assert.deepEqual(keys, [])
})

test('concurrent requests with one key: exactly one write', async () => {
  const { api, tenant } = await signedIn(ctx)
  const before = await vendorCount(tenant.tenantId)
  const responses = await Promise.all(
    Array.from({ length: 5 }, () =>
      api({
        method: 'POST',
        url: '/api/v3/vendors/',
        payload: { name: 'Racer' },
        headers: { 'idempotency-key': 'race' },
      }),
    ),
  )
  for (const r of responses) assert.ok([201, 409].includes(r.statusCode), String(r.statusCode))
  assert.equal(await vendorCount(tenant.tenantId), before + 1)
})

test('responses carrying a secret are never stored: Idempotency-Key is ignored there', async () => {
  const { api, tenant } = await signedIn(ctx)
  const post = () =>
    api({
      method: 'POST',
      url: '/api/v3/applications/',
      payload: { description: 'twice' },
      headers: { 'idempotency-key': 'app-1' },
    })
  const first = await post()
  const second = await post()
  assert.equal(first.statusCode, 201)
  assert.equal(second.statusCode, 201)
  assert.notEqual(first.json().data.client_id, second.json().data.client_id)
  const stored = await ctx.database.db
    .selectFrom('idempotency_keys')
    .select('response_body')
    .where('tenant_id', '=', tenant.tenantId)
    .execute()
  assert.ok(stored.every((row) => !String(row.response_body).includes(first.json().data.client_secret)))
  assert.equal(stored.length, 0)
})

test('the fingerprint reads the path as the router does: with or without the trailing slash, the query in any order', async () => {
  const { api } = await signedIn(ctx)
  const payload = { name: 'Slash' }
  const key = (k: string) => ({ 'idempotency-key': k })
  const first = await api({ method: 'POST', url: '/api/v3/vendors', payload, headers: key('sl-1') })
  assert.equal(first.statusCode, 201, first.body)
  const again = await api({ method: 'POST', url: '/api/v3/vendors/', payload, headers: key('sl-1') })
  assert.equal(again.statusCode, 201, again.body)
  assert.equal(again.json().data.id, first.json().data.id)
  const a = await api({ method: 'POST', url: '/api/v3/vendors/?a=1&b=2', payload, headers: key('q-1') })
  assert.equal(a.statusCode, 201, a.body)
  const b = await api({ method: 'POST', url: '/api/v3/vendors?b=2&a=1', payload, headers: key('q-1') })
  assert.equal(b.statusCode, 201, b.body)
  assert.equal(b.json().data.id, a.json().data.id)
})
