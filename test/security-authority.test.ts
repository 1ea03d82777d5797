/**
 * Authority read fresh where it is used (issue 30; DECISIONS, "Authority is read fresh, at the place it is
 * used"): a demoted administrator keeps nothing, someone else's delegation is a grant of their approvals,
 * a decision re-checks `nav_approval` at the request's location, a grant at a location is judged at that
 * location, the event feed and webhooks are for superusers, and webhook writes are audited and capped.
 */
import assert from 'node:assert/strict'
import { beforeEach, describe, test } from 'node:test'
import { useTestApp } from './helpers/app.ts'
import { draft, rule, setUp, submit, decide, type Setup } from './helpers/requests.ts'
import { BASE_DOMAIN, adminBrowser, roleWith, userBrowser, type Api } from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn' })

let s: Setup
let Administrator: number
let Manager: number
let ready = false
beforeEach(async () => {
  if (ready) return
  ready = true
  s = await setUp(ctx)
  Administrator = (await s.admin({ method: 'GET', url: '/api/v3/roles/' }))
    .json()
    .data.find((r: { name: string }) => r.name === 'Administrator').id
  // A user manager: nav_setting and nav_request, nothing more.
  Manager = await roleWith(ctx, s.tenant, 'User manager', ['nav_setting', 'nav_request'])
})

let n = 0
const fresh = (prefix: string) => `${prefix}${++n}`

function assertForbidden(response: { statusCode: number; body: string }) {
  assert.equal(response.statusCode, 403, response.body)
  assert.equal(JSON.parse(response.body).type, '/problems/permission')
}

const profileBody = (name: string, role: number) => ({
  email: `${name}@${s.tenant.domain}.test`,
  firstName: name,
  lastName: 'Tester',
  location: s.A,
  department: null,
  role_id: role,
})

const auditActions = async (resourceType: string, resourceId: number | string) =>
  (
    await ctx.database.db
      .selectFrom('audit_log')
      .select('action')
      .where('tenant_id', '=', s.tenant.tenantId)
      .where('resource_type', '=', resourceType)
      .where('resource_id', '=', String(resourceId))
      .orderBy('id')
      .execute()
  ).map((r) => r.action)

describe('a demoted Administrator keeps nothing', () => {
  test('API: PUT with a new role_id replaces the tenant-wide grant of the old role', async () => {
    const name = fresh('demoted')
    const x = await s.user(name, Administrator, s.A)
    const put = await s.admin({
      method: 'PUT',
      url: `/api/v3/users/${x.profileId}/`,
      payload: profileBody(name, s.roles.Requester),
    })
    assert.equal(put.statusCode, 200, put.body)
    // The demoted user can no longer create users, let alone Administrators.
    assertForbidden(
      await x.api({
        method: 'POST',
        url: '/api/v3/users/',
        payload: [{ email: `${fresh('v')}@x.test`, role_id: Administrator }],
      }),
    )
    const me = (await x.api({ method: 'GET', url: '/api/v3/users/me/' })).json().data
    assert.deepEqual(me.systemaccess_cache.flattened.sort(), ['nav_request'])
  })

  test('console: the edit form changing the role replaces the old grant too', async () => {
    const name = fresh('consoledemoted')
    const x = await s.user(name, Administrator, s.A)
    const console = await adminBrowser(ctx, s.tenant)
    const edited = await console.submit(`/console/users/${x.profileId}/edit`, `/console/users/${x.profileId}/edit`, {
      firstName: name,
      lastName: 'Tester',
      role_id: String(s.roles.Requester),
      location: String(s.A),
      department: '',
      phone: '',
      position: '',
    })
    assert.equal(edited.statusCode, 303, edited.body)
    assertForbidden(await x.api({ method: 'GET', url: '/api/v3/roles/1/' }))
    const me = (await x.api({ method: 'GET', url: '/api/v3/users/me/' })).json().data
    assert.deepEqual(me.systemaccess_cache.flattened.sort(), ['nav_request'])
  })
})

describe("someone else's delegation is a grant of their approvals", () => {
  test('a nav_setting user may not set a superuser’s delegation (only a superuser may)', async () => {
    const manager = await s.user(fresh('manager'), Manager, s.A)
    const superProfile = (
      await s.admin({ method: 'GET', url: `/api/v3/users/?search=${encodeURIComponent(s.tenant.email)}` })
    ).json().data[0].id
    const put = await manager.api({
      method: 'PUT',
      url: `/api/v3/users/${superProfile}/delegation/`,
      payload: { delegatee: manager.profileId, expected_return_date: null },
    })
    assertForbidden(put)
    const now = await s.admin({ method: 'GET', url: `/api/v3/users/${superProfile}/delegation/` })
    assert.equal(now.json().data.delegatee, null)
  })

  test('a user without superuser or nav_setting may not set another user’s delegation', async () => {
    const requester = await s.user(fresh('req'), s.roles.Requester, s.A)
    const other = await s.user(fresh('other'), s.roles.Approver, s.A)
    assertForbidden(
      await requester.api({
        method: 'PUT',
        url: `/api/v3/users/${other.profileId}/delegation/`,
        payload: { delegatee: requester.profileId },
      }),
    )
  })

  test('a delegatee without nav_approval at the location cannot decide the away candidate’s approval', async () => {
    const requester = await s.user(fresh('r'), s.roles.Requester, s.A)
    const candidate = await s.user(fresh('c'), s.roles.Approver, s.A)
    const delegatee = await s.user(fresh('d'), s.roles.Requester, s.A)
    await rule(s.admin, { location: s.A, approvers: [candidate.profileId], step: 1 })
    const request = await draft(requester.api, s.A)
    assert.equal((await submit(requester.api, request.id)).statusCode, 200)
    const set = await s.admin({
      method: 'PUT',
      url: `/api/v3/users/${candidate.profileId}/delegation/`,
      payload: { delegatee: delegatee.profileId },
    })
    assert.equal(set.statusCode, 200, set.body)
    const approval = (await s.admin({ method: 'GET', url: `/api/v3/requests/${request.id}/` })).json().data.approvals[0]
    assertForbidden(await decide(delegatee.api, approval.id, 'approve'))
    const after = (await s.admin({ method: 'GET', url: `/api/v3/approvals/${approval.id}/` })).json().data
    assert.equal(after.status, 'pending')
  })
})

describe('deciding re-checks nav_approval at the request’s location, at that moment', () => {
  test('a candidate whose Approver grant was withdrawn gets 403, as does their delegatee', async () => {
    const requester = await s.user(fresh('r'), s.roles.Requester, s.A)
    // The candidate holds nav_approval only through a grant at A; their profile role is Requester, with no location.
    const candidate = await s.user(fresh('c'), s.roles.Requester, null, [{ location: s.A, role: s.roles.Approver }])
    const delegatee = await s.user(fresh('d'), s.roles.Approver, s.A)
    await rule(s.admin, { location: s.A, approvers: [candidate.profileId], step: 1 })
    const first = await draft(requester.api, s.A)
    const second = await draft(requester.api, s.A)
    assert.equal((await submit(requester.api, first.id)).statusCode, 200)
    assert.equal((await submit(requester.api, second.id)).statusCode, 200)
    const approvalOf = async (id: number) =>
      (await s.admin({ method: 'GET', url: `/api/v3/requests/${id}/` })).json().data.approvals[0].id as number
    const withdrawn = await s.admin({
      method: 'PUT',
      url: `/api/v3/users/${candidate.profileId}/location-roles/`,
      payload: [],
    })
    assert.equal(withdrawn.statusCode, 200, withdrawn.body)
    assertForbidden(await decide(candidate.api, await approvalOf(first.id), 'approve'))
    assertForbidden(await decide(candidate.api, await approvalOf(first.id), 'reject', 'no'))
    const set = await s.admin({
      method: 'PUT',
      url: `/api/v3/users/${candidate.profileId}/delegation/`,
      payload: { delegatee: delegatee.profileId },
    })
    assert.equal(set.statusCode, 200, set.body)
    assertForbidden(await decide(delegatee.api, await approvalOf(second.id), 'approve'))
    for (const id of [first.id, second.id])
      assert.equal((await s.admin({ method: 'GET', url: `/api/v3/requests/${id}/` })).json().data.status, 'pending')
  })

  test('the console’s decision obeys the same rule', async () => {
    const requester = await s.user(fresh('r'), s.roles.Requester, s.A)
    const name = fresh('cc')
    const candidate = await s.user(name, s.roles.Requester, null, [{ location: s.A, role: s.roles.Approver }])
    await rule(s.admin, { location: s.A, approvers: [candidate.profileId], step: 1 })
    const request = await draft(requester.api, s.A)
    assert.equal((await submit(requester.api, request.id)).statusCode, 200)
    const approvalId = (await s.admin({ method: 'GET', url: `/api/v3/requests/${request.id}/` })).json().data
      .approvals[0].id
    const browser = await userBrowser(ctx, s.tenant, `${name}@${s.tenant.domain}.test`)
    await s.admin({ method: 'PUT', url: `/api/v3/users/${candidate.profileId}/location-roles/`, payload: [] })
    const posted = await browser.submit(`/console/approvals/${approvalId}`, `/console/approvals/${approvalId}`, {
      decision: 'approve',
      comment: '',
    })
    assert.notEqual(posted.statusCode, 303, 'the decision is refused')
    assert.equal(
      (await s.admin({ method: 'GET', url: `/api/v3/approvals/${approvalId}/` })).json().data.status,
      'pending',
    )
  })
})

describe('granting a role at a location is judged at that location', () => {
  test('nav_approval held only at A does not let a user manager grant Approver at B', async () => {
    const manager = await s.user(fresh('m'), Manager, null, [{ location: s.A, role: s.roles.Approver }])
    const target = await s.user(fresh('t'), s.roles.Requester, s.A)
    const atA = await manager.api({
      method: 'PUT',
      url: `/api/v3/users/${target.profileId}/location-roles/`,
      payload: [{ location: s.A, role: s.roles.Approver }],
    })
    assert.equal(atA.statusCode, 200, atA.body)
    for (const payload of [
      [{ location: s.B, role: s.roles.Approver }],
      [
        { location: s.A, role: s.roles.Approver },
        { location: s.B, role: s.roles.Approver },
      ],
    ]) {
      const atB = await manager.api({
        method: 'PUT',
        url: `/api/v3/users/${manager.profileId}/location-roles/`,
        payload,
      })
      assertForbidden(atB)
      assert.match(atB.json().detail, /nav_approval/)
      assert.match(atB.json().detail, new RegExp(`location ${s.B}`))
    }
    const held = await s.admin({ method: 'GET', url: `/api/v3/users/${manager.profileId}/location-roles/` })
    assert.deepEqual(held.json().data, [{ location: s.A, role: s.roles.Approver }])
  })
})

describe('the event feed and webhook endpoints are for superusers', () => {
  test('nav_setting without superuser gets 403 for both', async () => {
    const manager = await s.user(fresh('m'), Manager, s.A)
    for (const url of ['/api/v3/events/', '/api/v3/webhook-endpoints/'])
      assertForbidden(await manager.api({ method: 'GET', url }))
    assertForbidden(
      await manager.api({
        method: 'POST',
        url: '/api/v3/webhook-endpoints/',
        payload: { url: 'https://8.8.8.8/hook' },
      }),
    )
    assert.equal((await s.admin({ method: 'GET', url: '/api/v3/events/' })).statusCode, 200)
  })
})

describe('webhook endpoints: audited, at most 16 per tenant', () => {
  test('every write is audited and the 17th endpoint is a 409', async () => {
    const t = await setUp(ctx)
    const admin: Api = t.admin
    const created = await admin({
      method: 'POST',
      url: '/api/v3/webhook-endpoints/',
      payload: { url: 'https://8.8.8.8/0' },
    })
    assert.equal(created.statusCode, 201, created.body)
    const id = created.json().data.id as number
    const base = `/api/v3/webhook-endpoints/${id}/`
    assert.equal((await admin({ method: 'PATCH', url: base, payload: { description: 'x' } })).statusCode, 200)
    assert.equal((await admin({ method: 'POST', url: `${base}rotate-secret/` })).statusCode, 200)
    assert.equal((await admin({ method: 'DELETE', url: base })).statusCode, 204)
    const actions = (
      await ctx.database.db
        .selectFrom('audit_log')
        .select(['action', 'changes'])
        .where('tenant_id', '=', t.tenant.tenantId)
        .where('resource_type', '=', 'webhook_endpoint')
        .where('resource_id', '=', String(id))
        .orderBy('id')
        .execute()
    ).map((r) => r.action)
    assert.deepEqual(actions, [
      'webhook_endpoint.create',
      'webhook_endpoint.update',
      'webhook_endpoint.rotate_secret',
      'webhook_endpoint.delete',
    ])
    for (let i = 1; i <= 16; i++) {
      const r = await admin({
        method: 'POST',
        url: '/api/v3/webhook-endpoints/',
        payload: { url: `https://8.8.8.8/${i}` },
      })
      assert.equal(r.statusCode, 201, r.body)
    }
    const over = await admin({
      method: 'POST',
      url: '/api/v3/webhook-endpoints/',
      payload: { url: 'https://8.8.8.8/17' },
    })
    assert.equal(over.statusCode, 409, over.body)
    assert.match(over.json().detail, /16/)
  })

  test('delegations, grants and roles are audited', async () => {
    const a = await s.user(fresh('a'), s.roles.Approver, s.A)
    const b = await s.user(fresh('b'), s.roles.Approver, s.A)
    await s.admin({
      method: 'PUT',
      url: `/api/v3/users/${a.profileId}/delegation/`,
      payload: { delegatee: b.profileId },
    })
    await s.admin({ method: 'DELETE', url: `/api/v3/users/${a.profileId}/delegation/` })
    await s.admin({
      method: 'PUT',
      url: `/api/v3/users/${a.profileId}/location-roles/`,
      payload: [{ location: s.B, role: s.roles.Approver }],
    })
    assert.deepEqual(await auditActions('user', a.userId), [
      'user.create',
      'user.delegation.set',
      'user.delegation.end',
      'user.location_roles',
    ])
  })
})
