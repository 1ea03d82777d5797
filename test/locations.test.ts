/** Locations: create, read, full replacement with alternate addresses, permissions, ETags (docs/api.md, Locations). */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { signedIn, useTestApp } from './helpers/app.ts'

const ctx = useTestApp()

const address = (name: string, extra: object = {}) => ({
  name,
  addressLineOne: `${name} street 1`,
  city: 'Springfield',
  postalCode: '12345',
  state_province: 'IL',
  country: 'United States',
  ...extra,
})

const newLocation = (overrides: object = {}) => ({
  name: 'Plant 7',
  currency: 'CAD',
  phoneOne: '+1 555 0100',
  primary_billing_address: address('Billing'),
  primary_shipping_address: address('Receiving'),
  shipping_addresses: [address('Dock A'), address('Dock B')],
  locationTimezone: 'America/Toronto',
  external_id: 'P7',
  ...overrides,
})

type Api = Awaited<ReturnType<typeof signedIn>>['api']

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a response body, asserted on field by field
async function create(api: Api, body: object = newLocation()): Promise<any> {
  const response = await api({ method: 'POST', url: '/api/v2/locations/', payload: body })
  assert.equal(response.statusCode, 201, response.body)
  return response.json().data
}

const addressRows = (locationId: number) =>
  ctx.database.db
    .selectFrom('addresses')
    .selectAll()
    .where('location_id', '=', locationId)
    .where('kind', '=', 'alternate')
    .orderBy('id')
    .execute()

describe('create and read', () => {
  test('201 with the full response form; GET by id on both v2 and v3 paths; ETag', async () => {
    const { api, tenant } = await signedIn(ctx)
    const created = await api({ method: 'POST', url: '/api/v2/locations/', payload: newLocation() })
    assert.equal(created.statusCode, 201)
    assert.ok(created.headers.etag)
    const body = created.json()
    assert.deepEqual(body.metadata, {})
    const loc = body.data
    assert.equal(loc.name, 'Plant 7')
    assert.equal(loc.currency.name, 'CAD')
    assert.deepEqual(Object.keys(loc.currency).sort(), ['active', 'base', 'description', 'id', 'name', 'rate'])
    assert.equal(loc.headquarter, false, 'the sample tenant already has its first location')
    assert.equal(loc.department_count, 0)
    assert.equal(loc.active, true)
    assert.equal(loc.language, 1)
    assert.equal(loc.fax, '')
    assert.equal(loc.legal_entity, null)
    assert.deepEqual(
      loc.shipping_addresses.map((a: { name: string }) => a.name),
      ['Dock A', 'Dock B'],
    )
    assert.ok(Number.isInteger(loc.primary_billing_address.id))
    for (const v of ['v2', 'v3']) {
      const got = await api({ method: 'GET', url: `/api/${v}/locations/${loc.id}` })
      assert.equal(got.statusCode, 200)
      assert.deepEqual(got.json().data, loc)
      assert.equal(got.headers.etag, created.headers.etag)
    }
    const hq = await api({ method: 'GET', url: '/api/v2/locations/?headquarter=true' })
    assert.equal(hq.json().metadata.pagination.count, 1)
    assert.equal(hq.json().data[0].headquarter, true)
    assert.equal(hq.json().data[0].department_count, 3)
    void tenant
  })

  test('legal entity by id; currency and legal entity must exist in the tenant', async () => {
    const { api, tenant } = await signedIn(ctx)
    const other = await signedIn(ctx)
    const le = await ctx.database.db
      .selectFrom('legal_entities')
      .select(['id', 'uuid'])
      .where('tenant_id', '=', tenant.tenantId)
      .executeTakeFirstOrThrow()
    const foreignLe = await ctx.database.db
      .selectFrom('legal_entities')
      .select('id')
      .where('tenant_id', '=', other.tenant.tenantId)
      .executeTakeFirstOrThrow()
    const loc = await create(api, newLocation({ legal_entity: le.id }))
    assert.deepEqual(loc.legal_entity, { id: le.id, uuid: le.uuid, name: 'Demo Company Inc.' })
    const before = await api({ method: 'GET', url: '/api/v2/locations/' })
    const bad = await api({
      method: 'POST',
      url: '/api/v2/locations/',
      payload: newLocation({ currency: 'XYZ', legal_entity: foreignLe.id, locationTimezone: 'Mars/Olympus' }),
    })
    assert.equal(bad.statusCode, 400)
    assert.deepEqual(Object.keys(bad.json().errors).sort(), ['currency', 'legal_entity', 'locationTimezone'])
    const afterwards = await api({ method: 'GET', url: '/api/v2/locations/' })
    assert.equal(
      afterwards.json().metadata.pagination.count,
      before.json().metadata.pagination.count,
      'nothing written',
    )
  })

  test('validation: required fields, nested paths, unknown fields named, lengths', async () => {
    const { api } = await signedIn(ctx)
    const missing = await api({ method: 'POST', url: '/api/v2/locations/', payload: { name: 'X' } })
    assert.equal(missing.statusCode, 400)
    assert.match(String(missing.headers['content-type']), /problem\+json/)
    for (const field of ['currency', 'phoneOne', 'primary_billing_address', 'primary_shipping_address']) {
      assert.deepEqual(missing.json().errors[field], ['is required'], field)
    }
    const nested = await api({
      method: 'POST',
      url: '/api/v2/locations/',
      payload: newLocation({ primary_billing_address: { ...address('B'), city: undefined } }),
    })
    assert.deepEqual(nested.json().errors['primary_billing_address.city'], ['is required'])
    const unknown = await api({ method: 'POST', url: '/api/v2/locations/', payload: newLocation({ colour: 'blue' }) })
    assert.deepEqual(unknown.json().errors, { colour: ['is not a known field'] })
    const long = await api({
      method: 'POST',
      url: '/api/v2/locations/',
      payload: newLocation({ name: 'x'.repeat(151) }),
    })
    assert.equal(long.statusCode, 400)
    assert.ok(long.json().errors.name)
    const wrongType = await api({ method: 'POST', url: '/api/v2/locations/', payload: newLocation({ active: 'yes' }) })
    assert.equal(wrongType.statusCode, 400)
    const hugeId = await api({
      method: 'POST',
      url: '/api/v2/locations/',
      payload: newLocation({ legal_entity: 2147483648, shipping_addresses: [address('X', { id: 9999999999 })] }),
    })
    assert.equal(hugeId.statusCode, 400)
    assert.ok(hugeId.json().errors.legal_entity && hugeId.json().errors['shipping_addresses.0.id'])
  })

  test('another tenant’s location is 404; a non-numeric id is 400', async () => {
    const a = await signedIn(ctx)
    const b = await signedIn(ctx)
    const loc = await create(a.api)
    assert.equal((await b.api({ method: 'GET', url: `/api/v2/locations/${loc.id}/` })).statusCode, 404)
    assert.equal(
      (await b.api({ method: 'PUT', url: `/api/v2/locations/${loc.id}/`, payload: newLocation() })).statusCode,
      404,
    )
    assert.equal((await a.api({ method: 'GET', url: '/api/v2/locations/abc/' })).statusCode, 400)
    assert.equal((await a.api({ method: 'GET', url: '/api/v2/locations/999999/' })).statusCode, 404)
  })
})

describe('permissions: only superusers create or replace locations', () => {
  test('Requester and Buyer: create and replace are 403 with nothing written; reads work', async () => {
    const admin = await signedIn(ctx)
    const loc = await create(admin.api)
    for (const who of ['requester', 'buyer'] as const) {
      const user = await signedIn(ctx, who, admin.tenant)
      const before = (await user.api({ method: 'GET', url: `/api/v2/locations/${loc.id}/` })).json().data
      const post = await user.api({
        method: 'POST',
        url: '/api/v2/locations/',
        payload: newLocation({ name: 'Sneaky' }),
      })
      assert.equal(post.statusCode, 403, who)
      const put = await user.api({
        method: 'PUT',
        url: `/api/v2/locations/${loc.id}/`,
        payload: newLocation({ name: 'Renamed', shipping_addresses: [] }),
      })
      assert.equal(put.statusCode, 403, who)
      const list = await user.api({ method: 'GET', url: '/api/v3/locations/?search=sneaky' })
      assert.equal(list.statusCode, 200)
      assert.equal(list.json().metadata.pagination.count, 0)
      assert.deepEqual((await user.api({ method: 'GET', url: `/api/v2/locations/${loc.id}/` })).json().data, before)
    }
  })
})

describe('full replacement: omitted fields reset, omitted alternate addresses deactivated', () => {
  test('omitted fields take their defaults; [] deactivates every alternate, deleting none', async () => {
    const { api } = await signedIn(ctx)
    const loc = await create(api, newLocation({ fax: '555', external_id: 'E1' }))
    const put = await api({
      method: 'PUT',
      url: `/api/v2/locations/${loc.id}/`,
      payload: {
        name: 'Plant 7b',
        currency: 'USD',
        phoneOne: '1',
        primary_billing_address: address('B2'),
        primary_shipping_address: address('S2'),
        shipping_addresses: [],
      },
    })
    assert.equal(put.statusCode, 200, put.body)
    const after = put.json().data
    assert.equal(after.fax, '')
    assert.equal(after.external_id, '')
    assert.equal(after.locationTimezone, '')
    assert.deepEqual(after.shipping_addresses, [])
    assert.equal(after.primary_billing_address.id, loc.primary_billing_address.id, 'primaries are updated in place')
    assert.equal(after.primary_billing_address.name, 'B2')
    const rows = await addressRows(loc.id)
    assert.equal(rows.length, 2)
    assert.ok(rows.every((r) => !r.active))
  })

  test('a GET body PUT back unchanged is a no-op (same body, same ETag, nothing written)', async () => {
    const { api, tenant } = await signedIn(ctx)
    const le = await ctx.database.db
      .selectFrom('legal_entities')
      .select('id')
      .where('tenant_id', '=', tenant.tenantId)
      .executeTakeFirstOrThrow()
    const loc = await create(
      api,
      newLocation({ legal_entity: le.id, fax: '9', email: 'plant@example.com', url: 'https://plant.example.com' }),
    )
    const got = await api({ method: 'GET', url: `/api/v2/locations/${loc.id}/` })
    const version = async () =>
      await ctx.database.db
        .selectFrom('locations')
        .select(['version', 'updated_at'])
        .where('id', '=', loc.id)
        .executeTakeFirstOrThrow()
    const before = await version()
    const put = await api({
      method: 'PUT',
      url: `/api/v2/locations/${loc.id}/`,
      payload: got.json().data,
      headers: { 'if-match': String(got.headers.etag) },
    })
    assert.equal(put.statusCode, 200, put.body)
    assert.deepEqual(put.json().data, got.json().data)
    assert.equal(put.headers.etag, got.headers.etag)
    assert.deepEqual(await version(), before)
  })

  test('If-Match that no longer matches → 412 and nothing written', async () => {
    const { api } = await signedIn(ctx)
    const loc = await create(api)
    const got = await api({ method: 'GET', url: `/api/v2/locations/${loc.id}/` })
    const etag = String(got.headers.etag)
    const first = await api({
      method: 'PUT',
      url: `/api/v2/locations/${loc.id}/`,
      payload: { ...got.json().data, name: 'First' },
      headers: { 'if-match': etag },
    })
    assert.equal(first.statusCode, 200)
    assert.notEqual(first.headers.etag, etag)
    const stale = await api({
      method: 'PUT',
      url: `/api/v2/locations/${loc.id}/`,
      payload: { ...got.json().data, name: 'Second', shipping_addresses: [] },
      headers: { 'if-match': etag },
    })
    assert.equal(stale.statusCode, 412)
    const now = (await api({ method: 'GET', url: `/api/v2/locations/${loc.id}/` })).json().data
    assert.equal(now.name, 'First')
    assert.equal(now.shipping_addresses.length, 2)
  })

  test('an address id of another location → 400 naming it, nothing written', async () => {
    const { api } = await signedIn(ctx)
    const a = await create(api)
    const b = await create(api, newLocation({ name: 'Other' }))
    const got = (await api({ method: 'GET', url: `/api/v2/locations/${a.id}/` })).json().data
    const stolen = b.shipping_addresses[0]
    const put = await api({
      method: 'PUT',
      url: `/api/v2/locations/${a.id}/`,
      payload: { ...got, name: 'Changed', shipping_addresses: [got.shipping_addresses[0], stolen] },
    })
    assert.equal(put.statusCode, 400)
    assert.ok(put.json().errors['shipping_addresses.1.id'])
    assert.deepEqual((await api({ method: 'GET', url: `/api/v2/locations/${a.id}/` })).json().data, got)
    const dup = await api({
      method: 'PUT',
      url: `/api/v2/locations/${a.id}/`,
      payload: { ...got, shipping_addresses: [got.shipping_addresses[0], got.shipping_addresses[0]] },
    })
    assert.equal(dup.statusCode, 400)
  })

  test('property: after every PUT the active alternates are exactly the submitted set; ids stick; nothing is deleted', async () => {
    const { api } = await signedIn(ctx)
    const loc = await create(api)
    const otherLoc = await create(api, newLocation({ name: 'Neighbour' }))
    const foreignId: number = otherLoc.shipping_addresses[0].id
    // One step: keep some current addresses (maybe edited), add new ones, maybe sneak in a foreign id.
    const step = fc.record({
      keep: fc.array(fc.boolean(), { maxLength: 6 }),
      edit: fc.array(fc.boolean(), { maxLength: 6 }),
      added: fc.array(
        fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim() === s && s.length > 0),
        { maxLength: 3 },
      ),
      foreign: fc.boolean(),
    })
    let everSeen = new Set<number>((await addressRows(loc.id)).map((r) => r.id))
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 4 }), async (steps) => {
        for (const s of steps) {
          const current = (await api({ method: 'GET', url: `/api/v2/locations/${loc.id}/` })).json().data
          const kept = current.shipping_addresses
            .filter((_: unknown, i: number) => s.keep[i] ?? false)
            .map((a: { name: string }, i: number) => (s.edit[i] ? { ...a, name: `${a.name.slice(0, 140)}*` } : a))
          const submitted = [...kept, ...s.added.map((name) => address(name))]
          const payload = {
            ...current,
            shipping_addresses: s.foreign ? [...submitted, { ...address('x'), id: foreignId }] : submitted,
          }
          const rowsBefore = await addressRows(loc.id)
          const put = await api({ method: 'PUT', url: `/api/v2/locations/${loc.id}/`, payload })
          if (s.foreign) {
            assert.equal(put.statusCode, 400)
            assert.deepEqual(await addressRows(loc.id), rowsBefore, 'a rejected PUT writes nothing')
            continue
          }
          assert.equal(put.statusCode, 200, put.body)
          const active = put.json().data.shipping_addresses
          const strip = (a: Record<string, unknown>) => ({
            ...a,
            id: undefined,
            state_province: a.state_province ?? '',
          })
          assert.deepEqual(
            active.map(strip),
            submitted.map(strip),
            'active alternates equal the submitted set, in order',
          )
          const keptIds = kept.map((a: { id: number }) => a.id)
          assert.deepEqual(
            active.slice(0, kept.length).map((a: { id: number }) => a.id),
            keptIds,
            'submitted ids are kept',
          )
          const rows = await addressRows(loc.id)
          for (const id of everSeen)
            assert.ok(
              rows.some((r) => r.id === id),
              `address ${id} still exists`,
            )
          everSeen = new Set([...everSeen, ...rows.map((r) => r.id)])
          assert.deepEqual(
            rows
              .filter((r) => r.active)
              .map((r) => r.id)
              .sort(),
            active.map((a: { id: number }) => a.id).sort(),
          )
        }
      }),
      { numRuns: 25 },
    )
  })
})

describe('list', () => {
  test('filters, search, ordering and paging', async () => {
    const { api } = await signedIn(ctx)
    await create(api, newLocation({ name: 'Zeta depot', active: false }))
    await create(api, newLocation({ name: 'Alpha depot' }))
    const all = (await api({ method: 'GET', url: '/api/v2/locations/?page_size=100' })).json()
    assert.equal(all.metadata.pagination.count, 5)
    assert.deepEqual(
      all.data.map((l: { id: number }) => l.id),
      [...all.data.map((l: { id: number }) => l.id)].sort((a: number, b: number) => a - b),
    )
    const inactive = (await api({ method: 'GET', url: '/api/v2/locations/?active=false' })).json()
    assert.deepEqual(
      inactive.data.map((l: { name: string }) => l.name),
      ['Zeta depot'],
    )
    const search = (await api({ method: 'GET', url: '/api/v2/locations/?search=DEPOT&order_by=-name' })).json()
    assert.deepEqual(
      search.data.map((l: { name: string }) => l.name),
      ['Zeta depot', 'Alpha depot'],
    )
    const paged = (await api({ method: 'GET', url: '/api/v2/locations/?page_size=2&page=3' })).json()
    assert.equal(paged.metadata.pagination.num_pages, 3)
    assert.equal(paged.data.length, 1)
    assert.equal(paged.metadata.pagination.next, null)
    assert.equal((await api({ method: 'GET', url: '/api/v2/locations/?page=4&page_size=2' })).statusCode, 404)
    assert.equal((await api({ method: 'GET', url: '/api/v2/locations/?order_by=phoneOne' })).statusCode, 400)
  })
})
