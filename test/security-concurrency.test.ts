/**
 * Concurrent identical writes never 500 (issue 30; DECISIONS, "Authority is read fresh"): one wins, the
 * others get 409 or the winner's result. Each case fires the same request 30 times at the same instant at a
 * listening server (real HTTP, many connections), which on PostgreSQL runs them on many sessions at once.
 */
import assert from 'node:assert/strict'
import { beforeEach, describe, test } from 'node:test'
import { signedIn, useTestApp } from './helpers/app.ts'
import { engineUnderTest } from './helpers/db.ts'

const ctx = useTestApp({ LOG_LEVEL: 'warn' })
const N = 30

let base = ''
let token = ''
let admin: Awaited<ReturnType<typeof signedIn>>['api']
let ready = false
// The server listens until the file's app closes (useTestApp).
beforeEach(async () => {
  if (ready) return
  ready = true
  const signed = await signedIn(ctx)
  token = signed.token
  admin = signed.api
  base = await ctx.app.listen({ port: 0, host: '127.0.0.1' })
})

/** Fires `N` copies of one request at once; returns the statuses and bodies. */
async function burst(method: string, path: string, body: unknown) {
  const send = () =>
    fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'x-service-client': 'api', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: await r.text() }))
  const results = await Promise.all(Array.from({ length: N }, send))
  const serverErrors = results.filter((r) => r.status >= 500)
  assert.equal(serverErrors.length, 0, `0 × 5xx on ${engineUnderTest}: ${JSON.stringify(serverErrors.slice(0, 2))}`)
  return results
}

const profileOf = async (email: string) => {
  const created = await admin({ method: 'POST', url: '/api/v3/users/', payload: [{ email }] })
  assert.equal(created.statusCode, 201, created.body)
  return created.json().data[0].id as number
}

describe('identical writes at the same instant', () => {
  test('PUT …/delegation/: every answer is the winner’s result', async () => {
    const away = await profileOf('away@race.test')
    const covering = await profileOf('covering@race.test')
    const results = await burst('PUT', `/api/v3/users/${away}/delegation/`, { delegatee: covering })
    for (const r of results) {
      assert.ok(r.status === 200 || r.status === 409, `${r.status} ${r.body}`)
      if (r.status === 200) assert.equal(JSON.parse(r.body).data.delegatee.id, covering)
    }
    const active = await ctx.database.db
      .selectFrom('delegations')
      .select('delegatee_id')
      .where('active', '=', true)
      .where('user_id', '=', (await admin({ url: `/api/v3/users/${away}/` })).json().data.user)
      .execute()
    assert.equal(active.length, 1, 'exactly one delegation in force')
  })

  test('POST /api/v3/roles/ with one name: one 201, the others 409 (or 400, name taken)', async () => {
    const results = await burst('POST', '/api/v3/roles/', { name: 'Racing role', permissions: ['nav_request'] })
    assert.equal(results.filter((r) => r.status === 201).length, 1, JSON.stringify(results.map((r) => r.status)))
    for (const r of results) assert.ok([201, 400, 409].includes(r.status), `${r.status} ${r.body}`)
    const roles = (await admin({ url: '/api/v3/roles/?page_size=100' })).json().data as { name: string }[]
    assert.equal(roles.filter((r) => r.name === 'Racing role').length, 1)
  })

  test('PUT …/location-roles/: every answer is the same complete set', async () => {
    const target = await profileOf('granted@race.test')
    const locations = (await admin({ url: '/api/v3/locations/' })).json().data as { id: number }[]
    const roles = (await admin({ url: '/api/v3/roles/?page_size=100' })).json().data as { id: number; name: string }[]
    const body = [{ location: locations[0]!.id, role: roles.find((r) => r.name === 'Approver')!.id }]
    const results = await burst('PUT', `/api/v3/users/${target}/location-roles/`, body)
    for (const r of results) {
      assert.ok(r.status === 200 || r.status === 409, `${r.status} ${r.body}`)
      if (r.status === 200) assert.deepEqual(JSON.parse(r.body).data, body)
    }
    const held = await admin({ url: `/api/v3/users/${target}/location-roles/` })
    assert.deepEqual(held.json().data, body)
  })
})
