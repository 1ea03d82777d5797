/** Users: profiles, batch and single create, replace, deactivate, and the current user (docs/api.md, Users). */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { sampleTenant, signedIn, useTestApp } from './helpers/app.ts'

const ctx = useTestApp()

type Api = Awaited<ReturnType<typeof signedIn>>['api']

const userCount = async (api: Api) =>
  (await api({ method: 'GET', url: '/api/v3/users/' })).json().metadata.pagination.count as number

async function places(tenantId: number) {
  const db = ctx.database.db
  const locations = await db
    .selectFrom('locations')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .orderBy('id')
    .execute()
  const departments = await db
    .selectFrom('departments')
    .select(['id', 'location_id'])
    .where('tenant_id', '=', tenantId)
    .orderBy('id')
    .execute()
  const roles = await db.selectFrom('roles').select(['id', 'name']).where('tenant_id', '=', tenantId).execute()
  const legal = await db
    .selectFrom('legal_entities')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .executeTakeFirstOrThrow()
  const role = (name: string) => roles.find((r) => r.name === name)!.id
  return { locations: locations.map((l) => l.id), departments, role, legal: legal.id }
}

describe('batch create', () => {
  test('1,000 valid users in one request: 201, profiles in order, with the batch defaults', async () => {
    const { api, tenant } = await signedIn(ctx)
    const p = await places(tenant.tenantId)
    const batch = Array.from({ length: 1000 }, (_, i) => ({
      email: `person${i}@big.example.com`,
      first_name: `P${i}`,
      role_id: p.role('Buyer'),
      home_location: p.locations[0],
      home_department: p.departments[0]!.id,
      locations:
        i % 2 === 0
          ? [p.locations[0]]
          : [{ id: p.locations[1], all_departments: false, departments: [p.departments[3]!.id] }],
      legal_entities: [p.legal],
    }))
    const response = await api({ method: 'POST', url: '/api/v3/users/', payload: batch })
    assert.equal(response.statusCode, 201, response.body.slice(0, 500))
    const data = response.json().data
    assert.equal(data.length, 1000)
    assert.deepEqual(
      data.map((u: { email: string }) => u.email),
      batch.map((b) => b.email),
    )
    assert.equal(data[7].lastName, '', 'last_name defaults to empty')
    assert.equal(data[7].role.name, 'Buyer')
    assert.equal(data[7].department.id, p.departments[0]!.id)
    assert.equal(await userCount(api), 1004)
  })

  test('one bad item in the middle: 400 with one error object per item, the error at its index, nothing written', async () => {
    const { api, tenant } = await signedIn(ctx)
    const p = await places(tenant.tenantId)
    const batch: object[] = Array.from({ length: 1000 }, (_, i) => ({
      email: `ok${i}@example.org`,
      role_id: p.role('Requester'),
    }))
    batch[500] = { email: 'not-an-email', role_id: p.role('Requester') }
    const response = await api({ method: 'POST', url: '/api/v3/users/', payload: batch })
    assert.equal(response.statusCode, 400)
    const errors = response.json().errors
    assert.equal(errors.length, 1000)
    assert.ok(errors[500].email)
    assert.equal(errors.filter((e: object) => Object.keys(e).length > 0).length, 1)
    assert.equal(await userCount(api), 4)
  })

  test('reference and uniqueness errors are reported per item; nothing written', async () => {
    const { api, tenant } = await signedIn(ctx)
    const p = await places(tenant.tenantId)
    const otherDept = p.departments.find((d) => d.location_id !== p.locations[0])!.id
    const response = await api({
      method: 'POST',
      url: '/api/v3/users/',
      payload: [
        { email: 'fine@example.org' },
        { email: 'ADMIN@example.com' },
        { email: 'twice@example.org' },
        { email: 'Twice@example.org' },
        { email: 'r@example.org', role_id: 999999 },
        { email: 'd@example.org', home_location: p.locations[0], home_department: otherDept },
        { email: 'l@example.org', locations: [999999], legal_entities: [999999] },
      ],
    })
    assert.equal(response.statusCode, 400)
    const errors = response.json().errors
    assert.equal(errors.length, 7)
    assert.deepEqual(errors[0], {})
    assert.ok(errors[1].email, 'existing e-mail, other case')
    assert.deepEqual(errors[2], {})
    assert.ok(errors[3].email, 'repeated within the batch')
    assert.ok(errors[4].role_id)
    assert.ok(errors[5].home_department)
    assert.ok(errors[6]['locations.0'] && errors[6].legal_entities)
    assert.equal(await userCount(api), 4)
    // Shape errors are reported first (before references are looked up), still one object per item.
    const shape = await api({
      method: 'POST',
      url: '/api/v3/users/',
      payload: [{ email: 'fine@example.org' }, { email: 'x@example.org', surprise: true }],
    })
    assert.deepEqual(shape.json().errors, [{}, { surprise: ['is not a known field'] }])
  })

  test('a location listed twice is merged; many locations per user across a batch are fine', async () => {
    const { api, tenant } = await signedIn(ctx)
    const p = await places(tenant.tenantId)
    const [a, b, c] = p.locations as [number, number, number]
    const batch = Array.from({ length: 400 }, (_, i) => ({
      email: `many${i}@example.org`,
      locations: [
        a,
        a,
        { id: b, departments: [p.departments[3]!.id, p.departments[3]!.id] },
        { id: b, all_departments: true },
        c,
      ],
      legal_entities: [p.legal, p.legal],
    }))
    const response = await api({ method: 'POST', url: '/api/v3/users/', payload: batch })
    assert.equal(response.statusCode, 201, response.body.slice(0, 300))
    const rows = await ctx.database.db
      .selectFrom('user_locations')
      .select(['location_id', 'all_departments'])
      .where('tenant_id', '=', tenant.tenantId)
      .where('user_id', '=', response.json().data[0].user)
      .orderBy('location_id')
      .execute()
    assert.deepEqual(rows, [
      { location_id: a, all_departments: true },
      { location_id: b, all_departments: true },
      { location_id: c, all_departments: true },
    ])
  })

  test('empty and oversized batches and non-object bodies are 400', async () => {
    const { api } = await signedIn(ctx)
    assert.equal((await api({ method: 'POST', url: '/api/v3/users/', payload: [] })).statusCode, 400)
    const big = Array.from({ length: 1001 }, (_, i) => ({ email: `b${i}@example.org` }))
    assert.equal((await api({ method: 'POST', url: '/api/v3/users/', payload: big })).statusCode, 400)
    assert.equal(
      (
        await api({
          method: 'POST',
          url: '/api/v3/users/',
          payload: '"x"',
          headers: { 'content-type': 'application/json' },
        })
      ).statusCode,
      400,
    )
  })

  test('concurrent batches sharing an e-mail: exactly one succeeds, no duplicate row', async () => {
    const { api, tenant } = await signedIn(ctx)
    const results = await Promise.all(
      [0, 1, 2, 3].map((k) =>
        api({
          method: 'POST',
          url: '/api/v3/users/',
          payload: [{ email: `own${k}@example.org` }, { email: 'shared@example.org' }],
        }),
      ),
    )
    assert.deepEqual(results.map((r) => r.statusCode).sort(), [201, 400, 400, 400])
    for (const r of results.filter((x) => x.statusCode === 400)) assert.ok(r.json().errors[1].email)
    const rows = await ctx.database.db
      .selectFrom('users')
      .select('id')
      .where('tenant_id', '=', tenant.tenantId)
      .where('email', 'ilike', 'shared@example.org')
      .execute()
    assert.equal(rows.length, 1)
    assert.equal(await userCount(api), 6)
  })
})

describe('single create, read, replace, deactivate', () => {
  test('single form: 201 with one profile; the least-privileged role by default', async () => {
    const { api, tenant } = await signedIn(ctx)
    const p = await places(tenant.tenantId)
    const response = await api({
      method: 'POST',
      url: '/api/v3/users/',
      payload: {
        email: 'solo@example.org',
        firstName: 'Solo',
        lastName: 'User',
        location: p.locations[1],
        department: p.departments[3]!.id,
        legal_entities: [p.legal],
      },
    })
    assert.equal(response.statusCode, 201, response.body)
    const user = response.json().data
    assert.equal(user.firstName, 'Solo')
    assert.equal(user.role.name, 'Requester')
    assert.equal(user.location.id, p.locations[1])
    assert.equal(user.location.headquarter, false)
    assert.equal(user.department.location.id, p.locations[1])
    assert.deepEqual(user.pending_approvals_count, { order: 0, expense: 0, travel: 0, bill: 0, payment: 0 })
    assert.equal(user.approval_delegatee, null)
    assert.equal(user.expected_return_date, null)
    assert.deepEqual((await api({ method: 'GET', url: `/api/v3/users/${user.id}/` })).json().data, user)
    const missing = await api({ method: 'POST', url: '/api/v3/users/', payload: { email: 'x@example.org' } })
    assert.equal(missing.statusCode, 400)
    assert.ok(!Array.isArray(missing.json().errors))
    assert.deepEqual(missing.json().errors.firstName, ['is required'])
  })

  test('PUT replaces the single-form fields; e-mail stays unique', async () => {
    const { api, tenant } = await signedIn(ctx)
    const p = await places(tenant.tenantId)
    const created = (
      await api({
        method: 'POST',
        url: '/api/v3/users/',
        payload: {
          email: 'p@example.org',
          firstName: 'P',
          lastName: 'Q',
          location: null,
          department: null,
          phone: '1',
          position: 'x',
        },
      })
    ).json().data
    const put = await api({
      method: 'PUT',
      url: `/api/v3/users/${created.id}/`,
      payload: {
        email: 'P2@example.org',
        firstName: 'Pat',
        lastName: 'Quinn',
        location: p.locations[0],
        department: p.departments[0]!.id,
      },
    })
    assert.equal(put.statusCode, 200, put.body)
    const updated = put.json().data
    assert.equal(updated.email, 'P2@example.org')
    assert.equal(updated.phone, '', 'omitted fields are replaced by their defaults')
    assert.equal(updated.position, '')
    assert.equal(updated.department.id, p.departments[0]!.id)
    const clash = await api({
      method: 'PUT',
      url: `/api/v3/users/${created.id}/`,
      payload: { email: 'buyer@EXAMPLE.com', firstName: 'a', lastName: 'b', location: null, department: null },
    })
    assert.equal(clash.statusCode, 400)
    assert.ok(clash.json().errors.email)
  })

  test('DELETE deactivates (204): the user’s tokens stop working; deactivating yourself is refused', async () => {
    const admin = await signedIn(ctx)
    const buyer = await signedIn(ctx, 'buyer', admin.tenant)
    assert.equal((await buyer.api({ method: 'GET', url: '/api/v3/users/me/' })).statusCode, 200)
    const buyerProfile = (await admin.api({ method: 'GET', url: '/api/v3/users/?search=buyer@' })).json().data[0]
    const gone = await admin.api({ method: 'DELETE', url: `/api/v3/users/${buyerProfile.id}/` })
    assert.equal(gone.statusCode, 204)
    assert.equal((await buyer.api({ method: 'GET', url: '/api/v3/users/me/' })).statusCode, 401)
    assert.equal(
      (await admin.api({ method: 'GET', url: `/api/v3/users/${buyerProfile.id}/` })).json().data.is_active,
      false,
    )
    const me = (await admin.api({ method: 'GET', url: '/api/v3/users/me/' })).json().data
    assert.equal((await admin.api({ method: 'DELETE', url: `/api/v3/users/${me.id}/` })).statusCode, 409)
    const other = await signedIn(ctx)
    assert.equal((await other.api({ method: 'DELETE', url: `/api/v3/users/${buyerProfile.id}/` })).statusCode, 404)
  })

  test('a Requester cannot create, update or deactivate users (403, nothing written)', async () => {
    const admin = await signedIn(ctx)
    const requester = await signedIn(ctx, 'requester', admin.tenant)
    const target = (await admin.api({ method: 'GET', url: '/api/v3/users/?search=buyer@' })).json().data[0]
    const calls = [
      { method: 'POST', url: '/api/v3/users/', payload: [{ email: 'n@example.org' }] },
      {
        method: 'POST',
        url: '/api/v3/users/',
        payload: { email: 'n@example.org', firstName: 'a', lastName: 'b', location: null, department: null },
      },
      {
        method: 'PUT',
        url: `/api/v3/users/${target.id}/`,
        payload: { email: 'n@example.org', firstName: 'a', lastName: 'b', location: null, department: null },
      },
      { method: 'DELETE', url: `/api/v3/users/${target.id}/` },
    ] as const
    for (const call of calls) assert.equal((await requester.api(call)).statusCode, 403, `${call.method} ${call.url}`)
    assert.equal(await userCount(admin.api), 4)
    assert.deepEqual((await admin.api({ method: 'GET', url: `/api/v3/users/${target.id}/` })).json().data, target)
  })
})

describe('list', () => {
  test('filters, search, ordering, CSV', async () => {
    const { api, tenant } = await signedIn(ctx)
    const p = await places(tenant.tenantId)
    await api({
      method: 'POST',
      url: '/api/v3/users/',
      payload: [
        {
          email: 'zed@example.org',
          first_name: 'Zed',
          role_id: p.role('Buyer'),
          send_invitation_email: true,
          locations: [p.locations[2]],
        },
      ],
    })
    const byRole = (await api({ method: 'GET', url: `/api/v3/users/?role=${p.role('Buyer')}` })).json()
    assert.deepEqual(byRole.data.map((u: { email: string }) => u.email).sort(), [
      'buyer@example.com',
      'zed@example.org',
    ])
    assert.equal(
      (await api({ method: 'GET', url: '/api/v3/users/?pending_invite=true' })).json().data[0].email,
      'zed@example.org',
    )
    assert.equal((await api({ method: 'GET', url: '/api/v3/users/?search=ZED' })).json().metadata.pagination.count, 1)
    assert.equal(
      (await api({ method: 'GET', url: `/api/v3/users/?location=${p.locations[2]}` })).json().metadata.pagination.count,
      4,
      'location access counts',
    )
    const ordered = (await api({ method: 'GET', url: '/api/v3/users/?order_by=-firstName' }))
      .json()
      .data.map((u: { firstName: string }) => u.firstName)
    assert.deepEqual(ordered, ['Zed', 'Rita', 'Mia', 'Bo', 'Ada'])
    const csv = await api({ method: 'GET', url: '/api/v3/users/?format=csv' })
    assert.match(String(csv.headers['content-type']), /text\/csv/)
    assert.equal(csv.body.trim().split('\r\n').length, 6)
  })
})

describe('permissions come from system-wide roles', () => {
  test('a role granted at one location shows in me under that location but authorizes no tenant-wide write', async () => {
    const admin = await signedIn(ctx)
    const p = await places(admin.tenant.tenantId)
    await ctx.database.db
      .insertInto('role_grants')
      .values({
        tenant_id: admin.tenant.tenantId,
        user_id: admin.tenant.users.requester,
        location_id: p.locations[2]!,
        role_id: p.role('Administrator'),
      })
      .execute()
    const requester = await signedIn(ctx, 'requester', admin.tenant)
    const me = (await requester.api({ method: 'GET', url: '/api/v3/users/me/' })).json().data
    assert.ok(me.systemaccess_cache.structured[String(p.locations[2])].flattened.includes('superuser'))
    assert.ok(me.systemaccess_cache.flattened.includes('superuser'), 'the union lists it')
    const create = await requester.api({
      method: 'POST',
      url: '/api/v3/users/',
      payload: [{ email: 'sneaky@example.org' }],
    })
    assert.equal(create.statusCode, 403)
  })
})

describe('current user', () => {
  test('me matches 2.9 field by field for a user with per-location roles, a delegation and pending approvals', async () => {
    const admin = await signedIn(ctx, 'admin', await sampleTenant(ctx, undefined, { documents: true }))
    const buyer = await signedIn(ctx, 'buyer', admin.tenant)
    const p = await places(admin.tenant.tenantId)
    const response = await buyer.api({ method: 'GET', url: '/api/v3/users/me/' })
    assert.equal(response.statusCode, 200)
    const body = response.json()
    assert.deepEqual(body.metadata, {})
    const me = body.data
    assert.deepEqual(Object.keys(me).sort(), [
      'address',
      'approval_delegatee',
      'chat_user_id',
      'created_at',
      'department',
      'domains',
      'email',
      'firstName',
      'id',
      'is_active',
      'is_approval_delegatee',
      'is_sso_enabled',
      'lastName',
      'last_changed_by',
      'mobile',
      'notifications',
      'pending_approvals_count',
      'pending_invite',
      'phone',
      'position',
      'profile_image',
      'role',
      'systemaccess_cache',
      'updated_at',
      'user',
    ])
    assert.deepEqual(me.domains, {
      active: true,
      service_domains: [{ subdomain: admin.tenant.domain, name: `Tenant ${admin.tenant.domain}` }],
    })
    assert.equal(me.user, admin.tenant.users.buyer)
    assert.equal(me.email, 'buyer@example.com')
    assert.equal(me.role, 2, 'the Buyer role is of type 2 (Purchaser)')
    assert.match(me.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
    assert.equal(me.is_approval_delegatee, false)
    assert.equal(me.approval_delegatee.email, 'admin@example.com')
    assert.deepEqual(me.approval_delegatee.role, { name: 'Administrator', type: 4 })
    const cache = me.systemaccess_cache
    // The set at a location: the profile role at each of the buyer's locations, plus the grants there.
    assert.deepEqual(Object.keys(cache.structured).sort(), [...p.locations.map(String), 'system'].sort())
    assert.deepEqual(cache.structured.system.flattened, ['nav_purchase', 'nav_receive', 'nav_request'])
    assert.deepEqual(cache.structured[String(p.locations[0])].flattened, ['nav_purchase', 'nav_receive', 'nav_request'])
    assert.deepEqual(cache.structured[String(p.locations[1])].flattened, [
      'nav_approval',
      'nav_purchase',
      'nav_receive',
      'nav_request',
    ])
    assert.equal(cache.structured.system.roles[0].name, 'Buyer')
    assert.deepEqual(Object.keys(cache.structured.system.roles[0].permissions[0]).sort(), ['description', 'id', 'name'])
    assert.deepEqual(cache.flattened, ['nav_approval', 'nav_purchase', 'nav_receive', 'nav_request'])
    assert.equal(me.department.name, 'Operations')
    assert.equal(me.department.branch.name, 'Head Office')
    assert.equal(me.department.branch.currency.name, 'USD')
    assert.ok(!('id' in me.department.branch.currency))
    assert.ok(!('id' in me.department.branch.primary_billing_address))
    assert.deepEqual(me.pending_approvals_count, { order: 0, expense: 0, travel: 0, bill: 0, payment: 0 })

    const adminMe = (await admin.api({ method: 'GET', url: '/api/v3/users/me/' })).json().data
    assert.equal(adminMe.is_approval_delegatee, true, 'the buyer delegates to the admin')
    assert.equal(adminMe.approval_delegatee, null)
    // The Head Office request waits on the admin; the East Warehouse one on the buyer, who is away (delegated to the
    // admin); the demo's bill with an exception on the admin, an accounts-payable holder as a superuser; and the
    // demo's submitted expense report, which waits on the Head Office's expense approvers (the admin among them);
    // and the demo's payment run, which waits on the payment_run rule's approvers (the admin and the manager).
    assert.deepEqual(adminMe.pending_approvals_count, { order: 2, expense: 1, travel: 0, bill: 1, payment: 1 })
    assert.ok(adminMe.systemaccess_cache.flattened.includes('superuser'))
    const buyerProfile = (await admin.api({ method: 'GET', url: `/api/v3/users/${me.id}/` })).json().data
    assert.match(buyerProfile.expected_return_date, /^\d{4}-\d{2}-\d{2}$/)
    assert.equal(buyerProfile.approval_delegatee.id, adminMe.id)
  })
})
