/**
 * Set-up's roles page deletes a role no one holds and says who holds one in use; the procurement settings are
 * edited on their own Set-up page (DECISIONS, "Daily use of the console"; issue #52) — through the console's
 * HTTP surface, read back through the API.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { useTestApp } from './helpers/app.ts'
import {
  adminBrowser,
  apiAs,
  createUser,
  newTenant,
  roleId,
  roleWith,
  userBrowser,
  type Api,
  type Tenant,
} from './helpers/security.ts'

const ctx = useTestApp()
const visible = (body: string) =>
  body
    .replace(/<[^>]+>/g, ' ')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ')
/** A field's input id, as the console's forms make it (views/forms.ts fieldId). */
const inputId = (name: string) => `f-${name.replace(/_/g, '-')}`
const ROLES = '/console/settings/setup/roles'
const SETTINGS = '/console/settings/setup/procurement-settings'

const roleNames = async (api: Api) => {
  const listed = await api({ method: 'GET', url: '/api/v3/roles/?page_size=100' })
  assert.equal(listed.statusCode, 200, listed.body)
  return listed.json<{ data: { name: string }[] }>().data.map((r) => r.name)
}

/** A user made through the API with a name and a profile role. */
async function person(api: Api, tenant: Tenant, first: string, last: string, role: number) {
  const email = `${first.toLowerCase()}@${tenant.domain}.test`
  const made = await api({
    method: 'POST',
    url: '/api/v3/users/',
    payload: [{ email, first_name: first, last_name: last, role_id: role }],
  })
  assert.equal(made.statusCode, 201, made.body)
  const [profile] = made.json<{ data: { id: number }[] }>().data
  return { profileId: profile!.id, email }
}

const auditOf = (tenant: Tenant, action: string) =>
  ctx.database.db
    .selectFrom('audit_log')
    .select(['action', 'changes', 'resource_id'])
    .where('tenant_id', '=', tenant.tenantId)
    .where('action', '=', action)
    .execute()

describe('Set-up: deleting a role', () => {
  test('a role no one holds: Delete on the list, a confirmation, gone from the API, audited from the console', async () => {
    const tenant = await newTenant(ctx)
    const b = await adminBrowser(ctx, tenant)
    const admin = await apiAs(ctx, tenant, tenant.adminUserId)
    const made = await b.submit(ROLES, ROLES, { name: 'Temporary', type: '0', 'permissions.nav_request': 'on' })
    assert.equal(made.statusCode, 303, made.body.slice(0, 300))
    const list = (await b.get(ROLES)).body
    const id = new RegExp(`href="${ROLES}/(\\d+)">Temporary<`).exec(list)![1]!
    assert.match(visible(list), /Held by/)
    assert.match(list, new RegExp(`No one · <a href="${ROLES}/${id}/delete">Delete`), 'the unused role offers Delete')
    assert.match(visible(list), /Administrator [^|]*? 1 person/, 'a role someone holds says how many')

    const edit = await b.get(`${ROLES}/${id}`)
    assert.match(visible(edit.body), /No one holds this role: you can delete it\./)
    assert.match(edit.body, new RegExp(`href="${ROLES}/${id}/delete">Delete role<`))

    const confirm = await b.get(`${ROLES}/${id}/delete`)
    assert.equal(confirm.statusCode, 200)
    assert.match(visible(confirm.body), /Delete the role “Temporary” \(Request\)\? No one holds it\./)
    assert.match(confirm.body, new RegExp(`<form method="post" action="${ROLES}/${id}/delete"`))
    assert.ok((await roleNames(admin)).includes('Temporary'), 'asking deletes nothing')

    const without = await b.post(`${ROLES}/${id}/delete`, {})
    assert.equal(without.statusCode, 403, 'no CSRF token, no delete')
    assert.ok((await roleNames(admin)).includes('Temporary'))

    const deleted = await b.post(`${ROLES}/${id}/delete`, { _csrf: b.csrfOf(confirm.body)! })
    assert.equal(deleted.statusCode, 303, deleted.body.slice(0, 300))
    assert.equal(deleted.headers.location, `${ROLES}?done=deleted`)
    const after = visible((await b.get(`${ROLES}?done=deleted`)).body)
    assert.match(after, /The role is deleted\./)
    assert.doesNotMatch(after, /Temporary/)
    assert.ok(!(await roleNames(admin)).includes('Temporary'), 'gone from the API’s list')
    assert.equal((await admin({ method: 'GET', url: `/api/v3/roles/${id}/` })).statusCode, 404)
    const audit = await auditOf(tenant, 'role.delete')
    assert.equal(audit.length, 1)
    assert.equal(audit[0]!.resource_id, id)
    assert.equal((audit[0]!.changes as { via?: string }).via, 'console')
    assert.equal((await b.get(`${ROLES}/${id}/delete`)).statusCode, 404, 'a deleted role has no page')
  })

  test('a role in use is kept: the page names who holds it and says to reassign them first', async () => {
    const tenant = await newTenant(ctx)
    const b = await adminBrowser(ctx, tenant)
    const admin = await apiAs(ctx, tenant, tenant.adminUserId)
    const role = await roleWith(ctx, tenant, 'Site buyer', ['nav_purchase'])
    const grace = await person(admin, tenant, 'Grace', 'Hopper', role)
    // Linus holds it only at the headquarters, granted there (his own role is Requester).
    const linus = await person(admin, tenant, 'Linus', 'Torvalds', await roleId(ctx, tenant, 'Requester'))
    const hq = (await admin({ method: 'GET', url: '/api/v3/locations/' })).json<{
      data: { id: number; name: string }[]
    }>().data[0]!
    const granted = await admin({
      method: 'PUT',
      url: `/api/v3/users/${linus.profileId}/location-roles/`,
      payload: [{ location: hq.id, role }],
    })
    assert.equal(granted.statusCode, 200, granted.body)

    const edit = visible((await b.get(`${ROLES}/${role}`)).body)
    assert.match(edit, /2 people hold this role: give them another role first\. Delete shows who they are\./)
    assert.match(visible((await b.get(ROLES)).body), /Site buyer Purchase Approver 2 people/)

    const page = await b.get(`${ROLES}/${role}/delete`)
    assert.equal(page.statusCode, 200)
    const text = visible(page.body)
    assert.match(text, /The role “Site buyer” cannot be deleted: 2 people hold it\. Reassign them first:/)
    assert.match(text, new RegExp(`Grace Hopper \\(${grace.email}\\) — as their role`))
    assert.match(text, new RegExp(`Linus Torvalds \\(${linus.email}\\) — at ${hq.name}`))
    assert.match(page.body, /href="\/console\/users\/\d+">Grace Hopper</, 'each holder links to their page')
    assert.doesNotMatch(page.body, /Delete role<\/button>/, 'nothing to confirm while it is held')

    // The delete posted anyway (from an older page, or by hand) is refused by the service: 409, the same names.
    const csrf = b.csrfOf((await b.get(`${ROLES}/${role}`)).body)!
    const refused = await b.post(`${ROLES}/${role}/delete`, { _csrf: csrf })
    assert.equal(refused.statusCode, 409)
    assert.match(visible(refused.body), /cannot be deleted: 2 people hold it\. Reassign them first/)
    assert.match(visible(refused.body), /Grace Hopper/)
    assert.equal((await admin({ method: 'GET', url: `/api/v3/roles/${role}/` })).statusCode, 200, 'still there')
    assert.equal((await auditOf(tenant, 'role.delete')).length, 0)
  })

  test('a role carrying a permission the person lacks: refused with the reason; others cannot reach it', async () => {
    const tenant = await newTenant(ctx)
    const admin = await apiAs(ctx, tenant, tenant.adminUserId)
    const root = await roleWith(ctx, tenant, 'Root', ['superuser'])
    const settings = await roleWith(ctx, tenant, 'Settings clerk', ['nav_setting'])
    await createUser(admin, `clerk@${tenant.domain}.test`, settings)
    const clerk = await userBrowser(ctx, tenant, `clerk@${tenant.domain}.test`)
    const page = await clerk.get(`${ROLES}/${root}/delete`)
    assert.equal(page.statusCode, 200)
    assert.match(
      visible(page.body),
      /You cannot delete the role “Root”\. Granting the role "Root" needs the superuser permission, which you do not hold: nobody grants more than they have\. Ask a superuser to delete it/,
    )
    assert.doesNotMatch(page.body, /Delete role<\/button>/)
    const refused = await clerk.post(`${ROLES}/${root}/delete`, { _csrf: clerk.csrfOf(page.body)! })
    assert.equal(refused.statusCode, 403)
    assert.match(visible(refused.body), /needs the superuser permission, which you do not hold/)
    assert.equal((await admin({ method: 'GET', url: `/api/v3/roles/${root}/` })).statusCode, 200, 'still there')

    await createUser(admin, `req@${tenant.domain}.test`, await roleId(ctx, tenant, 'Requester'))
    const requester = await userBrowser(ctx, tenant, `req@${tenant.domain}.test`)
    const unused = await roleWith(ctx, tenant, 'Unused', ['nav_request'])
    assert.equal((await requester.get(`${ROLES}/${unused}/delete`)).statusCode, 403)
    const csrf = requester.csrfOf((await requester.get('/console/account')).body)!
    assert.equal((await requester.post(`${ROLES}/${unused}/delete`, { _csrf: csrf })).statusCode, 403)
    assert.ok((await roleNames(admin)).includes('Unused'))
  })
})

describe('Set-up: procurement settings', () => {
  const good = {
    over_receipt_tolerance_percent: '2.5',
    po_approval_tolerance_percent: '15',
    price_tolerance_percent: '0.75',
    match_mode: 'two_way',
    receipt_required_over: '40.00',
  }
  const read = async (api: Api) => {
    const got = await api({ method: 'GET', url: '/api/v3/procurement-settings/' })
    assert.equal(got.statusCode, 200, got.body)
    return got.json<{ data: Record<string, string> }>().data
  }

  test('linked from Set-up; each field labelled and explained; saved, said, read back by the API', async () => {
    const tenant = await newTenant(ctx)
    const b = await adminBrowser(ctx, tenant)
    const admin = await apiAs(ctx, tenant, tenant.adminUserId)
    const index = await b.get('/console/settings/setup')
    assert.match(index.body, new RegExp(`href="${SETTINGS}">Procurement settings<`))

    const form = await b.get(SETTINGS)
    assert.equal(form.statusCode, 200)
    const text = visible(form.body)
    for (const [name, label] of [
      ['over_receipt_tolerance_percent', 'Over-receipt tolerance \\(%\\)'],
      ['po_approval_tolerance_percent', 'Order approval tolerance \\(%\\)'],
      ['price_tolerance_percent', 'Price tolerance \\(%\\)'],
      ['match_mode', 'Matching'],
      ['receipt_required_over', 'Receipt needed above \\(amount\\)'],
    ] as const) {
      assert.match(form.body, new RegExp(`<label for="${inputId(name)}"\\s*>${label}`), `${name} is labelled`)
      assert.match(form.body, new RegExp(`aria-describedby="${inputId(name)}-hint"`), `${name} has its help`)
    }
    assert.match(text, /in percent of its ordered quantity/)
    assert.match(text, /from 0 to 1000/)
    assert.match(text, /in the report’s own currency/)
    assert.match(form.body, /id="f-over-receipt-tolerance-percent"[^>]*value="0"/, 'the defaults to start from')
    assert.match(form.body, /id="f-receipt-required-over"[^>]*value="25.00"/)
    assert.match(form.body, /<option value="three_way" selected/)

    const saved = await b.submit(SETTINGS, SETTINGS, good)
    assert.equal(saved.statusCode, 303, saved.body.slice(0, 400))
    assert.equal(saved.headers.location, `${SETTINGS}?done=saved`)
    const shown = await b.get(saved.headers.location)
    assert.match(visible(shown.body), /Saved\./)
    assert.match(shown.body, /id="f-price-tolerance-percent"[^>]*value="0.75"/)
    assert.match(shown.body, /<option value="two_way" selected/)
    assert.deepEqual(await read(admin), good)
    const audit = await auditOf(tenant, 'procurement_settings.update')
    assert.equal(audit.length, 1)
    assert.equal((audit[0]!.changes as { via?: string }).via, 'console')
  })

  test('a bad value is refused on the form, as typed, and nothing changes', async () => {
    const tenant = await newTenant(ctx)
    const b = await adminBrowser(ctx, tenant)
    const admin = await apiAs(ctx, tenant, tenant.adminUserId)
    const before = await read(admin)
    const typed = await b.submit(SETTINGS, SETTINGS, {
      ...good,
      over_receipt_tolerance_percent: '1,5',
      receipt_required_over: '25.005',
    })
    assert.equal(typed.statusCode, 400)
    const text = visible(typed.body)
    assert.match(text, /There is a problem/)
    assert.match(text, /Over-receipt tolerance \(%\): must be a decimal number like 19\.99 \(up to 4 decimals\)/)
    assert.match(text, /Receipt needed above \(amount\): must be an amount like 25\.00 \(digits, up to 2 decimals/)
    assert.match(typed.body, /id="f-over-receipt-tolerance-percent"[^>]*aria-invalid="true"[^>]*value="1,5"/)
    assert.match(typed.body, /value="25.005"/, 'what was typed is kept')
    assert.match(typed.body, /value="0.75"/, 'and the fields that were right')

    const large = await b.submit(SETTINGS, SETTINGS, { ...good, price_tolerance_percent: '5000' })
    assert.equal(large.statusCode, 400)
    assert.match(visible(large.body), /Price tolerance \(%\): must be a percentage from 0 to 1000; 5000 is too large/)
    assert.match(large.body, /value="5000"/)
    assert.deepEqual(await read(admin), before, 'nothing changed')
    assert.equal((await auditOf(tenant, 'procurement_settings.update')).length, 0)
  })

  test('someone without superuser or nav_setting is refused; a settings clerk may change them', async () => {
    const tenant = await newTenant(ctx)
    const admin = await apiAs(ctx, tenant, tenant.adminUserId)
    await createUser(admin, `buyer@${tenant.domain}.test`, await roleId(ctx, tenant, 'Buyer'))
    const buyer = await userBrowser(ctx, tenant, `buyer@${tenant.domain}.test`)
    assert.equal((await buyer.get(SETTINGS)).statusCode, 403)
    const csrf = buyer.csrfOf((await buyer.get('/console/account')).body)!
    const posted = await buyer.post(SETTINGS, { _csrf: csrf, ...good })
    assert.equal(posted.statusCode, 403)
    assert.equal((await read(admin)).match_mode, 'three_way', 'unchanged')
    assert.doesNotMatch((await buyer.get('/console/settings/setup')).body, /Procurement settings/)

    await createUser(admin, `clerk@${tenant.domain}.test`, await roleWith(ctx, tenant, 'Clerk', ['nav_setting']))
    const clerk = await userBrowser(ctx, tenant, `clerk@${tenant.domain}.test`)
    assert.equal((await clerk.submit(SETTINGS, SETTINGS, good)).statusCode, 303)
    assert.equal((await read(admin)).match_mode, 'two_way')
  })
})
