/**
 * Administering a tenant without SQL (issue #33, DECISIONS "Administering a tenant without SQL"): the demo
 * tenant's first request by its administrator submits and lands in someone's inbox.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { signedIn, useTestApp } from './helpers/app.ts'

const ctx = useTestApp()

describe('the demo tenant', () => {
  test("the administrator's first request at the Head Office submits and waits in the manager's inbox", async () => {
    const admin = await signedIn(ctx, 'admin')
    const manager = await signedIn(ctx, 'manager', admin.tenant)
    const locations = (await admin.api({ method: 'GET', url: '/api/v3/locations/?order_by=id' })).json().data
    const headOffice = locations[0].id as number
    const before = (await manager.api({ method: 'GET', url: '/api/v3/users/me/' })).json().data.pending_approvals_count
      .order
    const draft = await admin.api({
      method: 'POST',
      url: '/api/v3/requests/',
      payload: {
        location: headOffice,
        description: 'A first request',
        lines: [{ description: 'Chair', quantity: '1', unit_price: '1200' }],
      },
    })
    assert.equal(draft.statusCode, 201, draft.body)
    const submitted = await admin.api({ method: 'POST', url: `/api/v3/requests/${draft.json().data.id}/submit/` })
    assert.equal(submitted.statusCode, 200, submitted.body)
    const approval = submitted.json().data.approvals[0]
    assert.deepEqual(
      approval.candidates.map((c: { email: string }) => c.email),
      ['manager@example.com'],
    )
    const inbox = (await manager.api({ method: 'GET', url: '/api/v3/approvals/?approver=me&status=pending' })).json()
    assert.ok(inbox.data.some((a: { id: number }) => a.id === approval.id))
    const after = (await manager.api({ method: 'GET', url: '/api/v3/users/me/' })).json().data.pending_approvals_count
      .order
    assert.equal(after, before + 1)
    // Over 1,000: step 2 follows step 1. Its approvers are the admin (the requester) and the manager, who approved
    // step 1 and so is no candidate of it (DECISIONS, "Rules are checked when saved"): it is approved at once, in
    // the manager's name.
    const approved = await manager.api({
      method: 'POST',
      url: `/api/v3/approvals/${approval.id}/approve/`,
      payload: {},
    })
    assert.equal(approved.statusCode, 200, approved.body)
    const request = (await admin.api({ method: 'GET', url: `/api/v3/requests/${draft.json().data.id}/` })).json().data
    assert.equal(request.approvals[1].status, 'approved')
    assert.equal(request.approvals[1].comment, 'Approved at step 1')
  })
})

describe('look-ups written through the API', () => {
  test('departments: create, rename, deactivate; names unique per location; only superuser or nav_setting', async () => {
    const admin = await signedIn(ctx, 'admin')
    const requester = await signedIn(ctx, 'requester', admin.tenant)
    const location = (
      await admin.api({ method: 'POST', url: '/api/v2/locations/', payload: newLocation('Depot') })
    ).json().data.id as number
    const count = async () =>
      (await admin.api({ method: 'GET', url: `/api/v3/locations/${location}/` })).json().data.department_count
    assert.equal(await count(), 0)
    const created = await admin.api({
      method: 'POST',
      url: '/api/v3/departments/',
      payload: { name: ' Facilities ', location },
    })
    assert.equal(created.statusCode, 201, created.body)
    const department = created.json().data
    assert.equal(department.name, 'Facilities')
    assert.deepEqual(department.branch, { id: location, name: 'Depot', headquarter: false })
    assert.equal(department.active, true)
    assert.match(created.headers.location as string, new RegExp(`/api/v3/departments/${department.id}/$`))
    assert.equal(await count(), 1)
    const listed = (await admin.api({ method: 'GET', url: `/api/v3/departments/?location=${location}` })).json().data
    assert.deepEqual(listed, [department])

    const duplicate = await admin.api({
      method: 'POST',
      url: '/api/v3/departments/',
      payload: { name: 'FACILITIES', location },
    })
    assert.equal(duplicate.statusCode, 409, duplicate.body)
    assert.equal(
      duplicate.json().detail,
      `Location ${location} already has a department named FACILITIES; choose another name.`,
    )
    const nowhere = await admin.api({
      method: 'POST',
      url: '/api/v3/departments/',
      payload: { name: 'X', location: 999999 },
    })
    assert.equal(nowhere.statusCode, 400)
    assert.deepEqual(nowhere.json().errors, { location: ['there is no location 999999'] })
    const blank = await admin.api({ method: 'POST', url: '/api/v3/departments/', payload: { name: '   ', location } })
    assert.deepEqual(blank.json().errors, { name: ['must not be blank'] })
    assert.equal(
      (await requester.api({ method: 'POST', url: '/api/v3/departments/', payload: { name: 'Y', location } }))
        .statusCode,
      403,
    )

    const url = `/api/v3/departments/${department.id}/`
    const renamed = await admin.api({
      method: 'PUT',
      url,
      payload: { name: 'Facilities & Grounds', location, external_id: 'FG' },
    })
    assert.equal(renamed.statusCode, 200, renamed.body)
    assert.equal(renamed.json().data.external_id, 'FG')
    const retired = await admin.api({
      method: 'PUT',
      url,
      payload: { name: 'Facilities & Grounds', location, active: false },
    })
    assert.equal(retired.json().data.active, false)
    assert.equal(retired.json().data.external_id, '', 'a PUT replaces: omitted fields take their defaults')
    assert.equal(await count(), 0)
    assert.equal(
      (await admin.api({ method: 'PUT', url: '/api/v3/departments/999999/', payload: { name: 'Z', location } }))
        .statusCode,
      404,
    )
    assert.deepEqual(await auditActions(admin.tenant.tenantId, 'department', department.id), [
      'department.create',
      'department.replace',
      'department.replace',
    ])
  })

  test('currencies: a company adds one (JPY here); the base currency cannot be deactivated or re-rated', async () => {
    const admin = await signedIn(ctx, 'admin')
    const created = await admin.api({
      method: 'POST',
      url: '/api/v2/currencies/',
      payload: { name: 'JPY', description: 'Yen', rate: '0.0067' },
    })
    assert.equal(created.statusCode, 201, created.body)
    const jpy = created.json().data
    assert.equal(jpy.name, 'JPY')
    assert.equal(Number(jpy.rate), 0.0067)
    assert.equal(jpy.base, false)
    for (const [payload, field, message] of [
      [{ name: 'jpy', rate: '1' }, 'name', 'must be a three-letter currency code in capitals, like EUR'],
      [{ name: 'CHF', rate: '1,05' }, 'rate', 'must be a decimal number like 1.085 (up to 6 decimals)'],
      [{ name: 'CHF', rate: '0' }, 'rate', 'must be more than 0'],
      [{ name: 'CHF' }, 'rate', 'is required'],
    ] as const) {
      const response = await admin.api({ method: 'POST', url: '/api/v2/currencies/', payload })
      assert.equal(response.statusCode, 400, JSON.stringify(payload))
      assert.deepEqual(response.json().errors[field], [message], JSON.stringify(payload))
    }
    const twice = await admin.api({ method: 'POST', url: '/api/v2/currencies/', payload: { name: 'JPY', rate: '1' } })
    assert.equal(twice.statusCode, 409, twice.body)
    assert.equal(
      twice.json().detail,
      'The tenant already has the currency JPY; each code is listed once, so change that one instead.',
    )
    const usd = (await admin.api({ method: 'GET', url: '/api/v2/currencies/?base=true' })).json().data[0]
    const baseUrl = `/api/v2/currencies/${usd.id}/`
    // The base currency's code is what every order and bill is in: it cannot change (nothing written).
    const recoded = await admin.api({ method: 'PUT', url: baseUrl, payload: { name: 'EUR', rate: usd.rate } })
    assert.equal(recoded.statusCode, 409, recoded.body)
    assert.match(recoded.json().detail, /^USD is the base currency: its code cannot change/)
    const stillBase = (await admin.api({ method: 'GET', url: '/api/v2/currencies/?base=true' })).json().data[0]
    assert.equal(stillBase.name, 'USD')
    const off = await admin.api({
      method: 'PUT',
      url: baseUrl,
      payload: { name: 'USD', rate: usd.rate, active: false },
    })
    assert.equal(off.statusCode, 409)
    assert.match(off.json().detail, /base currency: it cannot be deactivated/)
    const rerated = await admin.api({ method: 'PUT', url: baseUrl, payload: { name: 'USD', rate: '2' } })
    assert.equal(rerated.statusCode, 409)
    const described = await admin.api({
      method: 'PUT',
      url: baseUrl,
      payload: { name: 'USD', rate: '1', description: 'US dollar' },
    })
    assert.equal(described.statusCode, 200, described.body)
    assert.equal(described.json().data.description, 'US dollar')
    assert.equal(described.json().data.rate, usd.rate)
    const moved = await admin.api({
      method: 'PUT',
      url: `/api/v2/currencies/${jpy.id}/`,
      payload: { name: 'JPY', rate: '0.0068', active: false },
    })
    assert.equal(moved.statusCode, 200, moved.body)
    assert.equal(moved.json().data.active, false)
    assert.equal(Number(moved.json().data.rate), 0.0068)
    assert.deepEqual(await auditActions(admin.tenant.tenantId, 'currency', jpy.id), [
      'currency.create',
      'currency.replace',
    ])
  })

  for (const [path, field] of [
    ['payment-terms', 'payment_term_ref'],
    ['shipping-terms', 'shipping_term_ref'],
    ['payment-methods', 'payment_method_ref'],
    ['shipping-methods', 'shipping_method_ref'],
  ] as const) {
    test(`${path}: create, rename (vendors show the new name at once), deactivate`, async () => {
      const admin = await signedIn(ctx, 'admin')
      const requester = await signedIn(ctx, 'requester', admin.tenant)
      const created = await admin.api({
        method: 'POST',
        url: `/api/v3/${path}/`,
        payload: { name: 'Net 45', description: 'Due in 45 days' },
      })
      assert.equal(created.statusCode, 201, created.body)
      const row = created.json().data
      assert.deepEqual(row, { id: row.id, name: 'Net 45', description: 'Due in 45 days', active: true })
      const again = await admin.api({ method: 'POST', url: `/api/v3/${path}/`, payload: { name: 'net 45' } })
      assert.equal(again.statusCode, 409, again.body)
      assert.match(again.json().detail, /named net 45 already exists; choose another name\.$/)
      assert.equal(
        (await requester.api({ method: 'POST', url: `/api/v3/${path}/`, payload: { name: 'Mine' } })).statusCode,
        403,
      )
      const vendor = await admin.api({
        method: 'POST',
        url: '/api/v3/vendors/',
        payload: { name: `Uses ${path}`, [field]: row.id },
      })
      assert.equal(vendor.statusCode, 201, vendor.body)
      const renamed = await admin.api({
        method: 'PUT',
        url: `/api/v3/${path}/${row.id}/`,
        payload: { name: 'Net 60', active: false },
      })
      assert.equal(renamed.statusCode, 200, renamed.body)
      assert.deepEqual(renamed.json().data, { id: row.id, name: 'Net 60', description: '', active: false })
      const shown = (await admin.api({ method: 'GET', url: `/api/v3/vendors/${vendor.json().data.id}/` })).json().data[
        field
      ]
      assert.equal(shown.name, 'Net 60')
      assert.equal(
        (await admin.api({ method: 'PUT', url: `/api/v3/${path}/999999/`, payload: { name: 'Z' } })).statusCode,
        404,
      )
      const kind = path.slice(0, -1).replace('-', '_')
      assert.deepEqual(await auditActions(admin.tenant.tenantId, kind, row.id), [`${kind}.create`, `${kind}.replace`])
    })
  }
})

const address = (name: string) => ({
  name,
  addressLineOne: '1 Main St',
  city: 'Springfield',
  postalCode: '12345',
  country: 'United States',
})
const newLocation = (name: string) => ({
  name,
  currency: 'USD',
  phoneOne: '+1 555 0100',
  primary_billing_address: address('Billing'),
  primary_shipping_address: address('Shipping'),
})

async function auditActions(tenantId: number, resourceType: string, id: number): Promise<string[]> {
  const rows = await ctx.database.db
    .selectFrom('audit_log')
    .select('action')
    .where('tenant_id', '=', tenantId)
    .where('resource_type', '=', resourceType)
    .where('resource_id', '=', String(id))
    .orderBy('id')
    .execute()
  return rows.map((r) => r.action)
}
