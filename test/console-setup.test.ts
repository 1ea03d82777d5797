/**
 * Settings → Set-up in the console (issue #33): departments, currencies, the vendor look-ups, roles and
 * approval rules, added and edited through forms that say what to fix in sentences; managers only.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { useTestApp } from './helpers/app.ts'
import { adminBrowser, apiAs, createUser, newTenant, roleId, userBrowser } from './helpers/security.ts'

const ctx = useTestApp()
const visible = (body: string) => body.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ')

describe('Settings → Set-up', () => {
  test('every page opens for an administrator; the menu leads there; others are refused', async () => {
    const tenant = await newTenant(ctx)
    const b = await adminBrowser(ctx, tenant)
    const index = await b.get('/console/settings/setup')
    assert.equal(index.statusCode, 200)
    assert.match(index.body, /href="\/console\/settings\/setup"[^>]*>Set-up</)
    for (const kind of [
      'roles',
      'approval-rules',
      'departments',
      'currencies',
      'payment-terms',
      'shipping-terms',
      'payment-methods',
      'shipping-methods',
    ]) {
      assert.match(index.body, new RegExp(`href="/console/settings/setup/${kind}"`))
      const response = await b.get(`/console/settings/setup/${kind}`)
      assert.equal(response.statusCode, 200, `${kind}: ${response.body.slice(0, 200)}`)
      assert.match(response.body, /<h2 id="add">Add<\/h2>/)
    }
    const admin = await apiAs(ctx, tenant, tenant.adminUserId)
    await createUser(admin, `req@${tenant.domain}.test`, await roleId(ctx, tenant, 'Requester'))
    const requester = await userBrowser(ctx, tenant, `req@${tenant.domain}.test`)
    assert.equal((await requester.get('/console/settings/setup/currencies')).statusCode, 403)
    assert.doesNotMatch((await requester.get('/console/account')).body, /href="\/console\/settings\/setup/)
  })

  test('currencies: add EUR, a mistake said in words, the base currency kept', async () => {
    const tenant = await newTenant(ctx)
    const b = await adminBrowser(ctx, tenant)
    const page = '/console/settings/setup/currencies'
    const bad = await b.submit(page, page, { name: 'eur', rate: '1,08', active: 'on' })
    assert.equal(bad.statusCode, 400)
    assert.match(visible(bad.body), /must be a three-letter currency code in capitals, like EUR/)
    assert.match(visible(bad.body), /must be a decimal number like 1\.085 \(up to 6 decimals\)/)
    assert.match(bad.body, /value="eur"/, 'what was typed is kept')
    const ok = await b.submit(page, page, { name: 'EUR', description: 'Euro', rate: '1.08', active: 'on' })
    assert.equal(ok.statusCode, 303, ok.body.slice(0, 300))
    const list = visible((await b.get(`${page}?done=saved`)).body)
    assert.match(list, /Saved\./)
    assert.match(list, /EUR Euro 1\.08/)
    assert.match(
      visible((await b.get(page)).body),
      /Units of this currency per one USD\. For example, 1 USD = 1\.08 EUR: enter 1\.08 for EUR\./,
      'the rate hint says which way the rate goes, with the tenant’s own example',
    )
    const usd = /href="\/console\/settings\/setup\/currencies\/(\d+)">USD</.exec((await b.get(page)).body)![1]
    const retire = await b.submit(`${page}/${usd}`, `${page}/${usd}`, { name: 'USD', rate: '1' })
    assert.equal(retire.statusCode, 409)
    assert.match(visible(retire.body), /USD is the base currency: it cannot be deactivated\./)
  })

  test('departments and vendor look-ups: added, renamed, retired', async () => {
    const tenant = await newTenant(ctx)
    const b = await adminBrowser(ctx, tenant)
    const departments = '/console/settings/setup/departments'
    const location = /<option value="(\d+)"/.exec((await b.get(departments)).body)![1]!
    assert.equal(
      (await b.submit(departments, departments, { name: 'Facilities', location, active: 'on' })).statusCode,
      303,
    )
    const blank = await b.submit(departments, departments, { name: ' ', location, active: 'on' })
    assert.equal(blank.statusCode, 400)
    assert.match(visible(blank.body), /Name: must not be empty Name/, 'one message for one problem')
    const terms = '/console/settings/setup/payment-terms'
    assert.equal(
      (await b.submit(terms, terms, { name: 'Net 45', description: 'In 45 days', active: 'on' })).statusCode,
      303,
    )
    const id = /href="\/console\/settings\/setup\/payment-terms\/(\d+)">Net 45</.exec((await b.get(terms)).body)![1]
    const edit = await b.get(`${terms}/${id}`)
    assert.match(edit.body, /value="Net 45"/)
    assert.equal((await b.submit(`${terms}/${id}`, `${terms}/${id}`, { name: 'Net 60' })).statusCode, 303)
    assert.match(visible((await b.get(terms)).body), /Net 60 Inactive/)
  })

  test('roles with permissions as checkboxes, and an approval rule naming its approvers', async () => {
    const tenant = await newTenant(ctx)
    const b = await adminBrowser(ctx, tenant)
    const roles = '/console/settings/setup/roles'
    const form = (await b.get(roles)).body
    assert.match(visible(form), /Approval — approve requests/)
    const made = await b.submit(roles, roles, {
      name: 'Site approver',
      type: '1',
      'permissions.nav_request': 'on',
      'permissions.nav_approval': 'on',
    })
    assert.equal(made.statusCode, 303, made.body.slice(0, 300))
    assert.match(visible((await b.get(roles)).body), /Site approver Approval, Request Approver/)

    const rules = '/console/settings/setup/approval-rules'
    const approver = new RegExp(`name="approvers\\.(\\d+)"`).exec((await b.get(rules)).body)![1]!
    const wrong = await b.submit(rules, rules, { location: '', min_total: '249,50', step: '1', active: 'on' })
    assert.equal(wrong.statusCode, 400)
    assert.match(visible(wrong.body), /must be a decimal number like 19\.99 \(up to 4 decimals\)/)
    assert.match(visible(wrong.body), /Approvers: must not be empty/)
    const rule = await b.submit(rules, rules, {
      location: '',
      min_total: '500',
      step: '2',
      [`approvers.${approver}`]: 'on',
      active: 'on',
    })
    assert.equal(rule.statusCode, 303, rule.body.slice(0, 300))
    assert.match(visible((await b.get(rules)).body), /Step 2 · every location Request 500 Ada/, 'request by default')
  })

  test('an approval rule for bills: the document chosen, listed, read back by the API, changed, checked', async () => {
    const tenant = await newTenant(ctx)
    const b = await adminBrowser(ctx, tenant)
    const rules = '/console/settings/setup/approval-rules'
    const form = (await b.get(rules)).body
    assert.match(visible(form), /Document/)
    assert.match(form, /<option value="purchase_order"[^>]*>Purchase order<\/option>/)
    const approver = /name="approvers\.(\d+)"/.exec(form)![1]!
    const fields = { location: '', min_total: '750', step: '3', [`approvers.${approver}`]: 'on', active: 'on' }
    const wrong = await b.submit(rules, rules, { ...fields, document: 'invoice' })
    assert.equal(wrong.statusCode, 400)
    assert.match(visible(wrong.body), /Document/)
    const made = await b.submit(rules, rules, { ...fields, document: 'bill' })
    assert.equal(made.statusCode, 303, made.body.slice(0, 300))
    assert.match(visible((await b.get(rules)).body), /Step 3 · every location Bill 750/)
    const admin = await apiAs(ctx, tenant, tenant.adminUserId)
    const listed = await admin({ method: 'GET', url: '/api/v3/approval-rules/?document=bill' })
    assert.equal(listed.statusCode, 200, listed.body)
    const rule = listed.json<{ data: { id: number; document: string }[] }>().data
    assert.equal(rule.length, 1)
    assert.equal(rule[0]!.document, 'bill')
    const edit = `${rules}/${rule[0]!.id}`
    assert.match((await b.get(edit)).body, /<option value="bill" selected/)
    assert.equal((await b.submit(edit, edit, { ...fields, document: 'purchase_order' })).statusCode, 303)
    const after = await admin({ method: 'GET', url: '/api/v3/approval-rules/?document=purchase_order' })
    assert.deepEqual(
      after.json<{ data: { id: number }[] }>().data.map((r) => r.id),
      [rule[0]!.id],
      'the same rule, now for purchase orders',
    )
    assert.match(visible((await b.get(rules)).body), /Step 3 · every location Purchase order 750/)
  })

  test('every document the engine routes is offered by name, and a rule for one is edited without changing it', async () => {
    const tenant = await newTenant(ctx)
    const b = await adminBrowser(ctx, tenant)
    const rules = '/console/settings/setup/approval-rules'
    const form = (await b.get(rules)).body
    const offered = [...form.matchAll(/<option value="([a-z_]+)"[^>]*>([^<]+)<\/option>/g)].map((m) => [m[1], m[2]])
    for (const [value, label] of [
      ['request', 'Request'],
      ['purchase_order', 'Purchase order'],
      ['bill', 'Bill'],
      ['expense_report', 'Expense report'],
      ['travel_request', 'Travel request'],
      ['payment_request', 'Payment request'],
      ['payment_run', 'Payment run'],
    ])
      assert.ok(
        offered.some(([v, l]) => v === value && l === label),
        `${value} offered as ${label}`,
      )
    const approver = /name="approvers\.(\d+)"/.exec(form)![1]!
    const fields = { location: '', min_total: '40', step: '1', [`approvers.${approver}`]: 'on', active: 'on' }
    assert.equal((await b.submit(rules, rules, { ...fields, document: 'expense_report' })).statusCode, 303)
    assert.match(visible((await b.get(rules)).body), /Step 1 · every location Expense report 40/)
    const admin = await apiAs(ctx, tenant, tenant.adminUserId)
    const [rule] = (await admin({ method: 'GET', url: '/api/v3/approval-rules/?document=expense_report' })).json<{
      data: { id: number }[]
    }>().data
    const edit = `${rules}/${rule!.id}`
    assert.match((await b.get(edit)).body, /<option value="expense_report" selected/)
    assert.equal(
      (await b.submit(edit, edit, { ...fields, min_total: '45', document: 'expense_report' })).statusCode,
      303,
    )
    const after = await admin({ method: 'GET', url: `/api/v3/approval-rules/${rule!.id}/` })
    assert.equal(after.json().data.document, 'expense_report', 'still a rule for expense reports')
    assert.equal(after.json().data.min_total, '45')
  })
})
