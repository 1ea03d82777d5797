/**
 * Reports (DECISIONS, "Reports") from spend without an order: an approved expense report (one line in EUR,
 * converted to the base currency at the rate locked when it was submitted, one in USD) and an approved payment
 * request, with known amounts this test makes, read through HTTP by a holder of nav_report. They are `spent`
 * in the ledger, so they appear in the spend report (a payment request under its vendor and its requester; an
 * expense report under no vendor and its employee) and in the budgets report; the commitments report lists open
 * order lines only, so neither appears there. A draft counts nowhere, and a later change of the rate moves
 * nothing.
 */
import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import { useTestApp } from './helpers/app.ts'
import { setUp, type Person, type Setup } from './helpers/requests.ts'
import { BASE_DOMAIN, roleWith, type Api } from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' })
const today = new Date().toISOString().slice(0, 10)
const thisMonth = today.slice(0, 7)
const year = today.slice(0, 4)

// The tests read answers loosely: each assertion names the field it checks.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>
async function ok(api: Api, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object, status?: number) {
  const r = await api({ method, url, ...(payload === undefined ? {} : { payload }) })
  if (status === undefined) assert.ok(r.statusCode < 300, `${method} ${url}: ${r.statusCode} ${r.body}`)
  else assert.equal(r.statusCode, status, r.body)
  return r.json<{ data: Json; metadata: Json }>()
}
const report = (api: Api, query: string) => ok(api, 'GET', `/api/v3/reports/${query}`)

let s: Setup
let employee: Person
let reporter: Person
let eurId: number
let vendor: { id: number; name: string }
let account: { id: number; code: string; name: string }
let budget: { id: number; name: string }
let expenseReport: Json
let paymentRequest: Json

before(async () => {
  s = await setUp(ctx)
  employee = await s.user('employee', s.roles.Requester, s.A)
  const reports = await roleWith(ctx, s.tenant, 'Reports', ['nav_report'], 9)
  reporter = await s.user('reporter', reports, s.A)
  eurId = (await ok(s.admin, 'POST', '/api/v2/currencies/', { name: 'EUR', rate: '0.92' }, 201)).data.id as number
  // No receipts needed for these small lines' amounts (the rule is another test's).
  await ok(s.admin, 'PUT', '/api/v3/procurement-settings/', { receipt_required_over: '100000' })
  vendor = (await ok(s.admin, 'POST', '/api/v3/vendors/', { name: 'Venue Hall' }, 201)).data as typeof vendor
  account = (await ok(s.admin, 'POST', '/api/v3/accounts/', { code: 'R-6400', name: 'Events' }, 201))
    .data as typeof account
  budget = (
    await ok(
      s.admin,
      'POST',
      '/api/v3/budgets/',
      {
        name: 'Events this year',
        location: s.A,
        account: account.id,
        period_start: `${year}-01-01`,
        period_end: `${year}-12-31`,
        amount: '1000.00',
        action: 'warn',
      },
      201,
    )
  ).data as typeof budget

  // The expense report: 18.40 EUR at 0.92 = 20.00, and 12.35 USD: 32.35 in the base currency (USD).
  const made = await ok(
    employee.api,
    'POST',
    '/api/v3/expense-reports/',
    {
      location: s.A,
      title: 'Fair in Lyon',
      lines: [
        { date: today, merchant: 'Café', amount: '18.40', currency: 'EUR', account: account.id },
        { date: today, merchant: 'Taxi', amount: '12.35', account: account.id },
      ],
    },
    201,
  )
  expenseReport = (await ok(employee.api, 'POST', `/api/v3/expense-reports/${made.data.id}/submit/`)).data
  assert.equal(expenseReport.status, 'approved', 'no rule: approved at once')
  // A draft counts nowhere.
  await ok(
    employee.api,
    'POST',
    '/api/v3/expense-reports/',
    { location: s.A, lines: [{ date: today, amount: '7.00', account: account.id }] },
    201,
  )
  // The payment request: 250.00 USD to the vendor, by the administrator.
  const pay = await ok(
    s.admin,
    'POST',
    '/api/v3/payment-requests/',
    {
      location: s.A,
      vendor: vendor.id,
      amount: '250.00',
      account: account.id,
      invoice_number: 'DEP-1',
      reason: 'Venue deposit',
    },
    201,
  )
  paymentRequest = (await ok(s.admin, 'POST', `/api/v3/payment-requests/${pay.data.id}/submit/`)).data
  assert.equal(paymentRequest.status, 'approved', 'no rule: approved at once')
  // EUR's rate changes after the submit: what was counted stays at 0.92.
  await ok(s.admin, 'PUT', `/api/v2/currencies/${eurId}/`, { name: 'EUR', rate: '0.80' })
})

describe('reports from expense reports and payment requests', () => {
  test('spend by vendor: the payment request under its vendor, the expense report under none (EUR at the locked rate)', async () => {
    const r = await report(reporter.api, 'spend/?group_by=vendor')
    assert.deepEqual(r.data, [
      { key: { id: vendor.id, name: 'Venue Hall' }, documents: 1, amount: '250.00' },
      { key: null, documents: 1, amount: '32.35' },
    ])
    assert.deepEqual(r.metadata.totals, { documents: 2, amount: '282.35' })
    assert.equal(r.metadata.currency, 'USD')
  })

  test('spend by user, account, month and location', async () => {
    const admin = (await ok(s.admin, 'GET', '/api/v3/users/me/')).data
    const byUser = (await report(reporter.api, 'spend/?group_by=user')).data
    assert.deepEqual(
      byUser.map((row: Json) => [row.key.id, row.documents, row.amount]),
      [
        [admin.id, 1, '250.00'],
        [employee.profileId, 1, '32.35'],
      ],
      'the payment request is its requester’s, the expense report its employee’s',
    )
    assert.deepEqual((await report(reporter.api, 'spend/?group_by=account')).data, [
      { key: { id: account.id, name: 'Events' }, documents: 2, amount: '282.35' },
    ])
    assert.deepEqual((await report(reporter.api, 'spend/?group_by=month')).data, [
      { key: { id: thisMonth, name: monthName(thisMonth) }, documents: 2, amount: '282.35' },
    ])
    const byLocation = (await report(reporter.api, `spend/?group_by=location&location=${s.A}`)).data
    assert.deepEqual(
      byLocation.map((row: Json) => [row.key.id, row.documents, row.amount]),
      [[s.A, 2, '282.35']],
    )
    // The vendor filter keeps the payment request alone.
    assert.deepEqual(
      (await report(reporter.api, `spend/?group_by=account&vendor=${vendor.id}`)).data.map((row: Json) => row.amount),
      ['250.00'],
    )
  })

  test('the budgets report counts both as spent; the commitments report lists neither', async () => {
    const budgets = (await report(reporter.api, `budgets/?from=${year}-01-01&to=${year}-12-31`)).data
    const row = budgets.find((b: Json) => b.budget.id === budget.id)
    assert.deepEqual(row, {
      budget: { id: budget.id, name: 'Events this year' },
      amount: '1000.00',
      pending: '0.00',
      committed: '0.00',
      spent: '282.35',
      available: '717.65',
      used_percent: '28.2',
    })
    // As the budget itself reads.
    const own = (await ok(s.admin, 'GET', `/api/v3/budgets/${budget.id}/`)).data
    assert.equal(own.spent, '282.35')
    assert.deepEqual((await report(reporter.api, 'commitments/')).data, [])
  })
})

function monthName(id: string) {
  return new Date(`${id}-01T00:00:00Z`).toLocaleString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' })
}
