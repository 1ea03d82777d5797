/**
 * Expense reports and travel requests in the commitment ledger and the budget checks (DECISIONS, "Accounts,
 * budgets and the commitment ledger"), through HTTP: lines name accounts (`{id, code, name}` on read, an
 * inactive one refused); an approved report's lines are `spent` (base currency at the rate locked at submit,
 * budget_date the line date); an approved travel request's estimates are `committed` (budget_date its
 * departure) until an approved report names it, which reverses them; a `block` budget refuses the submit
 * (409, nothing changes); a `warn` budget lets it through with `budget_warnings`.
 */
import assert from 'node:assert/strict'
import { beforeEach, describe, test } from 'node:test'
import { useTestApp } from './helpers/app.ts'
import { setUp, type Person, type Setup } from './helpers/requests.ts'
import { BASE_DOMAIN, type Api } from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' })
let s: Setup
let employee: Person
let ready = false
let seq = 0

beforeEach(async () => {
  if (ready) return
  ready = true
  s = await setUp(ctx)
  employee = await s.user('emp', s.roles.Requester, s.A)
  const eur = await s.admin({ method: 'POST', url: '/api/v2/currencies/', payload: { name: 'EUR', rate: '0.92' } })
  assert.equal(eur.statusCode, 201, eur.body)
  const put = await s.admin({
    method: 'PUT',
    url: '/api/v3/procurement-settings/',
    payload: { receipt_required_over: '100000' },
  })
  assert.equal(put.statusCode, 200, put.body)
})

/** The response's data after asserting its status; loosely typed, as JSON is. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function ok(response: Promise<{ statusCode: number; body: string; json(): any }>, status = 200): Promise<any> {
  const r = await response
  assert.equal(r.statusCode, status, r.body)
  return r.json().data
}
const post = (api: Api, url: string, payload?: object) =>
  api({ method: 'POST', url, ...(payload === undefined ? {} : { payload }) })
async function account(active = true) {
  return ok(post(s.admin, '/api/v3/accounts/', { code: `6${++seq}00`, name: `Travel ${seq}`, active }), 201)
}
async function budget(acc: number, action: string, amount: string) {
  return ok(
    post(s.admin, '/api/v3/budgets/', {
      name: `Travel budget ${++seq}`,
      location: s.A,
      account: acc,
      period_start: '2026-01-01',
      period_end: '2026-12-31',
      amount,
      action,
    }),
    201,
  )
}
const entries = async (id: number) =>
  (await ok(s.admin({ method: 'GET', url: `/api/v3/budgets/${id}/entries/?page_size=100` }))) as unknown as {
    stage: string
    amount: string
    original_amount: string
    currency: string
    document: { type: string; id: number }
    budget_date: string
    reason: string
  }[]
const budgetOf = async (id: number) => ok(s.admin({ method: 'GET', url: `/api/v3/budgets/${id}/` }))

describe('expense reports and travel requests in the ledger', () => {
  test('lines name accounts; approval spends them (base currency, line date); an inactive account → 400', async () => {
    const acc = await account()
    const b = await budget(acc.id, 'warn', '1000.00')
    const r = await ok(
      post(employee.api, '/api/v3/expense-reports/', {
        location: s.A,
        lines: [
          { date: '2026-03-04', amount: '92', currency: 'EUR', account: acc.id },
          { date: '2026-03-05', amount: '10', account: null },
        ],
      }),
      201,
    )
    assert.deepEqual(r.lines[0].account, { id: acc.id, code: acc.code, name: acc.name })
    assert.equal(r.lines[1].account, null)
    const submitted = await ok(post(employee.api, `/api/v3/expense-reports/${r.id}/submit/`))
    assert.equal(submitted.status, 'approved')
    const spent = (await entries(b.id)).filter((e) => e.document.type === 'expense_report' && e.document.id === r.id)
    assert.deepEqual(
      spent.map((e) => [e.stage, e.amount, e.budget_date, e.reason]),
      [['spent', '100.00', '2026-03-04', 'approved']],
    )
    assert.equal((await budgetOf(b.id)).spent, '100.00')
    const inactive = await account(false)
    const refused = await post(employee.api, '/api/v3/expense-reports/', {
      location: s.A,
      lines: [{ date: '2026-03-04', amount: '1', account: inactive.id }],
    })
    assert.equal(refused.statusCode, 400, refused.body)
    assert.match(refused.body, /lines\.0\.account/)
  })

  test('a travel request commits its estimates once approved, until an approved expense report names it', async () => {
    const acc = await account()
    const b = await budget(acc.id, 'warn', '5000.00')
    const t = await ok(
      post(employee.api, '/api/v3/travel-requests/', {
        location: s.A,
        purpose: 'Fair',
        destination: 'Lyon',
        currency: 'EUR',
        departure_date: '2026-06-01',
        return_date: '2026-06-03',
        estimates: [
          { category: 'airfare', amount: '460', account: acc.id },
          { category: 'meals', amount: '46', account: acc.id },
        ],
      }),
      201,
    )
    await ok(post(employee.api, `/api/v3/travel-requests/${t.id}/submit/`))
    const committed = (await entries(b.id)).filter(
      (e) => e.document.type === 'travel_request' && e.document.id === t.id,
    )
    assert.deepEqual(committed.map((e) => [e.stage, e.amount, e.budget_date]).sort(), [
      ['committed', '50.00', '2026-06-01'],
      ['committed', '500.00', '2026-06-01'],
    ])
    assert.equal((await budgetOf(b.id)).committed, '550.00')
    const r = await ok(
      post(employee.api, '/api/v3/expense-reports/', {
        location: s.A,
        travel_request: t.id,
        lines: [{ date: '2026-06-02', amount: '200', account: acc.id }],
      }),
      201,
    )
    assert.equal((await budgetOf(b.id)).committed, '550.00', 'named by a draft: still committed')
    await ok(post(employee.api, `/api/v3/expense-reports/${r.id}/submit/`))
    const after = await budgetOf(b.id)
    assert.equal(after.committed, '0.00')
    assert.equal(after.spent, '200.00')
    const reversed = (await entries(b.id)).filter((e) => e.document.type === 'travel_request' && e.document.id === t.id)
    assert.equal(reversed.length, 4)
    assert.ok(reversed.some((e) => e.amount === '-500.00'))
  })

  test('a block budget refuses the submit (409, still a draft); a warn budget adds budget_warnings', async () => {
    const acc = await account()
    const blocking = await budget(acc.id, 'block', '50.00')
    const r = await ok(
      post(employee.api, '/api/v3/expense-reports/', {
        location: s.A,
        lines: [{ date: '2026-04-01', amount: '60', account: acc.id }],
      }),
      201,
    )
    const refused = await post(employee.api, `/api/v3/expense-reports/${r.id}/submit/`)
    assert.equal(refused.statusCode, 409, refused.body)
    assert.match(refused.json().detail, new RegExp(blocking.name))
    const still = await ok(employee.api({ method: 'GET', url: `/api/v3/expense-reports/${r.id}/` }))
    assert.equal(still.status, 'draft')
    assert.equal(still.submitted_at, null)
    const t = await ok(
      post(employee.api, '/api/v3/travel-requests/', {
        location: s.A,
        purpose: 'Expensive',
        destination: 'Tokyo',
        departure_date: '2026-05-01',
        return_date: '2026-05-02',
        estimates: [{ category: 'airfare', amount: '51', account: acc.id }],
      }),
      201,
    )
    assert.equal((await post(employee.api, `/api/v3/travel-requests/${t.id}/submit/`)).statusCode, 409)
    await ok(
      s.admin({ method: 'PUT', url: `/api/v3/budgets/${blocking.id}/`, payload: { ...blocking, action: 'warn' } }),
    )
    const warned = await ok(post(employee.api, `/api/v3/expense-reports/${r.id}/submit/`))
    assert.equal(warned.status, 'approved')
    assert.deepEqual(warned.budget_warnings, [
      { budget: { id: blocking.id, name: blocking.name }, available: '50.00', requested: '60.00', over_by: '10.00' },
    ])
  })
})
