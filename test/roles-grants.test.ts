/**
 * Roles and grants through the API (DECISIONS, "Roles and grants through the API"): roles CRUD with 409 for a
 * role in use, a user's per-location grants, `role_id` on the single form and PUT, re-activation — each under
 * containment (nobody grants a permission they lack) and each refusing bad input with a 4xx that writes nothing.
 */
import assert from 'node:assert/strict'
import { beforeEach, describe, test } from 'node:test'
import { useTestApp } from './helpers/app.ts'
import {
  BASE_DOMAIN,
  apiAs,
  createUser,
  newTenant,
  roleId,
  roleWith,
  type Api,
  type Tenant,
} from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn' })
let tenant: Tenant
let admin: Api
let manager: Api
let requesterRole: number
let location: number

let ready = false
beforeEach(async () => {
  if (ready) return
  ready = true
  tenant = await newTenant(ctx)
  admin = await apiAs(ctx, tenant, tenant.adminUserId)
  requesterRole = await roleId(ctx, tenant, 'Requester')
  const managerRole = await roleWith(ctx, tenant, 'Manager', ['nav_setting', 'nav_request'])
  const m = await createUser(admin, 'manager@roles.test', managerRole)
  manager = await apiAs(ctx, tenant, m.userId)
  const locs = await admin({ method: 'GET', url: '/api/v3/locations/' })
  location = locs.json().data[0].id
})

describe('roles', () => {
  test('create, read, replace and delete a role; the list shows it', async () => {
    const created = await admin({
      method: 'POST',
      url: '/api/v3/roles/',
      payload: { name: 'Site approver', type: 1, permissions: ['nav_approval', 'nav_request'] },
    })
    assert.equal(created.statusCode, 201, created.body)
    const role = created.json().data
    assert.deepEqual(role, {
      id: role.id,
      name: 'Site approver',
      type: 1,
      tier: 'Basic',
      permissions: ['nav_approval', 'nav_request'],
    })
    assert.match(String(created.headers.location), new RegExp(`/api/v3/roles/${role.id}/$`))
    assert.deepEqual((await admin({ method: 'GET', url: `/api/v3/roles/${role.id}/` })).json().data, role)
    const listed = await admin({ method: 'GET', url: '/api/v3/roles/?page_size=100' })
    assert.ok(listed.json().data.some((r: { id: number }) => r.id === role.id))

    const replaced = await admin({
      method: 'PUT',
      url: `/api/v3/roles/${role.id}`,
      payload: { ...role, name: 'Approver East', permissions: ['nav_approval'] },
    })
    assert.equal(replaced.statusCode, 200, replaced.body)
    assert.deepEqual(replaced.json().data.permissions, ['nav_approval'])
    assert.equal(replaced.json().data.name, 'Approver East')

    assert.equal((await admin({ method: 'DELETE', url: `/api/v3/roles/${role.id}/` })).statusCode, 204)
    assert.equal((await admin({ method: 'GET', url: `/api/v3/roles/${role.id}/` })).statusCode, 404)
  })

  test('a role in use cannot be deleted (409); a duplicate name or an unknown key is a 400', async () => {
    await createUser(admin, 'holder@roles.test', requesterRole)
    const inUse = await admin({ method: 'DELETE', url: `/api/v3/roles/${requesterRole}/` })
    assert.equal(inUse.statusCode, 409, inUse.body)
    assert.match(inUse.json().detail, /in use/)
    const dup = await admin({ method: 'POST', url: '/api/v3/roles/', payload: { name: 'requester', permissions: [] } })
    assert.equal(dup.statusCode, 409, dup.body)
    assert.match(dup.json().detail, /already has a role named requester/)
    const bad = await admin({
      method: 'POST',
      url: '/api/v3/roles/',
      payload: { name: 'X', permissions: ['__proto__'] },
    })
    assert.equal(bad.statusCode, 400)
  })

  test('nobody creates or edits a role with permissions they lack (403, nothing written)', async () => {
    const denied = await manager({
      method: 'POST',
      url: '/api/v3/roles/',
      payload: { name: 'Sneaky', permissions: ['nav_setting', 'superuser'] },
    })
    assert.equal(denied.statusCode, 403, denied.body)
    assert.match(denied.json().detail, /superuser/)
    const names = (await admin({ method: 'GET', url: '/api/v3/roles/?search=Sneaky' })).json().data
    assert.deepEqual(names, [])
    const admins = await roleId(ctx, tenant, 'Administrator')
    const edit = await manager({
      method: 'PUT',
      url: `/api/v3/roles/${admins}/`,
      payload: { name: 'Administrator', permissions: ['nav_request'] },
    })
    assert.equal(edit.statusCode, 403, edit.body)
    const ok = await manager({
      method: 'POST',
      url: '/api/v3/roles/',
      payload: { name: 'Req2', permissions: ['nav_request'] },
    })
    assert.equal(ok.statusCode, 201, ok.body)
  })
})

describe('grants, role_id and re-activation', () => {
  test('location-roles: read, replace, validated, contained', async () => {
    const u = await createUser(admin, 'granted@roles.test', requesterRole)
    const url = `/api/v3/users/${u.profileId}/location-roles/`
    assert.deepEqual((await admin({ method: 'GET', url })).json().data, [])
    const approver = await roleId(ctx, tenant, 'Approver')
    const put = await admin({ method: 'PUT', url, payload: [{ location, role: approver }] })
    assert.equal(put.statusCode, 200, put.body)
    assert.deepEqual(put.json().data, [{ location, role: approver }])
    assert.deepEqual((await admin({ method: 'GET', url })).json().data, [{ location, role: approver }])

    const unknown = await admin({ method: 'PUT', url, payload: [{ location: 999999, role: approver }] })
    assert.equal(unknown.statusCode, 400)
    assert.deepEqual(Object.keys(unknown.json().errors), ['0.location'])
    const contained = await manager({ method: 'PUT', url, payload: [{ location, role: approver }] })
    assert.equal(contained.statusCode, 403, contained.body)
    assert.match(contained.json().detail, /nav_approval/)
    assert.deepEqual((await admin({ method: 'GET', url })).json().data, [{ location, role: approver }])

    assert.equal((await admin({ method: 'PUT', url, payload: [] })).statusCode, 200)
    assert.deepEqual((await admin({ method: 'GET', url })).json().data, [])
    assert.equal((await admin({ method: 'GET', url: '/api/v3/users/999999/location-roles/' })).statusCode, 404)
  })

  test('role_id on the single form and on PUT, under containment', async () => {
    const approver = await roleId(ctx, tenant, 'Approver')
    const single = {
      email: 'single@roles.test',
      firstName: 'Sam',
      lastName: 'Single',
      location: null,
      department: null,
      role_id: approver,
    }
    const created = await admin({ method: 'POST', url: '/api/v3/users/', payload: single })
    assert.equal(created.statusCode, 201, created.body)
    const profile = created.json().data
    assert.equal(profile.role.id, approver)
    const put = await admin({
      method: 'PUT',
      url: `/api/v3/users/${profile.id}/`,
      payload: { ...single, role_id: requesterRole },
    })
    assert.equal(put.statusCode, 200, put.body)
    assert.equal(put.json().data.role.id, requesterRole)
    const kept = await admin({
      method: 'PUT',
      url: `/api/v3/users/${profile.id}/`,
      payload: { ...single, role_id: undefined },
    })
    assert.equal(kept.json().data.role.id, requesterRole)
    const denied = await manager({
      method: 'PUT',
      url: `/api/v3/users/${profile.id}/`,
      payload: { ...single, role_id: approver },
    })
    assert.equal(denied.statusCode, 403, denied.body)
    const viaManager = await manager({
      method: 'POST',
      url: '/api/v3/users/',
      payload: { ...single, email: 'other@roles.test', role_id: approver },
    })
    assert.equal(viaManager.statusCode, 403, viaManager.body)
  })

  test('activate re-activates a deactivated user', async () => {
    const u = await createUser(admin, 'away@roles.test', requesterRole)
    assert.equal((await admin({ method: 'DELETE', url: `/api/v3/users/${u.profileId}/` })).statusCode, 204)
    const off = await admin({ method: 'GET', url: `/api/v3/users/${u.profileId}/` })
    assert.equal(off.json().data.is_active, false)
    const on = await admin({ method: 'POST', url: `/api/v3/users/${u.profileId}/activate/` })
    assert.equal(on.statusCode, 200, on.body)
    assert.equal(on.json().data.is_active, true)
    assert.equal((await admin({ method: 'POST', url: '/api/v3/users/999999/activate/' })).statusCode, 404)
  })
})
