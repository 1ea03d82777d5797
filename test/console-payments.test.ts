/**
 * Payment requests in the console over HTTP, with the data made in the test: a requester makes one from the form
 * (a refusal said on the form, what was typed kept), reads its page (vendor, amount, due date, reference, status,
 * history) and submits it; the approver sees it waiting with a Decide link; once approved, accounts payable finds
 * it on the Payments page and puts it in a run, and its page says so (What it led to). Someone who may not see it
 * gets 404; a refusal (cancelling someone else's) is said on its page.
 */
import assert from 'node:assert/strict'
import { beforeEach, test } from 'node:test'
import { resetPasswordLink } from '../src/tenants/service.ts'
import { useTestApp } from './helpers/app.ts'
import { rule } from './helpers/orders.ts'
import { BASE_DOMAIN, throughLink, type Browser } from './helpers/security.ts'
import { setUpPayments, type PaymentSetup } from './payments-fixture.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' })
let s: PaymentSetup
let requester: Browser
let approver: Browser
let clerk: Browser
let other: Browser
let payee: number
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
  s = await setUpPayments(ctx)
  await s.user('elsewhere', s.roles.Requester, s.B)
  await rule(s.admin, { document: 'payment_request', location: s.A, step: 1, approvers: [s.approver.profileId] })
  payee = await s.payee('Venue & Co')
  requester = await signIn('requester')
  approver = await signIn('approver')
  clerk = await signIn('clerk')
  other = await signIn('elsewhere')
})

const form = (fields: Record<string, string>) => ({
  location: String(s.A),
  department: '',
  vendor: String(payee),
  currency: '',
  due_date: '2026-12-15',
  invoice_number: 'DEP-2026-11',
  reason: 'Deposit for the December offsite',
  ...fields,
})

test('a payment request from the form: its page, submitted, approved, then paid in a run', async () => {
  const list = await requester.get('/console/payment-requests')
  assert.equal(list.statusCode, 200, list.body)
  assert.match(list.body, /href="\/console\/payment-requests\/new"/)
  const bad = await requester.submit(
    '/console/payment-requests/new',
    '/console/payment-requests',
    form({ amount: 'lots' }),
  )
  assert.equal(bad.statusCode, 400, bad.body)
  assert.match(bad.body, /There is a problem/)
  assert.match(bad.body, /value="lots"/, 'what was typed is kept')
  const made = await requester.submit(
    '/console/payment-requests/new',
    '/console/payment-requests',
    form({ amount: '1500' }),
  )
  assert.equal(made.statusCode, 303, made.body)
  const at = String(made.headers.location)
  const id = Number(/\/console\/payment-requests\/(\d+)\?done=created$/.exec(at)![1])

  const page = await requester.get(at)
  assert.equal(page.statusCode, 200, page.body)
  assert.match(page.body, /Saved as a draft/)
  assert.match(page.body, /<h1[^>]*>Payment request PAY-\d{6,}<\/h1>/)
  assert.match(page.body, /Venue &amp; Co/)
  assert.match(page.body, new RegExp(`1,?500\\.00 ${s.currency}`))
  assert.match(page.body, /datetime="2026-12-15"/)
  assert.match(page.body, /DEP-2026-11/)
  assert.match(page.body, /Deposit for the December offsite/)
  assert.match(page.body, /<dd>Draft<\/dd>/)
  assert.match(page.body, /id="history"[\s\S]*Created/)
  assert.match(page.body, /id="led-to"[\s\S]*Nothing yet/)
  assert.match(page.body, /Submit for approval/)
  assert.match((await requester.get('/console/payment-requests')).body, new RegExp(`/console/payment-requests/${id}"`))
  assert.equal((await other.get(`/console/payment-requests/${id}`)).statusCode, 404)
  assert.equal((await requester.get('/console/payment-requests/999999')).statusCode, 404)

  const submitted = await requester.submit(at, `/console/payment-requests/${id}/submit`, {})
  assert.equal(submitted.statusCode, 303, submitted.body)
  const waiting = await requester.get(`/console/payment-requests/${id}`)
  assert.match(waiting.body, /<dd>Waiting for approval<\/dd>/)
  assert.match(waiting.body, /id="chain"[\s\S]*approver Tester/)
  assert.doesNotMatch(waiting.body, /Submit for approval/)
  const asApprover = await approver.get(`/console/payment-requests/${id}`)
  assert.equal(asApprover.statusCode, 200, asApprover.body)
  const approvalId = Number(/href="\/console\/approvals\/(\d+)">Decide</.exec(asApprover.body)![1])
  // The inbox names it and links to its decision; the decision page shows what it pays; the approver approves there.
  const inbox = await approver.get('/console/approvals')
  assert.match(inbox.body, new RegExp(`href="/console/approvals/${approvalId}">Payment request PAY-\\d+`))
  assert.match(inbox.body, /Payment to Venue &amp; Co/)
  const decision = await approver.get(`/console/approvals/${approvalId}`)
  assert.equal(decision.statusCode, 200, decision.body)
  assert.match(decision.body, /<h2 id="payment-request">Payment request PAY-\d+<\/h2>/)
  assert.match(decision.body, /Deposit for the December offsite/)
  const decided = await approver.submit(`/console/approvals/${approvalId}`, `/console/approvals/${approvalId}`, {
    decision: 'approve',
    comment: '',
  })
  assert.equal(decided.statusCode, 303, decided.body)
  assert.match(String(decided.headers.location), /done=approved-payment/)
  const approved = await requester.get(`/console/payment-requests/${id}`)
  assert.match(approved.body, /Approved: waits for a payment run/)
  assert.match(approved.body, /id="history"[\s\S]*Submitted for approval[\s\S]*Approved a step/)
  assert.match(approved.body, /In no payment run yet/)

  // Accounts payable pays it beside the bills: the Payments page lists it under its vendor.
  const payments = await clerk.get('/console/payments')
  assert.match(payments.body, new RegExp(`name="payment_request_${id}"`))
  const run = await clerk.submit('/console/payments', '/console/payments/runs', {
    [`payment_request_${id}`]: 'on',
    bank_account: String(s.bankAccount),
    execution_date: '2026-12-01',
  })
  assert.equal(run.statusCode, 303, run.body)
  const runAt = String(run.headers.location)
  const runPage = await clerk.get(runAt)
  assert.match(runPage.body, new RegExp(`href="/console/payment-requests/${id}"`))
  const number = /<h1[^>]*>Payment run (RUN-\d+)<\/h1>/.exec(runPage.body)![1]!
  const ledTo = await clerk.get(`/console/payment-requests/${id}`)
  assert.match(ledTo.body, new RegExp(`id="led-to"[\\s\\S]*>${number}</a>[\\s\\S]*Draft[\\s\\S]*1,?500\\.00`))
  // Who sees no runs (the requester has no accounts payable) is not shown the run.
  assert.doesNotMatch((await requester.get(`/console/payment-requests/${id}`)).body, new RegExp(number))
})

test('cancelling: the requester cancels a draft; someone else is refused on the page', async () => {
  const made = await requester.submit(
    '/console/payment-requests/new',
    '/console/payment-requests',
    form({ amount: '80' }),
  )
  assert.equal(made.statusCode, 303, made.body)
  const id = Number(/\/console\/payment-requests\/(\d+)/.exec(String(made.headers.location))![1])
  const asClerk = await clerk.get(`/console/payment-requests/${id}`)
  assert.equal(asClerk.statusCode, 200, asClerk.body)
  assert.doesNotMatch(asClerk.body, /Cancel the payment request/)
  const refused = await clerk.post(`/console/payment-requests/${id}/cancel`, {
    _csrf: clerk.csrfOf(asClerk.body) ?? '',
  })
  assert.equal(refused.statusCode, 403, refused.body)
  assert.match(refused.body, /Only the requester of payment request PAY-/)
  const cancelled = await requester.submit(
    `/console/payment-requests/${id}`,
    `/console/payment-requests/${id}/cancel`,
    {},
  )
  assert.equal(cancelled.statusCode, 303, cancelled.body)
  assert.equal(cancelled.headers.location, `/console/payment-requests/${id}?done=cancel`)
  const page = await requester.get(String(cancelled.headers.location))
  assert.match(page.body, /The payment request is cancelled/)
  assert.match(page.body, /<dd>Cancelled<\/dd>/)
  assert.doesNotMatch(page.body, /Cancel the payment request/)
})
