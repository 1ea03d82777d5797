/**
 * Payment runs (DECISIONS, "Payment requests and payment runs"): items of approved bills and payment requests
 * (partial amounts), every refusal — 403 naming the item at a location without accounts_payable; 409 naming it
 * for an unverified vendor account, a document not open, another currency, more than is open, another open run
 * — the status machine, approval through the payment_run rules (no location; min_total on the total; candidates
 * with nav_approval at every item's location; counted as `payment`), `confirm` paying every item in one
 * transaction (a partly paid bill keeps the rest open), events; and two runs claiming one bill at the same
 * instant: exactly one wins (on PostgreSQL the requests really run in parallel).
 */
import assert from 'node:assert/strict'
import { beforeEach, describe, test } from 'node:test'
import { useTestApp } from './helpers/app.ts'
import { decide, newVendor, rule } from './helpers/orders.ts'
import { BASE_DOMAIN } from './helpers/security.ts'
import {
  approvedBill,
  billItem,
  events,
  newRun,
  post,
  putAccount,
  run,
  runAction,
  setUpPayments,
  type PaymentSetup,
} from './payments-fixture.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' })
let s: PaymentSetup
let ready = false
beforeEach(async () => {
  if (ready) return
  ready = true
  s = await setUpPayments(ctx)
})

const bill = async (id: number) => (await s.clerk.api({ method: 'GET', url: `/api/v3/bills/${id}/` })).json().data
const getRun = async (id: number) =>
  (await s.clerk.api({ method: 'GET', url: `/api/v3/payment-runs/${id}/` })).json().data

describe('payment runs', () => {
  test('a run of two bills, one partly: approved at once, confirmed, the bill paid and the rest left open', async () => {
    const vendor = await s.payee()
    const whole = await approvedBill(s, vendor, '120.10')
    const part = await approvedBill(s, vendor, '1000')
    const made = await newRun(s, [billItem(whole.id), { ...billItem(part.id, '400.5'), reference: 'First half' }])
    assert.equal(made.statusCode, 201, made.body)
    assert.match(made.headers.location as string, /\/api\/v3\/payment-runs\/\d+\/$/)
    const r = made.json().data
    assert.match(r.number, /^RUN-\d{6,}$/)
    assert.equal(r.status, 'draft')
    assert.equal(r.currency, s.currency)
    assert.equal(r.execution_date, '2026-12-01')
    assert.equal(r.total, '520.60')
    assert.equal(r.bank_account.id, s.bankAccount)
    assert.equal(r.created_by.id, s.clerk.profileId)
    assert.deepEqual(
      r.items.map((i: { document: object; amount: string; reference: string; vendor: { id: number } }) => [
        i.document,
        i.amount,
        i.reference,
        i.vendor.id,
      ]),
      [
        [{ type: 'bill', id: whole.id, number: whole.number }, '120.10', whole.number, vendor],
        [{ type: 'bill', id: part.id, number: part.number }, '400.50', 'First half', vendor],
      ],
    )
    const early = await s.clerk.api({ method: 'GET', url: `/api/v3/payment-runs/${r.id}/file` })
    assert.equal(early.statusCode, 409, early.body)
    await runAction(s.clerk.api, r.id, 'confirm', undefined, 409)
    const submitted = await runAction(s.clerk.api, r.id, 'submit')
    assert.equal(submitted.status, 'approved') // no payment_run rule
    await runAction(s.clerk.api, r.id, 'submit', undefined, 409)
    const file = await s.clerk.api({ method: 'GET', url: `/api/v3/payment-runs/${r.id}/file` })
    assert.equal(file.statusCode, 200, file.body)
    assert.match(file.headers['content-type'] as string, /application\/xml/)
    const put = await s.clerk.api({
      method: 'PUT',
      url: `/api/v3/payment-runs/${r.id}/`,
      payload: { bank_account: s.bankAccount, execution_date: '2026-12-02', items: [billItem(whole.id)] },
    })
    assert.equal(put.statusCode, 409, put.body)

    const confirmed = await runAction(s.clerk.api, r.id, 'confirm', { confirmed_at: '2026-12-01T15:00:00Z' })
    assert.equal(confirmed.status, 'confirmed')
    assert.equal(confirmed.confirmed_at, '2026-12-01T15:00:00.000Z')
    const paid = await bill(whole.id)
    assert.equal(paid.status, 'paid')
    assert.equal(paid.paid_at, '2026-12-01T15:00:00.000Z')
    assert.equal(paid.payment_reference, r.number)
    const open = await bill(part.id)
    assert.equal(open.status, 'approved')
    assert.equal(open.paid_at, null)
    await runAction(s.clerk.api, r.id, 'confirm', undefined, 409)
    await runAction(s.clerk.api, r.id, 'cancel', undefined, 409)

    // The rest of the partly paid bill: more than is open is refused, exactly what is open is paid.
    const over = await newRun(s, [billItem(part.id, '599.51')])
    assert.equal(over.statusCode, 409, over.body)
    assert.match(over.json().detail, /599\.51 is more than the 599\.50/)
    assert.ok(over.json().errors['items.0'])
    const rest = await run(s, [billItem(part.id)])
    assert.equal(rest.items[0].amount, '599.50')
    await runAction(s.clerk.api, rest.id, 'submit')
    await runAction(s.clerk.api, rest.id, 'confirm')
    const done = await bill(part.id)
    assert.equal(done.status, 'paid')
    assert.equal(done.payment_reference, rest.number)
    assert.equal((await newRun(s, [billItem(part.id)])).statusCode, 409)

    const runTypes = (await events(s, 'payment_run.*')).filter((e) => e.data.object.id === r.id).map((e) => e.type)
    assert.deepEqual(runTypes, [
      'payment_run.created',
      'payment_run.submitted',
      'payment_run.approved',
      'payment_run.confirmed',
    ])
    const paidEvents = (await events(s, 'bill.paid')).filter(
      (e) => e.data.object.id === whole.id || e.data.object.id === part.id,
    )
    assert.equal(paidEvents.length, 2)
    assert.equal(paidEvents[0]!.data.object.payment_reference, r.number)
  })

  test('every refusal names the item: account, status, currency, amount, another run, location', async () => {
    const good = await s.payee()
    const ok = await approvedBill(s, good, '50')
    // An unverified account (changed after verification), and none at all.
    const changed = await s.payee()
    const changedBill = await approvedBill(s, changed, '10')
    await putAccount(s.clerk.api, changed, { account_holder: 'New holder', iban: 'GB29NWBK60161331926819' })
    const bare = await newVendor(s.admin, 'No Account Ltd', [])
    const bareBill = await approvedBill(s, bare, '10')
    const refused = await newRun(s, [billItem(ok.id), billItem(changedBill.id), billItem(bareBill.id)])
    assert.equal(refused.statusCode, 409, refused.body)
    assert.deepEqual(Object.keys(refused.json().errors).sort(), ['items.1', 'items.2'])
    assert.match(refused.json().errors['items.1'][0], /not verified/)
    assert.match(refused.json().errors['items.2'][0], /no bank account/)
    assert.match(refused.json().detail, new RegExp(`item 2 \\(bill ${changedBill.number}\\)`))

    // A draft bill and a cancelled one are not open.
    const draft = await post(s.clerk.api, '/api/v3/bills/', {
      number: 'DRAFT-1',
      vendor: good,
      location: s.A,
      lines: [{ description: 'x', quantity: '1', unit_price: '5' }],
    })
    const notOpen = await newRun(s, [billItem(draft.json().data.id)])
    assert.equal(notOpen.statusCode, 409, notOpen.body)
    assert.match(notOpen.json().detail, /is draft/)

    // Another currency.
    await s.admin({ method: 'POST', url: '/api/v2/currencies/', payload: { name: 'CHF', rate: '0.9' } })
    const made = await post(s.clerk.api, '/api/v3/bills/', {
      number: 'CHF-1',
      vendor: good,
      location: s.A,
      currency: 'CHF',
      lines: [{ description: 'x', quantity: '1', unit_price: '5' }],
    })
    assert.equal(made.statusCode, 201, made.body)
    await post(s.clerk.api, `/api/v3/bills/${made.json().data.id}/submit/`)
    const currency = await newRun(s, [billItem(made.json().data.id)])
    assert.equal(currency.statusCode, 409, currency.body)
    assert.match(currency.json().detail, /one currency/)

    // Already in another open run; free again once that run is cancelled.
    const first = await run(s, [billItem(ok.id, '20')])
    const twice = await newRun(s, [billItem(ok.id, '10')])
    assert.equal(twice.statusCode, 409, twice.body)
    assert.match(twice.json().detail, new RegExp(`already in payment run ${first.number}`))
    await runAction(s.clerk.api, first.id, 'cancel')
    assert.equal((await newRun(s, [billItem(ok.id, '10')])).statusCode, 201)

    // A bill at B, where the clerk holds no accounts_payable: 403 naming it.
    const atB = await approvedBill(s, good, '10', s.B, s.admin)
    const forbidden = await newRun(s, [billItem(atB.id)])
    assert.equal(forbidden.statusCode, 403, forbidden.body)
    assert.match(forbidden.json().detail, new RegExp(`item 1 \\(bill ${atB.number}\\)`))
    // Nobody without accounts_payable makes a run.
    assert.equal((await newRun(s, [billItem(ok.id)], s.requester.api)).statusCode, 403)
    // Bad input: 400 naming the field, never a 5xx.
    for (const [items, field] of [
      [[billItem(ok.id), billItem(ok.id)], 'items.1.document'],
      [[billItem(999999)], 'items.0.document'],
      [[billItem(ok.id, '0')], 'items.0.amount'],
      [[billItem(ok.id, '1.001')], 'items.0.amount'],
      [[{ document: { type: 'payment_request', id: 999999 } }], 'items.0.document'],
    ] as const) {
      const r = await newRun(s, items as unknown as object[])
      assert.equal(r.statusCode, 400, r.body)
      assert.ok(r.json().errors[field], `${field}: ${r.body}`)
    }
    const badAccount = await newRun(s, [billItem(ok.id)], s.clerk.api, { bank_account: 999999 })
    assert.equal(badAccount.statusCode, 400, badAccount.body)
    assert.ok(badAccount.json().errors.bank_account)
    assert.equal((await newRun(s, [billItem(ok.id)], s.clerk.api, { execution_date: '2026-02-30' })).statusCode, 400)
    assert.equal((await newRun(s, [])).statusCode, 400)
    assert.equal((await newRun(s, [{ document: { type: 'order', id: 1 } }])).statusCode, 400)
  })

  test('approval: payment_run rules have no location, match min_total, need nav_approval at every location', async () => {
    const withLocation = await s.admin({
      method: 'POST',
      url: '/api/v3/approval-rules/',
      payload: { document: 'payment_run', location: s.A, step: 1, approvers: [s.approver.profileId] },
    })
    assert.equal(withLocation.statusCode, 400, withLocation.body)
    const r = await rule(s.admin, {
      document: 'payment_run',
      min_total: '100',
      step: 1,
      approvers: [s.approver.profileId],
    })
    try {
      const vendor = await s.payee()
      const small = await run(s, [billItem((await approvedBill(s, vendor, '99.99')).id)])
      assert.equal((await runAction(s.clerk.api, small.id, 'submit')).status, 'approved')
      const big = await run(s, [billItem((await approvedBill(s, vendor, '100')).id)])
      const pending = await runAction(s.clerk.api, big.id, 'submit')
      assert.equal(pending.status, 'pending_approval')
      assert.equal(pending.approvals[0].kind, 'payment')
      assert.deepEqual(pending.approvals[0].document, { type: 'payment_run', id: big.id })
      const count = async () =>
        (await s.approver.api({ method: 'GET', url: '/api/v3/users/me/' })).json().data.pending_approvals_count.payment
      assert.equal(await count(), 1)
      assert.equal((await s.approver.api({ method: 'GET', url: `/api/v3/payment-runs/${big.id}/` })).statusCode, 200)
      assert.equal((await s.clerk.api({ method: 'GET', url: `/api/v3/payment-runs/${big.id}/file` })).statusCode, 409)
      // Rejected: back to draft with the comment; submitted again and approved.
      const rejected = await decide(s.approver.api, pending.approvals[0].id, 'reject', 'Wrong execution date')
      assert.equal(rejected.statusCode, 200, rejected.body)
      const back = await getRun(big.id)
      assert.equal(back.status, 'draft')
      assert.equal(back.approvals[0].comment, 'Wrong execution date')
      const again = await runAction(s.clerk.api, big.id, 'submit')
      const approved = await decide(s.approver.api, again.approvals.at(-1).id, 'approve')
      assert.equal(approved.statusCode, 200, approved.body)
      assert.equal((await getRun(big.id)).status, 'approved')
      assert.equal(await count(), 0)
      const types = (await events(s, 'payment_run.*')).filter((e) => e.data.object.id === big.id).map((e) => e.type)
      assert.ok(types.includes('payment_run.approved'))

      // Items at A and at B: the approver holds nav_approval at A only, so the step has no candidate.
      const bPayables = await s.user('bclerk', s.payablesRole, s.A, [{ location: s.B, role: s.payablesRole }])
      const both = await run(
        s,
        [
          billItem((await approvedBill(s, vendor, '500')).id),
          billItem((await approvedBill(s, vendor, '500', s.B, s.admin)).id),
        ],
        bPayables.api,
      )
      const refused = await post(bPayables.api, `/api/v3/payment-runs/${both.id}/submit/`)
      assert.equal(refused.statusCode, 409, refused.body)
      assert.match(refused.json().detail, /every location/)
      assert.equal((await getRun(both.id)).status, 'draft')
      // The submitter is never a candidate of their own run.
      const self = await s.user('selfish', s.payablesRole, s.A, [{ location: s.A, role: s.roles.Approver }])
      const r2 = await rule(s.admin, {
        document: 'payment_run',
        min_total: '100000',
        step: 2,
        approvers: [self.profileId],
      })
      const huge = await run(s, [billItem((await approvedBill(s, vendor, '200000')).id)], self.api)
      assert.equal((await post(self.api, `/api/v3/payment-runs/${huge.id}/submit/`)).statusCode, 409)
      await s.admin({ method: 'DELETE', url: `/api/v3/approval-rules/${r2.id}/` })
    } finally {
      await s.admin({ method: 'DELETE', url: `/api/v3/approval-rules/${r.id}/` })
    }
  })

  test('a decision re-checks nav_approval at every item’s location: a grant withdrawn at one refuses it', async () => {
    const grantB = [{ location: s.B, role: s.roles.Approver }]
    const decider = await s.user('approver-ab', s.roles.Approver, s.A, grantB)
    const r = await rule(s.admin, {
      document: 'payment_run',
      min_total: '700',
      step: 1,
      approvers: [decider.profileId],
    })
    try {
      const clerk = await s.user('clerk-ab', s.payablesRole, s.A, [{ location: s.B, role: s.payablesRole }])
      const vendor = await s.payee()
      // The first item is at A (the location the approval records), the second at B.
      const both = await run(
        s,
        [
          billItem((await approvedBill(s, vendor, '400')).id),
          billItem((await approvedBill(s, vendor, '400', s.B, s.admin)).id),
        ],
        clerk.api,
      )
      const pending = await runAction(clerk.api, both.id, 'submit')
      assert.equal(pending.status, 'pending_approval')
      assert.deepEqual(
        pending.approvals[0].candidates.map((c: { id: number }) => c.id),
        [decider.profileId],
      )
      const grants = (payload: object[]) =>
        s.admin({ method: 'PUT', url: `/api/v3/users/${decider.profileId}/location-roles/`, payload })
      assert.equal((await grants([])).statusCode, 200)
      const refused = await decide(decider.api, pending.approvals[0].id, 'approve')
      assert.equal(refused.statusCode, 403, refused.body)
      assert.match(refused.json().detail, new RegExp(`nav_approval permission at location ${s.B},`))
      assert.equal((await getRun(both.id)).status, 'pending_approval')
      assert.equal((await grants(grantB)).statusCode, 200)
      const approved = await decide(decider.api, pending.approvals[0].id, 'approve')
      assert.equal(approved.statusCode, 200, approved.body)
      assert.equal((await getRun(both.id)).status, 'approved')
    } finally {
      await s.admin({ method: 'DELETE', url: `/api/v3/approval-rules/${r.id}/` })
    }
  })

  test('a payment request in a run: paid on confirm; it cannot be cancelled while the run holds it', async () => {
    const vendor = await s.payee()
    const made = await post(s.requester.api, '/api/v3/payment-requests/', {
      location: s.A,
      vendor,
      amount: '75',
      invoice_number: 'FEE-9',
    })
    const pr = made.json().data
    await post(s.requester.api, `/api/v3/payment-requests/${pr.id}/submit/`)
    const r = await run(s, [{ document: { type: 'payment_request', id: pr.id } }])
    assert.equal(r.items[0].document.number, pr.number)
    assert.equal(r.items[0].reference, 'FEE-9')
    const cancel = await post(s.requester.api, `/api/v3/payment-requests/${pr.id}/cancel/`)
    assert.equal(cancel.statusCode, 409, cancel.body)
    assert.match(cancel.json().detail, new RegExp(r.number))
    await runAction(s.clerk.api, r.id, 'submit')
    await runAction(s.clerk.api, r.id, 'confirm')
    const paid = (await s.requester.api({ method: 'GET', url: `/api/v3/payment-requests/${pr.id}/` })).json().data
    assert.equal(paid.status, 'paid')
    assert.equal(paid.amount_paid, '75.00')
    assert.equal(paid.payment_reference, r.number)
    const types = (await events(s, 'payment_request.paid')).filter((e) => e.data.object.id === pr.id)
    assert.equal(types.length, 1)
  })

  test('a document changed by hand after the run was made: confirm refuses, nothing is paid', async () => {
    const vendor = await s.payee()
    const a = await approvedBill(s, vendor, '30')
    const b = await approvedBill(s, vendor, '40')
    const r = await run(s, [billItem(a.id), billItem(b.id)])
    await runAction(s.clerk.api, r.id, 'submit')
    const paidByHand = await post(s.clerk.api, `/api/v3/bills/${b.id}/pay/`, { payment_reference: 'CHEQUE-1' })
    assert.equal(paidByHand.statusCode, 200, paidByHand.body)
    const refused = await post(s.clerk.api, `/api/v3/payment-runs/${r.id}/confirm/`)
    assert.equal(refused.statusCode, 409, refused.body)
    assert.match(refused.json().detail, new RegExp(`item 2 \\(bill ${b.number}\\) is paid`))
    assert.equal((await bill(a.id)).status, 'approved')
    assert.equal((await getRun(r.id)).status, 'approved')
  })

  test('two runs claiming the same bill at the same instant: exactly one wins', async () => {
    const vendor = await s.payee()
    for (let round = 0; round < 3; round++) {
      const a = await approvedBill(s, vendor, '10')
      const b = await approvedBill(s, vendor, '20')
      // Each run names both bills, in opposite orders: rows are locked in id order, so neither deadlocks.
      const results = await Promise.all([
        newRun(s, [billItem(a.id), billItem(b.id)]),
        newRun(s, [billItem(b.id), billItem(a.id)], s.clerk2.api),
      ])
      const codes = results.map((r) => r.statusCode).sort()
      assert.deepEqual(codes, [201, 409], results.map((r) => r.body).join('\n'))
    }
  })
})
