/**
 * Privilege containment (issue 20 item 1), tried as an attacker who holds `nav_setting` but not
 * `superuser`: every path that creates, edits, deactivates or grants — API single and batch create, PUT,
 * DELETE, the console's invite and deactivate — refuses to hand out a permission the actor lacks or to
 * touch a superuser, with a 403 naming the permission, and writes nothing.
 */
import assert from 'node:assert/strict'
import { beforeEach, describe, test } from 'node:test'
import { useTestApp } from './helpers/app.ts'
import {
  BASE_DOMAIN,
  adminBrowser,
  apiAs,
  createUser,
  newTenant,
  roleId,
  roleWith,
  userBrowser,
  userRow,
  type Api,
  type Tenant,
} from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn' })

let tenant: Tenant
let admin: Api
let manager: Api
let adminProfile: number
const roles = { Administrator: 0, Buyer: 0, Requester: 0, Manager: 0 }

let ready = false
beforeEach(async () => {
  if (ready) return
  ready = true
  tenant = await newTenant(ctx)
  admin = await apiAs(ctx, tenant, tenant.adminUserId)
  roles.Administrator = await roleId(ctx, tenant, 'Administrator')
  roles.Buyer = await roleId(ctx, tenant, 'Buyer')
  roles.Requester = await roleId(ctx, tenant, 'Requester')
  // A user manager: may manage users, and holds what a requester holds, nothing more.
  roles.Manager = await roleWith(ctx, tenant, 'User manager', ['nav_setting', 'nav_request'])
  const m = await createUser(admin, 'manager@attack.test', roles.Manager)
  manager = await apiAs(ctx, tenant, m.userId)
  const me = await admin({ method: 'GET', url: '/api/v3/users/me/' })
  adminProfile = (
    await admin({ method: 'GET', url: `/api/v3/users/?search=${encodeURIComponent(tenant.email)}` })
  ).json().data[0].id
  assert.equal(me.statusCode, 200)
})

const count = async () =>
  (await admin({ method: 'GET', url: '/api/v3/users/' })).json().metadata.pagination.count as number

function assertForbidden(response: { statusCode: number; body: string }, permission: string) {
  assert.equal(response.statusCode, 403, response.body)
  const problem = JSON.parse(response.body)
  assert.equal(problem.type, '/problems/permission')
  assert.match(problem.detail, new RegExp(`\\b${permission}\\b`), `the problem names ${permission}: ${problem.detail}`)
}

describe('API: creating users', () => {
  test('batch with role_id Administrator → 403 naming superuser; nothing created', async () => {
    const before = await count()
    const response = await manager({
      method: 'POST',
      url: '/api/v3/users/',
      payload: [
        { email: 'fine@attack.test', role_id: roles.Requester },
        { email: 'evil-admin@attack.test', role_id: roles.Administrator },
      ],
    })
    assertForbidden(response, 'superuser')
    assert.equal(await count(), before, 'all or nothing: not even the harmless item was created')
  })

  test('a role that is no superuser but carries a permission the actor lacks → 403 naming it', async () => {
    const response = await manager({
      method: 'POST',
      url: '/api/v3/users/',
      payload: [{ email: 'evil-buyer@attack.test', role_id: roles.Buyer }],
    })
    assertForbidden(response, 'nav_purchase')
  })

  test('the same role id written as an upstream batch again, under an Idempotency-Key → still 403', async () => {
    const response = await manager({
      method: 'POST',
      url: '/api/v3/users/',
      headers: { 'idempotency-key': 'containment-1' },
      payload: [{ email: 'evil2@attack.test', role_id: roles.Administrator, send_invitation_email: true }],
    })
    assertForbidden(response, 'superuser')
  })

  test('what the actor holds may be granted: a requester → 201', async () => {
    await createUser(manager, 'fine-requester@attack.test', roles.Requester)
  })

  test('single form: the default role is granted too, and is held to the same rule', async () => {
    // A manager who holds nav_setting alone may not hand out even the default role (a requester's nav_request).
    const bare = await roleWith(ctx, tenant, 'Bare manager', ['nav_setting'])
    const m = await createUser(admin, 'bare-manager@attack.test', bare)
    const bareManager = await apiAs(ctx, tenant, m.userId)
    const response = await bareManager({
      method: 'POST',
      url: '/api/v3/users/',
      payload: { email: 'single@attack.test', firstName: 'S', lastName: 'Ingle', location: null, department: null },
    })
    assertForbidden(response, 'nav_request')
  })
})

describe('API: acting on a superuser', () => {
  test('PUT on the administrator (a superuser) → 403 naming superuser; the e-mail is unchanged', async () => {
    const response = await manager({
      method: 'PUT',
      url: `/api/v3/users/${adminProfile}/`,
      payload: { email: 'taken-over@attack.test', firstName: 'X', lastName: 'Y', location: null, department: null },
    })
    assertForbidden(response, 'superuser')
    assert.equal((await userRow(ctx, tenant.adminUserId)).email, tenant.email)
  })

  test('DELETE of the administrator → 403; still active', async () => {
    assertForbidden(await manager({ method: 'DELETE', url: `/api/v3/users/${adminProfile}/` }), 'superuser')
    assert.equal((await userRow(ctx, tenant.adminUserId)).is_active, true)
  })

  test('a superuser only at one location is still a superuser', async () => {
    const target = await createUser(admin, 'local-super@attack.test', roles.Requester)
    const location = await ctx.database.db
      .selectFrom('locations')
      .select('id')
      .where('tenant_id', '=', tenant.tenantId)
      .executeTakeFirstOrThrow()
    await ctx.database.db
      .insertInto('role_grants')
      .values({
        tenant_id: tenant.tenantId,
        user_id: target.userId,
        location_id: location.id,
        role_id: roles.Administrator,
      })
      .execute()
    assertForbidden(await manager({ method: 'DELETE', url: `/api/v3/users/${target.profileId}/` }), 'superuser')
  })

  test('a non-superuser may still be edited and deactivated by the manager', async () => {
    const target = await createUser(admin, 'plain@attack.test', roles.Requester)
    const put = await manager({
      method: 'PUT',
      url: `/api/v3/users/${target.profileId}/`,
      payload: { email: 'plain2@attack.test', firstName: 'P', lastName: 'L', location: null, department: null },
    })
    assert.equal(put.statusCode, 200, put.body)
    assert.equal((await manager({ method: 'DELETE', url: `/api/v3/users/${target.profileId}/` })).statusCode, 204)
  })

  test('a superuser may create and deactivate a superuser', async () => {
    const other = await createUser(admin, 'second-admin@attack.test', roles.Administrator)
    assert.equal((await admin({ method: 'DELETE', url: `/api/v3/users/${other.profileId}/` })).statusCode, 204)
  })
})

describe('console', () => {
  test('invite as Administrator → 403 naming superuser; nobody invited', async () => {
    const b = await userBrowser(ctx, tenant, 'manager@attack.test')
    const before = await count()
    const invited = await b.submit('/console/users', '/console/users/invite', {
      email: 'console-evil@attack.test',
      role_id: String(roles.Administrator),
    })
    assert.equal(invited.statusCode, 403, invited.body.slice(0, 300))
    assert.match(invited.body, /superuser/)
    assert.equal(await count(), before)
  })

  test('deactivating the administrator → 403; still active', async () => {
    const b = await userBrowser(ctx, tenant, 'manager@attack.test')
    const response = await b.submit(
      `/console/users/${adminProfile}/deactivate`,
      `/console/users/${adminProfile}/deactivate`,
      {},
    )
    assert.equal(response.statusCode, 403, response.body.slice(0, 300))
    assert.equal((await userRow(ctx, tenant.adminUserId)).is_active, true)
  })

  test('the administrator still invites an administrator', async () => {
    const b = await adminBrowser(ctx, tenant)
    const invited = await b.submit('/console/users', '/console/users/invite', {
      email: 'console-admin@attack.test',
      role_id: String(roles.Administrator),
    })
    assert.equal(invited.statusCode, 303, invited.body.slice(0, 300))
  })
})
