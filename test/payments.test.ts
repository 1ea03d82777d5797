/**
 * Payment requests and bank accounts (DECISIONS, "Payment requests and payment runs"): a vendor's bank account —
 * IBAN (ISO 13616 check digits) and BIC (ISO 9362 shape) checked, 400 naming the field; every change
 * unverified, e-mailed to every accounts-payable holder, audited, `vendor.bank_account_changed`; four-eyes
 * verification (409 for the one who changed it), `vendor.bank_account_verified`; masking to the last four
 * characters without accounts_payable. The company's bank accounts. Payment requests: numbers, fields,
 * permissions, the status machine, approval through the payment_request rules (counted as `payment`), events.
 */
import assert from 'node:assert/strict'
import { beforeEach, describe, test } from 'node:test'
import { useTestApp } from './helpers/app.ts'
import { rule, decide } from './helpers/orders.ts'
import { newVendor } from './helpers/orders.ts'
import { BASE_DOMAIN, type Api } from './helpers/security.ts'
import { events, post, putAccount, setUpPayments, type PaymentSetup } from './payments-fixture.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' })
let s: PaymentSetup
let ready = false
beforeEach(async () => {
  if (ready) return
  ready = true
  s = await setUpPayments(ctx)
})

const account = (api: Api, vendor: number) => api({ method: 'GET', url: `/api/v3/vendors/${vendor}/bank-account/` })
const verify = (api: Api, vendor: number) => post(api, `/api/v3/vendors/${vendor}/bank-account/verify/`)
const outboxTo = async (subject: string) =>
  (
    await ctx.database.db
      .selectFrom('email_outbox')
      .select('to_address')
      .where('tenant_id', '=', s.tenant.tenantId)
      .where('subject', '=', subject)
      .execute()
  ).map((r) => r.to_address)

describe('vendor bank accounts', () => {
  test('a change is unverified, e-mailed to every accounts-payable holder, audited and evented; four eyes verify', async () => {
    const vendor = await newVendor(s.admin, 'Initech', [])
    assert.equal((await account(s.clerk.api, vendor)).statusCode, 404)
    const written = await putAccount(s.clerk.api, vendor, {
      account_holder: 'Initech GmbH',
      iban: 'de89 3704 0044 0532 0130 00',
      bic: 'cobadeffxxx',
    })
    assert.equal(written.iban, 'DE89370400440532013000')
    assert.equal(written.bic, 'COBADEFFXXX')
    assert.equal(written.country, 'DE')
    assert.equal(written.status, 'unverified')
    assert.equal(written.masked, false)
    assert.equal(written.changed_by.id, s.clerk.profileId)
    assert.equal(written.verified_by, null)
    const to = await outboxTo('Bank account of Initech changed — verify it before paying')
    assert.ok(to.includes(`clerk@${s.tenant.domain}.test`), to.join())
    assert.ok(to.includes(`clerk2@${s.tenant.domain}.test`), to.join())
    assert.ok(!to.includes(`requester@${s.tenant.domain}.test`))
    const audited = await ctx.database.db
      .selectFrom('audit_log')
      .select('action')
      .where('tenant_id', '=', s.tenant.tenantId)
      .where('resource_type', '=', 'vendor')
      .where('resource_id', '=', String(vendor))
      .execute()
    assert.ok(audited.some((a) => a.action === 'vendor.bank_account_change'))

    const own = await verify(s.clerk.api, vendor)
    assert.equal(own.statusCode, 409, own.body)
    assert.match(own.json().detail, /someone else/)
    const verified = await verify(s.clerk2.api, vendor)
    assert.equal(verified.statusCode, 200, verified.body)
    assert.equal(verified.json().data.status, 'verified')
    assert.equal(verified.json().data.verified_by.id, s.clerk2.profileId)
    assert.ok(verified.json().data.verified_at)
    assert.equal((await verify(s.clerk2.api, vendor)).statusCode, 409)

    // The verifier changes it: unverified again, and now only the first clerk may verify it.
    const changed = await putAccount(s.clerk2.api, vendor, {
      account_holder: 'Initech GmbH',
      iban: 'GB29NWBK60161331926819',
    })
    assert.equal(changed.status, 'unverified')
    assert.equal(changed.verified_by, null)
    assert.equal(changed.country, 'GB')
    assert.equal((await verify(s.clerk2.api, vendor)).statusCode, 409)
    assert.equal((await verify(s.clerk.api, vendor)).statusCode, 200)

    const mine = (await events(s, 'vendor.*')).filter(
      (e) => e.type.startsWith('vendor.bank_account') && (e.data.object.vendor as { id: number }).id === vendor,
    )
    assert.deepEqual(
      mine.map((e) => e.type),
      [
        'vendor.bank_account_changed',
        'vendor.bank_account_verified',
        'vendor.bank_account_changed',
        'vendor.bank_account_verified',
      ],
    )
    assert.equal(mine[0]!.data.object.iban, 'DE89370400440532013000')
  })

  test('IBAN check digits, BIC shape and the account’s parts: 400 naming the field, nothing changes', async () => {
    const vendor = await newVendor(s.admin, 'Hooli', [])
    await putAccount(s.clerk.api, vendor, { account_holder: 'Hooli', iban: 'NL91ABNA0417164300' })
    const cases: [object, string][] = [
      [{ account_holder: 'Hooli', iban: 'DE89370400440532013001' }, 'iban'],
      [{ account_holder: 'Hooli', iban: 'XX00' }, 'iban'],
      [{ account_holder: 'Hooli', iban: 'NL91ABNA0417164300', bic: 'ABNA' }, 'bic'],
      [{ account_holder: 'Hooli', iban: 'NL91ABNA0417164300', bic: 'AB1ANL2A' }, 'bic'],
      [{ account_holder: 'Hooli' }, 'iban'],
      [{ account_holder: 'Hooli', iban: 'NL91ABNA0417164300', country: 'DE' }, 'country'],
      [{ account_holder: 'Hooli', iban: 'NL91ABNA0417164300', account_number: '123' }, 'account_number'],
      [{ account_holder: 'Hoo\u202Eli', iban: 'NL91ABNA0417164300' }, 'account_holder'],
      [{ account_holder: '', iban: 'NL91ABNA0417164300' }, 'account_holder'],
      [{ account_holder: 'Hooli', iban: 'NL91ABNA0417164300', __proto__x: 1 }, ''],
    ]
    for (const [payload, field] of cases) {
      const r = await s.clerk.api({ method: 'PUT', url: `/api/v3/vendors/${vendor}/bank-account/`, payload })
      assert.equal(r.statusCode, 400, `${JSON.stringify(payload)}: ${r.body}`)
      if (field !== '') assert.ok(r.json().errors?.[field], `${field}: ${r.body}`)
      assert.doesNotMatch(r.body, /pattern|must NOT/)
    }
    const proto = await s.clerk.api({
      method: 'PUT',
      url: `/api/v3/vendors/${vendor}/bank-account/`,
      headers: { 'content-type': 'application/json' },
      payload: '{"account_holder":"Hooli","iban":"NL91ABNA0417164300","__proto__":{"status":"verified"}}',
    })
    assert.ok(proto.statusCode === 400 || proto.json().data.status === 'unverified', proto.body)
    const now = (await account(s.clerk.api, vendor)).json().data
    assert.equal(now.iban, 'NL91ABNA0417164300')
    assert.equal(now.status, 'unverified')
  })

  test('an account number with a routing number; readers without accounts_payable see the last four only', async () => {
    const vendor = await newVendor(s.admin, 'Umbrella', [])
    const written = await putAccount(s.clerk.api, vendor, {
      account_holder: 'Umbrella Corp',
      account_number: '000123456789',
      routing_number: '021000021',
      country: 'us',
    })
    assert.equal(written.iban, null)
    assert.equal(written.country, 'US')
    const masked = (await account(s.requester.api, vendor)).json().data
    assert.equal(masked.masked, true)
    assert.equal(masked.account_number, '********6789')
    const other = await newVendor(s.admin, 'Soylent', [])
    await putAccount(s.clerk.api, other, { account_holder: 'Soylent', iban: 'DE89370400440532013000' })
    const seen = (await account(s.requester.api, other)).json().data
    assert.equal(seen.iban, '******************3000')
    assert.equal((await account(s.admin, other)).json().data.iban, 'DE89370400440532013000')
    // Without accounts_payable: no write, no verification.
    const denied = await s.requester.api({
      method: 'PUT',
      url: `/api/v3/vendors/${other}/bank-account/`,
      payload: { account_holder: 'Soylent', iban: 'GB29NWBK60161331926819' },
    })
    assert.equal(denied.statusCode, 403, denied.body)
    assert.equal((await verify(s.buyer.api, other)).statusCode, 403)
    assert.equal((await account(s.clerk.api, 999999)).statusCode, 404)
    assert.equal((await verify(s.clerk2.api, 999999)).statusCode, 404)
  })

  test('an unchanged PUT is no change: it stays verified and nobody is e-mailed', async () => {
    const vendor = await s.payee('Stable Co')
    const before = (await account(s.clerk.api, vendor)).json().data
    const again = await putAccount(s.clerk.api, vendor, {
      account_holder: before.account_holder,
      iban: before.iban,
      bic: before.bic,
    })
    assert.equal(again.status, 'verified')
  })
})

describe('company bank accounts', () => {
  test('superuser or nav_setting write them; accounts payable reads them; IBAN, BIC and currency checked', async () => {
    const body = {
      name: 'Reserve',
      account_holder: 'Example Corp',
      iban: 'GB29NWBK60161331926819',
      bic: 'NWBKGB2L',
      currency: s.currency,
    }
    assert.equal((await post(s.clerk.api, '/api/v3/bank-accounts/', body)).statusCode, 403)
    const bad = await post(s.admin, '/api/v3/bank-accounts/', {
      ...body,
      iban: 'GB29NWBK60161331926810',
      bic: 'NW',
      currency: 'ZZZ',
    })
    assert.equal(bad.statusCode, 400, bad.body)
    assert.deepEqual(Object.keys(bad.json().errors).sort(), ['bic', 'currency', 'iban'])
    const made = await post(s.admin, '/api/v3/bank-accounts/', body)
    assert.equal(made.statusCode, 201, made.body)
    assert.match(made.headers.location as string, /\/api\/v3\/bank-accounts\/\d+\/$/)
    const id = made.json().data.id
    assert.equal(made.json().data.active, true)
    const list = await s.clerk.api({ method: 'GET', url: '/api/v3/bank-accounts/?order_by=name' })
    assert.equal(list.statusCode, 200, list.body)
    assert.ok(list.json().data.some((a: { id: number }) => a.id === id))
    assert.equal((await s.requester.api({ method: 'GET', url: `/api/v3/bank-accounts/${id}/` })).statusCode, 403)
    const put = await s.admin({
      method: 'PUT',
      url: `/api/v3/bank-accounts/${id}/`,
      payload: { ...body, active: false },
    })
    assert.equal(put.statusCode, 200, put.body)
    assert.equal(put.json().data.active, false)
    assert.equal((await s.admin({ method: 'GET', url: '/api/v3/bank-accounts/999999/' })).statusCode, 404)
  })
})

describe('payment requests', () => {
  const create = (api: Api, body: object) => post(api, '/api/v3/payment-requests/', body)
  const act = (api: Api, id: number, action: string) => post(api, `/api/v3/payment-requests/${id}/${action}/`)

  test('made by nav_request at its location as a draft: number, fields, checks', async () => {
    const vendor = await newVendor(s.admin, 'Deposit Hall', [])
    const made = await create(s.requester.api, {
      location: s.A,
      department: s.departmentA,
      vendor,
      amount: '1500',
      due_date: '2026-12-15',
      invoice_number: 'DEP-7',
      reason: 'Venue deposit',
    })
    assert.equal(made.statusCode, 201, made.body)
    const pr = made.json().data
    assert.match(pr.number, /^PAY-\d{6,}$/)
    assert.equal(pr.status, 'draft')
    assert.equal(pr.amount, '1500.00')
    assert.equal(pr.amount_paid, '0.00')
    assert.equal(pr.currency, s.currency)
    assert.equal(pr.requester.id, s.requester.profileId)
    assert.deepEqual(pr.location.id, s.A)
    assert.equal(pr.department.id, s.departmentA)
    assert.equal(pr.vendor.id, vendor)
    assert.equal(pr.due_date, '2026-12-15')
    assert.deepEqual(pr.budget_warnings, [])
    assert.deepEqual(pr.approvals, [])
    assert.equal(pr.account, null)
    const second = await create(s.requester.api, { location: s.A, vendor, amount: '1' })
    assert.ok(second.json().data.number > pr.number)

    assert.equal((await create(s.clerk.api, { location: s.A, vendor, amount: '10' })).statusCode, 403)
    assert.equal((await create(s.requester.api, { location: s.B, vendor, amount: '10' })).statusCode, 403)
    for (const [body, field] of [
      [{ location: s.A, vendor, amount: '0' }, 'amount'],
      [{ location: s.A, vendor, amount: '1.234' }, 'amount'],
      [{ location: s.A, vendor, amount: '-5' }, 'amount'],
      [{ location: s.A, vendor: 999999, amount: '5' }, 'vendor'],
      [{ location: s.A, vendor, amount: '5', currency: 'ZZZ' }, 'currency'],
      [{ location: s.A, vendor, amount: '5', account: 999999 }, 'account'],
      [{ location: s.A, vendor, amount: '5', due_date: '10000-01-01' }, 'due_date'],
      [{ location: 999999, vendor, amount: '5' }, 'location'],
    ] as const) {
      const r = await create(s.requester.api, body)
      assert.equal(r.statusCode, 400, `${JSON.stringify(body)} ${r.body}`)
      assert.ok(r.json().errors?.[field], `${field}: ${r.body}`)
    }
    const other = await s.admin({ method: 'GET', url: `/api/v3/departments/?location=${s.B}` })
    const departmentB = other.json().data[0]?.id
    if (departmentB !== undefined) {
      const r = await create(s.requester.api, { location: s.A, vendor, amount: '5', department: departmentB })
      assert.equal(r.statusCode, 400, r.body)
      assert.ok(r.json().errors.department)
    }
    // Who sees it: the requester, accounts payable at A; not someone who holds neither there.
    assert.equal((await s.clerk.api({ method: 'GET', url: `/api/v3/payment-requests/${pr.id}/` })).statusCode, 200)
    const outsider = await s.user('outsider', s.roles.Requester, s.B)
    assert.equal((await outsider.api({ method: 'GET', url: `/api/v3/payment-requests/${pr.id}/` })).statusCode, 404)
    const listed = await s.requester.api({ method: 'GET', url: `/api/v3/payment-requests/?vendor=${vendor}` })
    assert.equal(listed.json().metadata.pagination.count, 2)
  })

  test('draft → submit → approved at once without a rule; PUT only while draft; cancel; events', async () => {
    const vendor = await newVendor(s.admin, 'Fee Office', [])
    const pr = (await create(s.requester.api, { location: s.A, vendor, amount: '20' })).json().data
    const put = await s.requester.api({
      method: 'PUT',
      url: `/api/v3/payment-requests/${pr.id}/`,
      payload: { ...pr, location: s.A, vendor, amount: '25.50', reason: 'Filing fee' },
    })
    assert.equal(put.statusCode, 200, put.body)
    assert.equal(put.json().data.amount, '25.50')
    assert.equal(put.json().data.number, pr.number)
    const submitted = await act(s.requester.api, pr.id, 'submit')
    assert.equal(submitted.statusCode, 200, submitted.body)
    assert.equal(submitted.json().data.status, 'approved')
    assert.ok(submitted.json().data.submitted_at)
    const again = await act(s.requester.api, pr.id, 'submit')
    assert.equal(again.statusCode, 409)
    assert.match(again.json().detail, /approved/)
    const late = await s.requester.api({
      method: 'PUT',
      url: `/api/v3/payment-requests/${pr.id}/`,
      payload: { location: s.A, vendor, amount: '30' },
    })
    assert.equal(late.statusCode, 409, late.body)
    assert.equal((await act(s.clerk.api, pr.id, 'cancel')).statusCode, 403)
    const cancelled = await act(s.requester.api, pr.id, 'cancel')
    assert.equal(cancelled.statusCode, 200, cancelled.body)
    assert.equal(cancelled.json().data.status, 'cancelled')
    assert.equal((await act(s.requester.api, pr.id, 'cancel')).statusCode, 409)
    const mine = (await events(s, 'payment_request.*')).filter((e) => e.data.object.id === pr.id)
    assert.deepEqual(
      mine.map((e) => e.type),
      ['payment_request.created', 'payment_request.submitted', 'payment_request.approved', 'payment_request.cancelled'],
    )
  })

  test('the payment_request rules: pending, counted as payment, approved or rejected', async () => {
    const vendor = await newVendor(s.admin, 'Big Ticket', [])
    const r = await rule(s.admin, {
      document: 'payment_request',
      location: s.A,
      min_total: '1000',
      step: 1,
      approvers: [s.approver.profileId],
    })
    try {
      const me = async () =>
        (await s.approver.api({ method: 'GET', url: '/api/v3/users/me/' })).json().data.pending_approvals_count
      const small = (await create(s.requester.api, { location: s.A, vendor, amount: '999.99' })).json().data
      assert.equal((await act(s.requester.api, small.id, 'submit')).json().data.status, 'approved')
      const big = (await create(s.requester.api, { location: s.A, vendor, amount: '5000' })).json().data
      const pending = (await act(s.requester.api, big.id, 'submit')).json().data
      assert.equal(pending.status, 'pending_approval')
      assert.equal(pending.approvals.length, 1)
      assert.equal(pending.approvals[0].kind, 'payment')
      assert.deepEqual(pending.approvals[0].document, { type: 'payment_request', id: big.id })
      assert.equal((await me()).payment, 1)
      assert.equal((await me()).order, 0)
      // The approver sees it (as a candidate).
      assert.equal(
        (await s.approver.api({ method: 'GET', url: `/api/v3/payment-requests/${big.id}/` })).statusCode,
        200,
      )
      const approved = await decide(s.approver.api, pending.approvals[0].id, 'approve')
      assert.equal(approved.statusCode, 200, approved.body)
      const now = (await s.requester.api({ method: 'GET', url: `/api/v3/payment-requests/${big.id}/` })).json().data
      assert.equal(now.status, 'approved')
      assert.equal((await me()).payment, 0)

      const other = (await create(s.requester.api, { location: s.A, vendor, amount: '2000' })).json().data
      const waiting = (await act(s.requester.api, other.id, 'submit')).json().data
      const rejected = await decide(s.approver.api, waiting.approvals[0].id, 'reject', 'Use an order for this')
      assert.equal(rejected.statusCode, 200, rejected.body)
      const gone = (await s.requester.api({ method: 'GET', url: `/api/v3/payment-requests/${other.id}/` })).json().data
      assert.equal(gone.status, 'rejected')
      assert.equal(gone.approvals[0].comment, 'Use an order for this')
      assert.equal((await act(s.requester.api, other.id, 'cancel')).statusCode, 409)
      const types = (await events(s, 'payment_request.*'))
        .filter((e) => e.data.object.id === big.id || e.data.object.id === other.id)
        .map((e) => e.type)
      assert.ok(types.includes('payment_request.approved'))
      assert.ok(types.includes('payment_request.rejected'))
    } finally {
      await s.admin({ method: 'DELETE', url: `/api/v3/approval-rules/${r.id}/` })
    }
  })

  test('counted in the ledger: pending while it waits, spent once approved (budget date: its submit date)', async () => {
    const vendor = await newVendor(s.admin, 'Ledger Hall', [])
    const today = new Date().toISOString().slice(0, 10)
    const budget = await post(s.admin, '/api/v3/budgets/', {
      name: 'Payments at A',
      location: s.A,
      period_start: today,
      period_end: today,
      amount: '10000',
      action: 'warn',
    })
    assert.equal(budget.statusCode, 201, budget.body)
    const figures = async () =>
      (await s.admin({ method: 'GET', url: `/api/v3/budgets/${budget.json().data.id}/` })).json().data
    const before = (await figures()).spent as string
    const pr = (await create(s.requester.api, { location: s.A, vendor, amount: '1234.56' })).json().data
    assert.equal((await act(s.requester.api, pr.id, 'submit')).json().data.status, 'approved')
    const cents = (text: string) => Math.round(Number(text) * 100)
    assert.equal(cents((await figures()).spent) - cents(before), 123456)
    await act(s.requester.api, pr.id, 'cancel')
    assert.equal((await figures()).spent, before)
  })
})
