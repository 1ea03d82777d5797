/**
 * What the request and approval tests share: a tenant with two locations (A, the headquarters, and B), the
 * standard roles, and users made through the API the way an administrator would — each holding its
 * permissions at the locations the test needs — plus shortcuts for requests, rules and decisions.
 */
import assert from 'node:assert/strict'
import type { TestContext } from './app.ts'
import { apiAs, newTenant, roleId, type Api, type Tenant } from './security.ts'

const address = (name: string) => ({
  name,
  addressLineOne: `${name} street 1`,
  city: 'Springfield',
  postalCode: '12345',
  country: 'United States',
})

export interface Setup {
  tenant: Tenant
  admin: Api
  A: number
  B: number
  departmentA: number
  roles: { Requester: number; Approver: number; Buyer: number }
  /** Adds a user through the API: profile `role` at `home` (or no location), grants per location; returns its ids and API. */
  user(name: string, role: number, home: number | null, grants?: { location: number; role: number }[]): Promise<Person>
}
export interface Person {
  profileId: number
  userId: number
  api: Api
}

export async function setUp(ctx: TestContext): Promise<Setup> {
  const tenant = await newTenant(ctx)
  const admin = await apiAs(ctx, tenant, tenant.adminUserId)
  const locations = (await admin({ method: 'GET', url: '/api/v3/locations/' })).json().data
  const A = locations[0].id as number
  const created = await admin({
    method: 'POST',
    url: '/api/v2/locations/',
    payload: {
      name: 'Branch B',
      currency: 'USD',
      phoneOne: '+1 555 0100',
      primary_billing_address: address('Billing'),
      primary_shipping_address: address('Receiving'),
    },
  })
  assert.equal(created.statusCode, 201, created.body)
  const B = created.json().data.id as number
  const departments = (await admin({ method: 'GET', url: `/api/v3/departments/?location=${A}` })).json().data
  const roles = {
    Requester: await roleId(ctx, tenant, 'Requester'),
    Approver: await roleId(ctx, tenant, 'Approver'),
    Buyer: await roleId(ctx, tenant, 'Buyer'),
  }
  return {
    tenant,
    admin,
    A,
    B,
    departmentA: departments[0].id,
    roles,
    async user(name, role, home, grants = []) {
      const response = await admin({
        method: 'POST',
        url: '/api/v3/users/',
        payload: {
          email: `${name}@${tenant.domain}.test`,
          firstName: name,
          lastName: 'Tester',
          location: home,
          department: null,
          role_id: role,
        },
      })
      assert.equal(response.statusCode, 201, response.body)
      const profile = response.json().data as { id: number; user: number }
      if (grants.length > 0) {
        const put = await admin({ method: 'PUT', url: `/api/v3/users/${profile.id}/location-roles/`, payload: grants })
        assert.equal(put.statusCode, 200, put.body)
      }
      return { profileId: profile.id, userId: profile.user, api: await apiAs(ctx, tenant, profile.user) }
    },
  }
}

export const line = (quantity: string, unit_price: string, description = 'Item') => ({
  description,
  quantity,
  unit_price,
})

/** Creates a draft at `location` as `api`; asserts 201 and returns the request. */
export async function draft(api: Api, location: number, lines = [line('3', '19.99')], extra: object = {}) {
  const response = await api({ method: 'POST', url: '/api/v3/requests/', payload: { location, lines, ...extra } })
  assert.equal(response.statusCode, 201, response.body)
  return response.json().data
}

export const submit = (api: Api, id: number) => api({ method: 'POST', url: `/api/v3/requests/${id}/submit/` })

export async function rule(admin: Api, body: object) {
  const response = await admin({ method: 'POST', url: '/api/v3/approval-rules/', payload: body })
  assert.equal(response.statusCode, 201, response.body)
  return response.json().data
}

export const decide = (api: Api, id: number, verdict: 'approve' | 'reject', comment?: string) =>
  api({
    method: 'POST',
    url: `/api/v3/approvals/${id}/${verdict}/`,
    ...(comment === undefined ? {} : { payload: { comment } }),
  })

export const pendingOrders = async (api: Api) =>
  (await api({ method: 'GET', url: '/api/v3/users/me/' })).json().data.pending_approvals_count.order as number
