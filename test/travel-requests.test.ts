/**
 * Travel requests (DECISIONS, "Expense reports and travel requests"), through HTTP: the shape and number,
 * estimates by category and the total, return ≥ departure, who sees what (others 404), draft-only edits, no
 * rule → approved at once, travel_request rules and the `travel` count, rejection → edit → submit again with
 * the earlier approvals kept, cancel, events, lists and CSV.
 */
import assert from 'node:assert/strict'
import { beforeEach, describe, test } from 'node:test'
import { useTestApp } from './helpers/app.ts'
import { decide, rule, setUp, type Person, type Setup } from './helpers/requests.ts'
import { BASE_DOMAIN, roleWith, type Api } from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' })
let s: Setup
let traveller: Person
let other: Person
let approver: Person
let clerk: Person
let ready = false

beforeEach(async () => {
  if (ready) return
  ready = true
  s = await setUp(ctx)
  traveller = await s.user('trav', s.roles.Requester, s.A)
  other = await s.user('other', s.roles.Requester, s.A)
  approver = await s.user('appr', s.roles.Approver, s.A)
  const ap = await roleWith(ctx, s.tenant, 'Payables', ['accounts_payable'], 8)
  clerk = await s.user('clerk', ap, s.A)
  const eur = await s.admin({ method: 'POST', url: '/api/v2/currencies/', payload: { name: 'EUR', rate: '0.92' } })
  assert.equal(eur.statusCode, 201, eur.body)
})

const body = (extra: object = {}) => ({
  location: s.A,
  purpose: 'Customer workshop',
  destination: 'Berlin',
  departure_date: '2026-12-07',
  return_date: '2026-12-09',
  estimates: [
    { category: 'airfare', amount: '420.005' },
    { category: 'lodging', amount: '300' },
  ],
  ...extra,
})
/** The response's data after asserting its status; loosely typed, as JSON is. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function ok(response: Promise<{ statusCode: number; body: string; json(): any }>, status = 200): Promise<any> {
  const r = await response
  assert.equal(r.statusCode, status, r.body)
  return r.json().data
}
const create = (extra: object = {}, api: Api = traveller.api) =>
  ok(api({ method: 'POST', url: '/api/v3/travel-requests/', payload: body(extra) }), 201)
const act = (api: Api, id: number, action: string) =>
  api({ method: 'POST', url: `/api/v3/travel-requests/${id}/${action}/` })
const get = (api: Api, id: number) => api({ method: 'GET', url: `/api/v3/travel-requests/${id}/` })
const travelCount = async (p: Person) =>
  (
    (await ok(s.admin({ method: 'GET', url: `/api/v3/users/${p.profileId}/` }))).pending_approvals_count as {
      travel: number
    }
  ).travel

describe('travel requests', () => {
  test('created as a draft: TR- number, the traveller, the location’s currency, estimates and total', async () => {
    const t = await create()
    assert.match(t.number, /^TR-\d{6,}$/)
    assert.equal(t.status, 'draft')
    assert.equal(t.traveller.id, traveller.profileId)
    assert.equal(t.currency, 'USD')
    assert.equal(t.purpose, 'Customer workshop')
    assert.equal(t.destination, 'Berlin')
    assert.equal(t.departure_date, '2026-12-07')
    assert.equal(t.return_date, '2026-12-09')
    assert.deepEqual(t.estimates, [
      { category: 'airfare', amount: '420.005', account: null },
      { category: 'lodging', amount: '300', account: null },
    ])
    assert.equal(t.total, '720.01')
    assert.equal(t.expensed_total, '0.00')
    assert.deepEqual(t.budget_warnings, [])
    assert.deepEqual(t.approvals, [])
    assert.equal(t.submitted_at, null)
    const eur = await create({ currency: 'EUR', departure_date: '2026-12-07', return_date: '2026-12-07' })
    assert.equal(eur.currency, 'EUR')
  })

  test('bad bodies → 400 naming the field; no nav_request at the location → 403', async () => {
    for (const [extra, field] of [
      [{ return_date: '2026-12-06' }, 'return_date'],
      [{ estimates: [] }, 'estimates'],
      [{ estimates: [{ category: 'spa', amount: '1' }] }, 'category'],
      [{ estimates: [{ category: 'meals', amount: '-1' }] }, 'amount'],
      [{ estimates: [{ category: 'meals', amount: '1', account: 999999 }] }, 'estimates.0.account'],
      [{ currency: 'ZZZ' }, 'currency'],
      [{ department: 999999 }, 'department'],
      [{ departure_date: 'tomorrow' }, 'departure_date'],
      [{ location: 999999 }, 'location'],
    ] as const) {
      const r = await traveller.api({ method: 'POST', url: '/api/v3/travel-requests/', payload: body(extra) })
      assert.equal(r.statusCode, 400, `${JSON.stringify(extra)}: ${r.body}`)
      assert.match(r.body, new RegExp(field.replace('.', '\\.')))
    }
    const away = await s.user('elsewhere', s.roles.Requester, s.B)
    const r = await away.api({ method: 'POST', url: '/api/v3/travel-requests/', payload: body() })
    assert.equal(r.statusCode, 403, r.body)
  })

  test('who sees it: the traveller, accounts_payable at the location, candidates, superuser; others 404', async () => {
    const t = await create()
    assert.equal((await get(traveller.api, t.id)).statusCode, 200)
    assert.equal((await get(clerk.api, t.id)).statusCode, 200)
    assert.equal((await get(s.admin, t.id)).statusCode, 200)
    assert.equal((await get(other.api, t.id)).statusCode, 404)
    assert.equal((await act(other.api, t.id, 'submit')).statusCode, 404)
    assert.equal((await act(clerk.api, t.id, 'submit')).statusCode, 403)
    const list = await other.api({ method: 'GET', url: `/api/v3/travel-requests/?search=${t.number}` })
    assert.deepEqual(list.json().data, [])
  })

  test('PUT while draft; no rule → approved at once; then no edit, no cancel (409 naming the status)', async () => {
    const t = await create()
    const put = await ok(
      traveller.api({
        method: 'PUT',
        url: `/api/v3/travel-requests/${t.id}/`,
        payload: {
          ...t,
          location: t.location.id,
          department: null,
          destination: 'Munich',
          estimates: [{ category: 'ground', amount: '80' }],
        },
      }),
    )
    assert.equal(put.destination, 'Munich')
    assert.equal(put.total, '80.00')
    const approved = await ok(act(traveller.api, t.id, 'submit'))
    assert.equal(approved.status, 'approved')
    assert.ok(approved.submitted_at)
    const late = await traveller.api({ method: 'PUT', url: `/api/v3/travel-requests/${t.id}/`, payload: body() })
    assert.equal(late.statusCode, 409)
    assert.match(late.json().detail, /approved/)
    const cancel = await act(traveller.api, t.id, 'cancel')
    assert.equal(cancel.statusCode, 409)
    const d = await create()
    assert.equal((await ok(act(traveller.api, d.id, 'cancel'))).status, 'cancelled')
    assert.equal((await act(traveller.api, d.id, 'submit')).statusCode, 409)
  })

  test('travel_request rules: pending, the travel count, reject → edit → submit again (approvals kept), approve', async () => {
    const r = await rule(s.admin, {
      document: 'travel_request',
      location: s.A,
      step: 1,
      approvers: [approver.profileId],
    })
    try {
      const before = await travelCount(approver)
      const t = await create()
      const pending = await ok(act(traveller.api, t.id, 'submit'))
      assert.equal(pending.status, 'pending_approval')
      assert.equal(await travelCount(approver), before + 1)
      assert.equal((await get(approver.api, t.id)).statusCode, 200)
      const rejected = await decide(approver.api, pending.approvals[0].id, 'reject', 'Fly economy')
      assert.equal(rejected.statusCode, 200, rejected.body)
      const back = await ok(get(traveller.api, t.id))
      assert.equal(back.status, 'rejected')
      assert.equal(await travelCount(approver), before)
      await ok(
        traveller.api({
          method: 'PUT',
          url: `/api/v3/travel-requests/${t.id}/`,
          payload: body({ estimates: [{ category: 'airfare', amount: '210' }] }),
        }),
      )
      const again = await ok(act(traveller.api, t.id, 'submit'))
      assert.equal(again.status, 'pending_approval')
      assert.equal(again.approvals.length, 2)
      assert.equal(again.approvals[0].comment, 'Fly economy')
      await ok(decide(approver.api, again.approvals[1].id, 'approve'))
      assert.equal((await ok(get(traveller.api, t.id))).status, 'approved')
      // Pending, then cancelled by the traveller: the approval is cancelled too.
      const c = await create()
      await ok(act(traveller.api, c.id, 'submit'))
      const cancelled = await ok(act(traveller.api, c.id, 'cancel'))
      assert.equal(cancelled.status, 'cancelled')
      assert.equal(cancelled.approvals[0].status, 'cancelled')
      assert.equal(await travelCount(approver), before)
    } finally {
      await s.admin({ method: 'DELETE', url: `/api/v3/approval-rules/${r.id}/` })
    }
  })

  test('events, filters and CSV', async () => {
    const t = await create({ destination: 'Evented city' })
    await ok(act(traveller.api, t.id, 'submit'))
    const c = await create()
    await ok(act(traveller.api, c.id, 'cancel'))
    const events = (await ok(s.admin({ method: 'GET', url: '/api/v3/events/?page_size=1000' }))) as unknown as {
      type: string
      data: { object: { id: number } }
    }[]
    const of = (id: number) =>
      events
        .filter((e) => e.type.startsWith('travel_request.') && e.data.object.id === id)
        .map((e) => e.type)
        .sort()
    assert.deepEqual(of(t.id), ['travel_request.approved', 'travel_request.created', 'travel_request.submitted'])
    assert.deepEqual(of(c.id), ['travel_request.cancelled', 'travel_request.created'])
    const mine = await ok(
      s.admin({
        method: 'GET',
        url: `/api/v3/travel-requests/?traveller=${traveller.profileId}&status=cancelled&page_size=100`,
      }),
    )
    assert.ok((mine as unknown as { id: number }[]).some((x) => x.id === c.id))
    assert.ok(!(mine as unknown as { id: number }[]).some((x) => x.id === t.id))
    const csv = await clerk.api({ method: 'GET', url: `/api/v3/travel-requests/?format=csv&search=${t.number}` })
    assert.equal(csv.statusCode, 200)
    assert.match(csv.body, new RegExp(t.number))
    assert.equal((await s.admin({ method: 'GET', url: '/api/v3/travel-requests/?status=gone' })).statusCode, 400)
  })
})
