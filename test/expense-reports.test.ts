/**
 * Expense reports (DECISIONS, "Expense reports and travel requests"), through HTTP: the shape and number, the
 * per-line conversion into the report's currency (exact, half-up, rates locked at submit), the receipt
 * threshold (procurement settings) at submit, approval through the one engine (expense_report rules, the
 * `expense` count, delegation, rejection → edit → submit again with the earlier approvals kept), no rule →
 * approved at once, reimbursement by accounts_payable, cancel, who sees what (others 404), a travel request
 * named, events, lists and CSV, and the requestable departments.
 */
import assert from 'node:assert/strict'
import { beforeEach, describe, test } from 'node:test'
import { useTestApp } from './helpers/app.ts'
import { decide, rule, setUp, type Person, type Setup } from './helpers/requests.ts'
import { BASE_DOMAIN, roleWith, type Api } from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' })
let s: Setup
let employee: Person
let other: Person
let approver: Person
let delegatee: Person
let clerk: Person
let ready = false
const currencies = new Map<string, number>()

const dayOffset = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)

async function currency(name: string, rate: string) {
  const r = await s.admin({ method: 'POST', url: '/api/v2/currencies/', payload: { name, rate } })
  assert.equal(r.statusCode, 201, r.body)
  currencies.set(name, r.json().data.id)
}
const rerate = async (name: string, rate: string) => {
  const r = await s.admin({
    method: 'PUT',
    url: `/api/v2/currencies/${currencies.get(name)}/`,
    payload: { name, rate },
  })
  assert.equal(r.statusCode, 200, r.body)
}

beforeEach(async () => {
  if (ready) return
  ready = true
  s = await setUp(ctx)
  employee = await s.user('emp', s.roles.Requester, s.A)
  other = await s.user('other', s.roles.Requester, s.A)
  approver = await s.user('appr', s.roles.Approver, s.A)
  delegatee = await s.user('deleg', s.roles.Requester, s.B, [{ location: s.A, role: s.roles.Approver }])
  const ap = await roleWith(ctx, s.tenant, 'Payables', ['accounts_payable'], 8)
  clerk = await s.user('clerk', ap, s.A)
  await currency('EUR', '0.92')
  await currency('CAD', '1.35')
  await currency('XTS', '2')
})

const post = (api: Api, url: string, payload?: object) =>
  api({ method: 'POST', url, ...(payload === undefined ? {} : { payload }) })
const act = (api: Api, id: number, action: string, payload?: object) =>
  post(api, `/api/v3/expense-reports/${id}/${action}/`, payload)
const line = (amount: string, extra: object = {}) => ({ date: '2026-11-20', merchant: 'Taxi', amount, ...extra })

async function report(body: object = {}, api: Api = employee.api) {
  const r = await post(api, '/api/v3/expense-reports/', { location: s.A, title: 'Trip', lines: [line('20')], ...body })
  assert.equal(r.statusCode, 201, r.body)
  return r.json().data
}
/** The response's data after asserting its status; loosely typed, as JSON is. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function ok(response: Promise<{ statusCode: number; body: string; json(): any }>, status = 200): Promise<any> {
  const r = await response
  assert.equal(r.statusCode, status, r.body)
  return r.json().data
}
const get = (api: Api, id: number) => api({ method: 'GET', url: `/api/v3/expense-reports/${id}/` })
const counts = async (p: Person) =>
  (await ok(s.admin({ method: 'GET', url: `/api/v3/users/${p.profileId}/` }))).pending_approvals_count as Record<
    string,
    number
  >

describe('expense reports', () => {
  test('created as a draft: EXP- number, the employee, the location’s currency, lines converted exactly', async () => {
    const r = await report({
      currency: 'CAD',
      lines: [line('100', { currency: 'EUR', description: 'Hotel' }), line('10.5'), line('0.01', { currency: 'XTS' })],
    })
    assert.match(r.number, /^EXP-\d{6,}$/)
    assert.equal(r.status, 'draft')
    assert.equal(r.employee.id, employee.profileId)
    assert.deepEqual(r.location, { id: s.A, name: r.location.name })
    assert.equal(r.currency, 'CAD')
    assert.equal(r.travel_request, null)
    // 100 EUR ÷ 0.92 × 1.35 = 146.7391… → 146.74; 10.5 CAD (the report's) stays; 0.01 XTS ÷ 2 × 1.35 = 0.00675 → 0.01.
    assert.deepEqual(
      r.lines.map((l: { amount: string; currency: string; converted_amount: string }) => [
        l.amount,
        l.currency,
        l.converted_amount,
      ]),
      [
        ['100', 'EUR', '146.74'],
        ['10.5', 'CAD', '10.50'],
        ['0.01', 'XTS', '0.01'],
      ],
    )
    assert.equal(r.total, '157.25')
    assert.equal(r.lines[0].account, null)
    assert.equal(r.lines[0].receipt, null)
    assert.deepEqual(r.budget_warnings, [])
    assert.deepEqual(r.approvals, [])
    assert.equal(r.reimbursed_at, null)
    assert.equal(r.submitted_at, null)
    const plain = await report()
    assert.equal(plain.currency, 'USD')
    // Half-up at the exact half: 0.01 XTS ÷ 2 = 0.005 USD → 0.01.
    const half = await report({ lines: [line('0.01', { currency: 'XTS' }), line('0.03', { currency: 'XTS' })] })
    assert.deepEqual(
      half.lines.map((l: { converted_amount: string }) => l.converted_amount),
      ['0.01', '0.02'],
    )
    assert.equal(half.total, '0.03')
  })

  test('bad bodies → 400 naming the field, nothing made; no nav_request → 403', async () => {
    const before = (await ok(employee.api({ method: 'GET', url: '/api/v3/expense-reports/?page_size=1' }))) as unknown
    for (const [body, field] of [
      [{ lines: [] }, 'lines'],
      [{ lines: [line('0')] }, 'lines.0.amount'],
      [{ lines: [line('1', { currency: 'ZZZ' })] }, 'lines.0.currency'],
      [{ currency: 'ZZZ' }, 'currency'],
      [{ department: 999999 }, 'department'],
      [{ location: 999999 }, 'location'],
      [{ lines: [line('1', { receipt: 5 })] }, 'lines.0.receipt'],
      [{ lines: [line('1', { account: 999999 })] }, 'lines.0.account'],
      [{ travel_request: 999999 }, 'travel_request'],
      [{ lines: [line('1e3')] }, 'amount'],
      [{ lines: [line('1', { date: '2026-13-01' })] }, 'date'],
      [{ lines: [line('1', { extra: true })] }, 'extra'],
    ] as const) {
      const r = await post(
        employee.api,
        '/api/v3/expense-reports/',
        Object.assign({ location: s.A, lines: [line('1')] }, body),
      )
      assert.equal(r.statusCode, 400, `${JSON.stringify(body)}: ${r.body}`)
      assert.match(r.body, new RegExp(field.replace('.', '\\.')))
    }
    void before
    const proto = await employee.api({
      method: 'POST',
      url: '/api/v3/expense-reports/',
      headers: { 'content-type': 'application/json' },
      payload: `{"location": ${s.A}, "__proto__": {"admin": true}, "lines": [{"date": "2026-11-20", "amount": "1"}]}`,
    })
    assert.equal(proto.statusCode, 400, proto.body)
    const noRight = await s.user('noright', s.roles.Requester, s.B)
    const r = await post(noRight.api, '/api/v3/expense-reports/', { location: s.A, lines: [line('1')] })
    assert.equal(r.statusCode, 403, r.body)
  })

  test('who sees it: employee, accounts_payable at the location, candidates, superuser; others 404', async () => {
    const r = await report({ title: 'Visibility' })
    assert.equal((await get(employee.api, r.id)).statusCode, 200)
    assert.equal((await get(clerk.api, r.id)).statusCode, 200)
    assert.equal((await get(s.admin, r.id)).statusCode, 200)
    assert.equal((await get(other.api, r.id)).statusCode, 404)
    assert.equal((await get(approver.api, r.id)).statusCode, 404)
    const list = await other.api({ method: 'GET', url: `/api/v3/expense-reports/?search=${r.number}` })
    assert.equal(list.json().data.length, 0)
    const mine = await employee.api({ method: 'GET', url: `/api/v3/expense-reports/?search=${r.number}` })
    assert.equal(mine.json().data.length, 1)
    // Another's actions: 404 for who cannot see it, 403 for who can but is not the employee.
    assert.equal((await act(other.api, r.id, 'submit')).statusCode, 404)
    assert.equal((await act(clerk.api, r.id, 'cancel')).statusCode, 403)
    const put = await clerk.api({
      method: 'PUT',
      url: `/api/v3/expense-reports/${r.id}/`,
      payload: { location: s.A, lines: [line('1')] },
    })
    assert.equal(put.statusCode, 403, put.body)
  })

  test('PUT replaces a draft (lines keep their ids when named); rates follow until submit, then are locked', async () => {
    const r = await report({ lines: [line('46', { currency: 'EUR' }), line('5')] })
    assert.equal(r.lines[0].converted_amount, '50.00')
    const kept = r.lines[0].id
    const put = await ok(
      employee.api({
        method: 'PUT',
        url: `/api/v3/expense-reports/${r.id}/`,
        payload: { ...r, title: 'Edited', lines: [{ ...r.lines[0], merchant: 'Hotel' }, line('2')] },
      }),
    )
    assert.equal(put.title, 'Edited')
    assert.equal(put.lines[0].id, kept)
    assert.equal(put.lines[0].merchant, 'Hotel')
    assert.equal(put.total, '52.00')
    const badId = await employee.api({
      method: 'PUT',
      url: `/api/v3/expense-reports/${r.id}/`,
      payload: { location: s.A, lines: [line('1', { id: 999999 })] },
    })
    assert.equal(badId.statusCode, 400, badId.body)
    await rerate('EUR', '0.8') // 46 ÷ 0.8 = 57.50: a draft follows the rate …
    assert.equal((await ok(get(employee.api, r.id))).lines[0].converted_amount, '50.00')
    const threshold = await ok(
      s.admin({ method: 'PUT', url: '/api/v3/procurement-settings/', payload: { receipt_required_over: '1000' } }),
    )
    assert.equal(threshold.receipt_required_over, '1000.00')
    const submitted = await ok(act(employee.api, r.id, 'submit'))
    assert.equal(submitted.lines[0].converted_amount, '57.50', 'converted at the rate in force at submit')
    assert.equal(submitted.total, '59.50')
    await rerate('EUR', '0.92') // … a submitted one does not
    const after = await ok(get(employee.api, r.id))
    assert.equal(after.lines[0].converted_amount, '57.50')
    assert.equal(after.total, '59.50')
    const late = await employee.api({
      method: 'PUT',
      url: `/api/v3/expense-reports/${r.id}/`,
      payload: { location: s.A, lines: [line('1')] },
    })
    assert.equal(late.statusCode, 409, late.body)
    assert.match(late.json().detail, /approved/)
    await ok(s.admin({ method: 'PUT', url: '/api/v3/procurement-settings/', payload: { receipt_required_over: '25' } }))
  })

  test('receipt_required_over: default 25.00; lines above it without a receipt → 409 naming them at submit', async () => {
    const settings = await ok(s.admin({ method: 'GET', url: '/api/v3/procurement-settings/' }))
    assert.equal(settings.receipt_required_over, '25.00')
    const bad = await s.admin({
      method: 'PUT',
      url: '/api/v3/procurement-settings/',
      payload: { receipt_required_over: '-1' },
    })
    assert.equal(bad.statusCode, 400)
    const r = await report({
      lines: [
        line('25', { merchant: 'At the limit' }),
        line('25.01', { merchant: 'Over' }),
        line('30', { merchant: 'Also over', currency: 'EUR' }),
      ],
    })
    const refused = await act(employee.api, r.id, 'submit')
    assert.equal(refused.statusCode, 409, refused.body)
    const detail = refused.json().detail as string
    assert.match(detail, /line 2 \(2026-11-20, Over\)/)
    assert.match(detail, /line 3 \(2026-11-20, Also over\)/)
    assert.doesNotMatch(detail, /line 1 /)
    assert.equal((await ok(get(employee.api, r.id))).status, 'draft')
    // 30 EUR is 32.61 USD: over. At a higher threshold, it passes.
    await ok(s.admin({ method: 'PUT', url: '/api/v3/procurement-settings/', payload: { receipt_required_over: '40' } }))
    assert.equal((await ok(act(employee.api, r.id, 'submit'))).status, 'approved')
    await ok(s.admin({ method: 'PUT', url: '/api/v3/procurement-settings/', payload: { receipt_required_over: '25' } }))
  })

  test('no rule → approved at once; reimbursed by accounts_payable; transitions from the wrong status → 409', async () => {
    const r = await report()
    const submitted = await ok(act(employee.api, r.id, 'submit'))
    assert.equal(submitted.status, 'approved')
    assert.ok(submitted.submitted_at)
    assert.equal((await act(employee.api, r.id, 'cancel')).statusCode, 409)
    assert.equal((await act(employee.api, r.id, 'submit')).statusCode, 409)
    assert.equal((await act(employee.api, r.id, 'reimburse')).statusCode, 403)
    const paid = await ok(
      act(clerk.api, r.id, 'reimburse', { payment_reference: 'SEPA-1', reimbursed_at: '2026-11-25T10:00:00.000Z' }),
    )
    assert.equal(paid.status, 'reimbursed')
    assert.equal(paid.payment_reference, 'SEPA-1')
    assert.equal(paid.reimbursed_at, '2026-11-25T10:00:00.000Z')
    const again = await act(clerk.api, r.id, 'reimburse')
    assert.equal(again.statusCode, 409)
    assert.match(again.json().detail, /reimbursed/)
    const draft = await report()
    assert.equal((await act(clerk.api, draft.id, 'reimburse')).statusCode, 409)
    const cancelled = await ok(act(employee.api, draft.id, 'cancel'))
    assert.equal(cancelled.status, 'cancelled')
  })

  test('approval: expense_report rules, the expense count, reject → edit → submit again, approvals kept', async () => {
    const loc = await s.admin({
      method: 'POST',
      url: '/api/v3/approval-rules/',
      payload: { document: 'expense_report', location: s.A, step: 1, approvers: [approver.profileId] },
    })
    assert.equal(loc.statusCode, 201, loc.body)
    try {
      const r = await report({ title: 'Approve me' })
      const before = await counts(approver)
      const pending = await ok(act(employee.api, r.id, 'submit'))
      assert.equal(pending.status, 'pending_approval')
      assert.equal(pending.approvals.length, 1)
      assert.equal(pending.approvals[0].status, 'pending')
      assert.equal((await counts(approver)).expense, before.expense! + 1)
      assert.equal((await counts(approver)).order, before.order)
      // The candidate sees it now; the employee cannot decide their own.
      assert.equal((await get(approver.api, r.id)).statusCode, 200)
      assert.equal((await decide(employee.api, pending.approvals[0].id, 'approve')).statusCode, 403)
      const rejected = await decide(approver.api, pending.approvals[0].id, 'reject', 'Missing the hotel bill')
      assert.equal(rejected.statusCode, 200, rejected.body)
      const back = await ok(get(employee.api, r.id))
      assert.equal(back.status, 'rejected')
      assert.equal((await counts(approver)).expense, before.expense)
      assert.equal((await act(employee.api, r.id, 'cancel')).statusCode, 409)
      const edited = await ok(
        employee.api({
          method: 'PUT',
          url: `/api/v3/expense-reports/${r.id}/`,
          payload: { ...back, title: 'With the hotel' },
        }),
      )
      assert.equal(edited.title, 'With the hotel')
      const again = await ok(act(employee.api, r.id, 'submit'))
      assert.equal(again.status, 'pending_approval')
      assert.equal(again.approvals.length, 2)
      assert.equal(again.approvals[0].status, 'rejected')
      assert.equal(again.approvals[0].comment, 'Missing the hotel bill')
      const approved = await decide(approver.api, again.approvals[1].id, 'approve')
      assert.equal(approved.statusCode, 200, approved.body)
      assert.equal((await ok(get(employee.api, r.id))).status, 'approved')
      // A pending report may be cancelled by its employee: its approval is cancelled too.
      const third = await report({ title: 'Withdrawn' })
      await ok(act(employee.api, third.id, 'submit'))
      const withdrawn = await ok(act(employee.api, third.id, 'cancel'))
      assert.equal(withdrawn.status, 'cancelled')
      assert.equal(withdrawn.approvals[0].status, 'cancelled')
      assert.equal((await counts(approver)).expense, before.expense)
    } finally {
      await s.admin({ method: 'DELETE', url: `/api/v3/approval-rules/${loc.json().data.id}/` })
    }
  })

  test('budgets at submit: approve puts the owner’s step first (no rule needed); block refuses, nothing changed', async () => {
    const code = `61${Date.now() % 100000}`
    const account = await ok(post(s.admin, '/api/v3/accounts/', { code, name: `Travel ${code}` }), 201)
    const budget = (body: object) =>
      ok(
        post(s.admin, '/api/v3/budgets/', {
          name: `Expenses ${code} ${JSON.stringify(body).length}`,
          account: account.id,
          period_start: '2026-01-01', // the lines' date (line()) falls in it
          period_end: '2026-12-31',
          ...body,
        }),
        201,
      )
    const owned = await budget({ amount: '10', action: 'approve', owner: approver.profileId })
    const r = await report({ title: 'Over the travel budget', lines: [line('20', { account: account.id })] })
    const pending = await ok(act(employee.api, r.id, 'submit'))
    assert.equal(pending.status, 'pending_approval')
    assert.equal(pending.approvals.length, 1)
    assert.equal(pending.approvals[0].step, 1)
    assert.deepEqual(
      pending.approvals[0].candidates.map((c: { id: number }) => c.id),
      [approver.profileId],
    )
    assert.equal((await decide(approver.api, pending.approvals[0].id, 'approve')).statusCode, 200)
    assert.equal((await ok(get(employee.api, r.id))).status, 'approved')
    await ok(s.admin({ method: 'PUT', url: `/api/v3/budgets/${owned.id}/`, payload: { ...owned, active: false } }))

    await budget({ amount: '1', action: 'block' })
    const blocked = await report({ title: 'Blocked', lines: [line('5', { account: account.id })] })
    const refused = await act(employee.api, blocked.id, 'submit')
    assert.equal(refused.statusCode, 409, refused.body)
    assert.match(refused.json().detail, /budget/i)
    const still = await ok(get(employee.api, blocked.id))
    assert.equal(still.status, 'draft')
    assert.deepEqual(still.approvals, [])
  })

  test('the expense and travel counts under delegation (GET /api/v3/users/{id}/)', async () => {
    const rules = [
      await rule(s.admin, { document: 'expense_report', location: s.A, step: 1, approvers: [approver.profileId] }),
      await rule(s.admin, { document: 'travel_request', location: s.A, step: 1, approvers: [approver.profileId] }),
    ]
    try {
      const before = { away: await counts(approver), deleg: await counts(delegatee) }
      const r = await report({ title: 'Delegated' })
      await ok(act(employee.api, r.id, 'submit'))
      const t = await ok(
        post(employee.api, '/api/v3/travel-requests/', {
          location: s.A,
          purpose: 'Fair',
          destination: 'Paris',
          departure_date: dayOffset(10),
          return_date: dayOffset(12),
          estimates: [{ category: 'lodging', amount: '300' }],
        }),
        201,
      )
      await ok(post(employee.api, `/api/v3/travel-requests/${t.id}/submit/`))
      assert.equal((await counts(approver)).expense, before.away.expense! + 1)
      assert.equal((await counts(approver)).travel, before.away.travel! + 1)
      await ok(
        approver.api({
          method: 'PUT',
          url: `/api/v3/users/${approver.profileId}/delegation/`,
          payload: { delegatee: delegatee.profileId, expected_return_date: dayOffset(3) },
        }),
      )
      const away = await counts(approver)
      const deleg = await counts(delegatee)
      assert.equal(away.expense, 0)
      assert.equal(away.travel, 0)
      assert.equal(deleg.expense, before.deleg.expense! + before.away.expense! + 1)
      assert.equal(deleg.travel, before.deleg.travel! + before.away.travel! + 1)
      // The delegatee decides it, on behalf of the away approver.
      const report2 = await ok(get(delegatee.api, r.id))
      const decided = await ok(decide(delegatee.api, report2.approvals[0].id, 'approve'))
      assert.equal(decided.on_behalf_of.id, approver.profileId)
      assert.equal((await ok(get(employee.api, r.id))).status, 'approved')
      await approver.api({ method: 'DELETE', url: `/api/v3/users/${approver.profileId}/delegation/` })
    } finally {
      for (const r of rules) await s.admin({ method: 'DELETE', url: `/api/v3/approval-rules/${r.id}/` })
    }
  })

  test('travel_request: an approved travel request of the same employee, else 400', async () => {
    const travel = async (api: Api, submit: boolean) => {
      const t = await ok(
        post(api, '/api/v3/travel-requests/', {
          location: s.A,
          purpose: 'Visit',
          destination: 'Toronto',
          currency: 'CAD',
          departure_date: '2026-12-01',
          return_date: '2026-12-03',
          estimates: [{ category: 'airfare', amount: '500' }],
        }),
        201,
      )
      return submit ? ok(post(api, `/api/v3/travel-requests/${t.id}/submit/`)) : t
    }
    const mine = await travel(employee.api, true)
    const draft = await travel(employee.api, false)
    const theirs = await travel(other.api, true)
    for (const id of [draft.id, theirs.id]) {
      const r = await post(employee.api, '/api/v3/expense-reports/', {
        location: s.A,
        travel_request: id,
        lines: [line('1')],
      })
      assert.equal(r.statusCode, 400, r.body)
      assert.match(r.body, /travel_request/)
    }
    // 92 EUR = 100 USD = 135 CAD; the report is in EUR and names the CAD trip.
    const r = await report({
      travel_request: mine.id,
      currency: 'EUR',
      lines: [line('92', { currency: 'EUR' }), line('10')],
    })
    assert.equal(r.travel_request, mine.id)
    assert.equal(r.total, '102.00')
    const listed = await employee.api({ method: 'GET', url: `/api/v3/expense-reports/?travel_request=${mine.id}` })
    assert.deepEqual(
      listed.json().data.map((x: { id: number }) => x.id),
      [r.id],
    )
    assert.equal((await ok(get(employee.api, r.id))).travel_request, mine.id)
    const submitted = await employee.api({ method: 'GET', url: `/api/v3/travel-requests/${mine.id}/` })
    assert.equal(submitted.json().data.expensed_total, '0.00')
    await ok(
      s.admin({ method: 'PUT', url: '/api/v3/procurement-settings/', payload: { receipt_required_over: '1000' } }),
    )
    await ok(act(employee.api, r.id, 'submit'))
    await ok(s.admin({ method: 'PUT', url: '/api/v3/procurement-settings/', payload: { receipt_required_over: '25' } }))
    await rerate('CAD', '2') // rates locked at the report's submit: the trip's expensed total does not move
    const expensed = (await employee.api({ method: 'GET', url: `/api/v3/travel-requests/${mine.id}/` })).json().data
    // 102.00 EUR ÷ 0.92 × 1.35 = 149.6739… CAD
    assert.equal(expensed.expensed_total, '149.67')
    await rerate('CAD', '1.35')
  })

  test('events, audit and the list: filters and CSV', async () => {
    const r = await report({ title: 'Evented' })
    await ok(act(employee.api, r.id, 'submit'))
    await ok(act(clerk.api, r.id, 'reimburse'))
    const c = await report({ title: 'Cancelled one' })
    await ok(act(employee.api, c.id, 'cancel'))
    const events = (await ok(s.admin({ method: 'GET', url: '/api/v3/events/?page_size=1000' }))) as unknown as {
      type: string
      data: { object: { id: number } }
    }[]
    const of = (id: number) =>
      events.filter((e) => e.type.startsWith('expense_report.') && e.data.object.id === id).map((e) => e.type)
    assert.deepEqual(of(r.id).sort(), [
      'expense_report.approved',
      'expense_report.created',
      'expense_report.reimbursed',
      'expense_report.submitted',
    ])
    assert.deepEqual(of(c.id).sort(), ['expense_report.cancelled', 'expense_report.created'])
    const byStatus = await ok(
      clerk.api({ method: 'GET', url: '/api/v3/expense-reports/?status=reimbursed&page_size=100' }),
    )
    assert.ok((byStatus as unknown as { id: number; status: string }[]).every((x) => x.status === 'reimbursed'))
    assert.ok((byStatus as unknown as { id: number }[]).some((x) => x.id === r.id))
    const byEmployee = await ok(s.admin({ method: 'GET', url: `/api/v3/expense-reports/?employee=${other.profileId}` }))
    assert.deepEqual(byEmployee, [])
    const csv = await clerk.api({ method: 'GET', url: `/api/v3/expense-reports/?format=csv&search=${r.number}` })
    assert.equal(csv.statusCode, 200)
    assert.match(csv.headers['content-type'] as string, /text\/csv/)
    assert.match(csv.body, new RegExp(r.number))
    const bad = await clerk.api({ method: 'GET', url: '/api/v3/expense-reports/?status=lost' })
    assert.equal(bad.statusCode, 400)
    const audit = await s.admin({ method: 'GET', url: '/api/v3/audit-log/?page_size=100' })
    if (audit.statusCode === 200)
      assert.ok(
        (audit.json().data as { action: string }[]).some((a) => a.action === 'expense_report.reimburse'),
        'the reimbursement is audited',
      )
  })

  test('GET /api/v3/departments/?requestable=: departments where the caller holds nav_request; bad value → 400', async () => {
    const dept = await s.admin({
      method: 'POST',
      url: '/api/v3/departments/',
      payload: { name: 'Field team B', location: s.B },
    })
    assert.equal(dept.statusCode, 201, dept.body)
    for (const kind of ['ORDER', 'EXPENSE', 'TRAVEL', 'PAY_REQUEST']) {
      const mine = await ok(
        employee.api({ method: 'GET', url: `/api/v3/departments/?requestable=${kind}&page_size=100` }),
      )
      const locations = new Set((mine as unknown as { branch: { id: number } }[]).map((d) => d.branch.id))
      assert.ok(locations.has(s.A), kind)
      assert.ok(!locations.has(s.B), kind)
      const all = await ok(s.admin({ method: 'GET', url: `/api/v3/departments/?requestable=${kind}&page_size=100` }))
      assert.ok((all as unknown as { id: number }[]).some((d) => d.id === dept.json().data.id))
    }
    const everything = await ok(employee.api({ method: 'GET', url: '/api/v3/departments/?page_size=100' }))
    assert.ok((everything as unknown as { id: number }[]).some((d) => d.id === dept.json().data.id))
    for (const bad of ['expense', 'BILL', '']) {
      const r = await employee.api({ method: 'GET', url: `/api/v3/departments/?requestable=${bad}` })
      assert.equal(r.statusCode, 400, `${bad}: ${r.body}`)
      assert.match(r.body, /requestable/)
    }
  })
})
