/**
 * My expenses and travel requests in the console over HTTP, with the data made in the test: an employee makes
 * an expense report from the form (a refusal said on the form, what was typed kept), sees it, submits it; the
 * approver finds it in the inbox, reads it on the decision page and approves it; accounts payable marks it
 * reimbursed. A trip is asked for and approved at once (no rule). Someone else gets 404.
 */
import assert from 'node:assert/strict'
import { beforeEach, test } from 'node:test'
import { resetPasswordLink } from '../src/tenants/service.ts'
import { useTestApp } from './helpers/app.ts'
import { rule, setUp, type Setup } from './helpers/requests.ts'
import { BASE_DOMAIN, roleWith, throughLink, type Browser } from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' })
let s: Setup
let employee: Browser
let approver: Browser
let clerk: Browser
let other: Browser
let ready = false

const signIn = async (name: string) =>
  throughLink(
    ctx,
    s.tenant.host,
    await resetPasswordLink(ctx.database.db, s.tenant.domain, `${name}@${s.tenant.domain}.test`),
  )

beforeEach(async () => {
  if (ready) return
  ready = true
  s = await setUp(ctx)
  await s.user('emp', s.roles.Requester, s.A)
  await s.user('other', s.roles.Requester, s.A)
  const appr = await s.user('appr', s.roles.Approver, s.A)
  const ap = await roleWith(ctx, s.tenant, 'Payables', ['accounts_payable'], 8)
  await s.user('clerk', ap, s.A)
  await rule(s.admin, { document: 'expense_report', location: s.A, step: 1, approvers: [appr.profileId] })
  employee = await signIn('emp')
  approver = await signIn('appr')
  clerk = await signIn('clerk')
  other = await signIn('other')
})

test('an expense report from the form: submitted, approved from the inbox, reimbursed', async () => {
  const form = '/console/expenses/new'
  const page = await employee.get(form)
  assert.equal(page.statusCode, 200, page.body)
  assert.match(page.body, /name="lines\.0\.amount"/)
  const bad = await employee.submit(form, '/console/expenses', {
    location: String(s.A),
    title: 'Berlin visit',
    'lines.0.date': '2026-11-20',
    'lines.0.merchant': 'Taxi',
    'lines.0.amount': 'twelve',
  })
  assert.equal(bad.statusCode, 400, bad.body)
  assert.match(bad.body, /There is a problem/)
  assert.match(bad.body, /value="twelve"/, 'what was typed is kept')
  const made = await employee.submit(form, '/console/expenses', {
    location: String(s.A),
    title: 'Berlin visit',
    'lines.0.date': '2026-11-20',
    'lines.0.merchant': 'Taxi',
    'lines.0.amount': '12.50',
    'lines.2.date': '2026-11-21',
    'lines.2.merchant': 'Lunch',
    'lines.2.amount': '8',
  })
  assert.equal(made.statusCode, 303, made.body)
  const at = String(made.headers.location)
  const id = Number(/\/console\/expenses\/(\d+)/.exec(at)![1])
  const detail = await employee.get(at)
  assert.match(detail.body, /Saved as a draft/)
  assert.match(detail.body, /Taxi[\s\S]*Lunch/)
  assert.match(detail.body, /20\.50 USD/)
  assert.equal((await other.get(`/console/expenses/${id}`)).statusCode, 404)
  assert.match((await employee.get('/console/expenses')).body, /Berlin visit/)

  const submitted = await employee.submit(at, `/console/expenses/${id}/submit`, {})
  assert.equal(submitted.statusCode, 303, submitted.body)
  assert.match((await employee.get(`/console/expenses/${id}`)).body, /Awaiting approval/)

  const inbox = await approver.get('/console/approvals')
  assert.match(inbox.body, /Expense report EXP-/)
  const approvalId = Number(/\/console\/approvals\/(\d+)/.exec(inbox.body)![1])
  const decision = await approver.get(`/console/approvals/${approvalId}`)
  assert.equal(decision.statusCode, 200, decision.body)
  assert.match(decision.body, /Taxi/)
  const approved = await approver.submit(`/console/approvals/${approvalId}`, `/console/approvals/${approvalId}`, {
    decision: 'approve',
    comment: '',
  })
  assert.equal(approved.statusCode, 303, approved.body)
  assert.match((await employee.get(`/console/expenses/${id}`)).body, /Approved/)

  const paid = await clerk.submit(`/console/expenses/${id}`, `/console/expenses/${id}/reimburse`, {
    payment_reference: 'SEPA-77',
  })
  assert.equal(paid.statusCode, 303, paid.body)
  assert.match((await clerk.get(`/console/expenses/${id}`)).body, /Reimbursed[\s\S]*SEPA-77/)
  const again = await clerk.post(`/console/expenses/${id}/reimburse`, {
    _csrf: clerk.csrfOf((await clerk.get(`/console/expenses/${id}`)).body) ?? '',
  })
  assert.equal(again.statusCode, 409)
  assert.match(again.body, /reimbursed/)
})

test('a travel request from the form, approved at once without a rule', async () => {
  const made = await employee.submit('/console/travel/new', '/console/travel', {
    location: String(s.A),
    purpose: 'Trade fair',
    destination: 'Lyon',
    departure_date: '2026-12-07',
    return_date: '2026-12-09',
    'estimates.0.category': 'airfare',
    'estimates.0.amount': '300',
  })
  assert.equal(made.statusCode, 303, made.body)
  const at = String(made.headers.location)
  const id = Number(/\/console\/travel\/(\d+)/.exec(at)![1])
  const submitted = await employee.submit(at, `/console/travel/${id}/submit`, {})
  assert.equal(submitted.statusCode, 303, submitted.body)
  const page = await employee.get(`/console/travel/${id}`)
  assert.match(page.body, /Approved/)
  assert.match(page.body, /Lyon/)
  assert.equal((await other.get(`/console/travel/${id}`)).statusCode, 404)
  const backwards = await employee.submit('/console/travel/new', '/console/travel', {
    location: String(s.A),
    purpose: 'Back in time',
    destination: 'Lyon',
    departure_date: '2026-12-07',
    return_date: '2026-12-01',
    'estimates.0.category': 'meals',
    'estimates.0.amount': '10',
  })
  assert.equal(backwards.statusCode, 400)
  assert.match(backwards.body, /must be on or after departure_date/)
})
