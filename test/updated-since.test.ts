/**
 * `updated_since` on the vendor, location and user lists: only items changed at or after the instant, so an
 * integration can sync what changed; a value that is not an ISO 8601 date-time is a 400 naming the parameter.
 */
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { test } from 'node:test'
import { signedIn, useTestApp } from './helpers/app.ts'

const ctx = useTestApp()

const ids = (body: string) => (JSON.parse(body) as { data: { id: number }[] }).data.map((item) => item.id)

test('vendors, locations and users changed since an instant are listed; the rest are not', async () => {
  const { api } = await signedIn(ctx)
  const list = async (path: string, since: string) => {
    const response = await api({
      method: 'GET',
      url: `${path}?page_size=100&updated_since=${encodeURIComponent(since)}`,
    })
    assert.equal(response.statusCode, 200, response.body)
    return ids(response.body)
  }
  const before = (await api({ method: 'GET', url: '/api/v3/vendors/?page_size=100' })).json<{
    data: { id: number }[]
  }>()
  assert.ok(before.data.length >= 2, 'the sample tenant has vendors')
  const [changed, unchanged] = before.data
  await sleep(20)
  const since = new Date().toISOString()
  await sleep(20)
  const patched = await api({ method: 'PATCH', url: `/api/v3/vendors/${changed!.id}/`, payload: { city: 'Leeds' } })
  assert.equal(patched.statusCode, 200, patched.body)
  const created = await api({ method: 'POST', url: '/api/v3/vendors/', payload: { name: 'Fresh vendor' } })
  assert.equal(created.statusCode, 201, created.body)
  const vendors = await list('/api/v3/vendors/', since)
  assert.deepEqual(vendors, [changed!.id, created.json<{ data: { id: number } }>().data.id])
  assert.ok(!vendors.includes(unchanged!.id))
  assert.ok((await list('/api/v3/vendors/', '2000-01-01T00:00:00Z')).length >= before.data.length)

  // Nothing of the sample tenant's locations changed after `since`; one user was deactivated.
  assert.deepEqual(await list('/api/v2/locations/', since), [])
  const users = (await api({ method: 'GET', url: '/api/v3/users/?page_size=100' })).json<{ data: { id: number }[] }>()
  const leaver = users.data.at(-1)!.id
  assert.equal((await api({ method: 'DELETE', url: `/api/v3/users/${leaver}/` })).statusCode, 204)
  assert.deepEqual(await list('/api/v3/users/', since), [leaver])
})

test('updated_since that is not an ISO 8601 date-time is a 400 naming the parameter', async () => {
  const { api } = await signedIn(ctx)
  for (const bad of ['yesterday', '2026-13-01T00:00:00Z', '1e9', '__proto__']) {
    const response = await api({ method: 'GET', url: `/api/v3/vendors/?updated_since=${encodeURIComponent(bad)}` })
    assert.equal(response.statusCode, 400, `${bad}: ${response.body}`)
    assert.match(response.body, /updated_since/)
  }
})

test('search on a list that has nothing to search in (applications) matches nothing, never a 500', async () => {
  const { api } = await signedIn(ctx)
  const response = await api({ method: 'GET', url: '/api/v3/applications/?search=-1' })
  assert.equal(response.statusCode, 200, response.body)
  assert.equal(response.json<{ metadata: { pagination: { count: number } } }>().metadata.pagination.count, 0)
})
