/**
 * Purchase requests and permissions at a location (DECISIONS, "Permissions at a location" and "Purchase
 * requests and approvals"): drafts, edits, totals in exact decimals, visibility (own, candidate, or
 * nav_approval/nav_purchase/superuser at the location; anything else 404), status transitions (409 naming
 * the current status), and the list's filters, order and CSV.
 */
import assert from 'node:assert/strict'
import { beforeEach, describe, test } from 'node:test'
import { useTestApp } from './helpers/app.ts'
import { draft, line, setUp, submit, type Person, type Setup } from './helpers/requests.ts'
import { BASE_DOMAIN } from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn' })
let s: Setup
let requester: Person // nav_request at A only
let approverA: Person // Requester role, Approver granted at A
let outsider: Person // Approver at B only
let buyerB: Person // Buyer (nav_purchase) at B only

let ready = false
beforeEach(async () => {
  if (ready) return
  ready = true
  s = await setUp(ctx)
  requester = await s.user('req', s.roles.Requester, s.A)
  approverA = await s.user('appra', s.roles.Requester, null, [{ location: s.A, role: s.roles.Approver }])
  outsider = await s.user('outsider', s.roles.Approver, s.B)
  buyerB = await s.user('buyerb', s.roles.Buyer, s.B)
})

describe('permissions at a location', () => {
  test('me.systemaccess_cache shows the set at each location: grants at L, the profile role at the user’s locations', async () => {
    const me = (await approverA.api({ method: 'GET', url: '/api/v3/users/me/' })).json().data
    const cache = me.systemaccess_cache
    assert.deepEqual(Object.keys(cache.structured).sort(), [String(s.A), 'system'].sort())
    assert.deepEqual(cache.structured[String(s.A)].flattened, ['nav_approval', 'nav_request'])
    assert.deepEqual(cache.structured.system.flattened, ['nav_request'])
    const req = (await requester.api({ method: 'GET', url: '/api/v3/users/me/' })).json().data.systemaccess_cache
    assert.deepEqual(req.structured[String(s.A)].flattened, ['nav_request'], 'the profile role at the home location')
    assert.equal(req.structured[String(s.B)], undefined)
  })

  test('nav_request only at A: creating at B is 403 and writes nothing', async () => {
    const denied = await requester.api({
      method: 'POST',
      url: '/api/v3/requests/',
      payload: { location: s.B, lines: [line('1', '1')] },
    })
    assert.equal(denied.statusCode, 403, denied.body)
    assert.match(denied.json().detail, /nav_request/)
    const all = await s.admin({ method: 'GET', url: `/api/v3/requests/?location=${s.B}` })
    assert.equal(all.json().metadata.pagination.count, 0)
  })

  test('who sees a request: its requester, nav_approval at its location, a superuser — others get 404', async () => {
    const r = await draft(requester.api, s.A)
    for (const [who, status] of [
      [requester, 200],
      [approverA, 200],
      [outsider, 404],
      [buyerB, 404],
    ] as const) {
      const got = await who.api({ method: 'GET', url: `/api/v3/requests/${r.id}/` })
      assert.equal(got.statusCode, status, `${got.body}`)
      const listed = (await who.api({ method: 'GET', url: '/api/v3/requests/?page_size=100' })).json().data
      assert.equal(
        listed.some((x: { id: number }) => x.id === r.id),
        status === 200,
      )
    }
    assert.equal((await s.admin({ method: 'GET', url: `/api/v3/requests/${r.id}/` })).statusCode, 200)
    const b = await draft(s.admin, s.B)
    assert.equal(
      (await buyerB.api({ method: 'GET', url: `/api/v3/requests/${b.id}/` })).statusCode,
      200,
      'nav_purchase at B',
    )
    assert.equal((await requester.api({ method: 'GET', url: `/api/v3/requests/${b.id}/` })).statusCode, 404)
    assert.equal(
      (await outsider.api({ method: 'PATCH', url: `/api/v3/requests/${r.id}/`, payload: { description: 'x' } }))
        .statusCode,
      404,
    )
    assert.equal((await outsider.api({ method: 'POST', url: `/api/v3/requests/${r.id}/cancel/` })).statusCode, 404)
  })
})

describe('requests', () => {
  test('a draft: fields, lines, total Σ quantity × unit_price rounded half-up, exact decimals', async () => {
    const r = await draft(
      requester.api,
      s.A,
      [line('3', '19.99', 'Chair'), line('0.3333', '0.015', 'Screws'), line('2.5000', '0.1')],
      {
        department: s.departmentA,
        description: 'For the new hires',
        needed_by: '2026-12-15',
      },
    )
    // 59.97 + 0.0049995 + 0.25 = 60.2249995 → 60.22
    assert.equal(r.total, '60.22')
    assert.equal(r.status, 'draft')
    assert.equal(r.currency, 'USD')
    assert.equal(r.needed_by, '2026-12-15')
    assert.deepEqual(r.location.id, s.A)
    assert.equal(r.department.id, s.departmentA)
    assert.deepEqual(r.requester, {
      id: requester.profileId,
      first_name: 'req',
      last_name: 'Tester',
      email: `req@${s.tenant.domain}.test`,
    })
    assert.deepEqual(
      r.lines.map((l: { quantity: string; unit_price: string }) => [l.quantity, l.unit_price]),
      [
        ['3', '19.99'],
        ['0.3333', '0.015'],
        ['2.5', '0.1'],
      ],
    )
    assert.deepEqual(r.approvals, [])
    assert.equal(r.submitted_at, null)
    const half = await draft(requester.api, s.A, [line('1', '0.005'), line('0.1', '0.1'), line('0.2', '0.2')])
    assert.equal(half.total, '0.06', '0.005 + 0.01 + 0.04 = 0.055 → 0.06 (half-up, where a float gives 0.05)')
    const big = await draft(requester.api, s.A, [line('9999999999999999.9999', '9999999999999999.9999')])
    // (10^16 - 10^-4)^2 = 10^32 - 2·10^12 + 10^-8 → exact, then rounded
    assert.equal(big.total, '99999999999999999998000000000000.00')
    const sent = await draft(requester.api, s.A, [line('1', '1')], { total: '5' })
    assert.equal(sent.total, '1.00', 'a total in the body is ignored: the service computes it')
  })

  test('bad input is a 400 naming the field, and writes nothing', async () => {
    const before = (await s.admin({ method: 'GET', url: '/api/v3/requests/' })).json().metadata.pagination.count
    const cases: [object, string][] = [
      [{ location: s.A, lines: [line('1e3', '1')] }, 'lines.0.quantity'],
      [{ location: s.A, lines: [line('1', '-1')] }, 'lines.0.unit_price'],
      [{ location: s.A, lines: [line('1', '1.23456')] }, 'lines.0.unit_price'],
      [{ location: s.A, lines: [line('0', '1')] }, 'lines.0.quantity'],
      [{ location: s.A, lines: [] }, 'lines'],
      [{ location: s.A, lines: Array.from({ length: 201 }, () => line('1', '1')) }, 'lines'],
      [{ location: s.A, lines: [{ ...line('1', '1'), vendor: 999999 }] }, 'lines.0.vendor'],
      [{ location: s.B, department: s.departmentA, lines: [line('1', '1')] }, 'department'],
      [{ location: s.A, currency: 'XXX', lines: [line('1', '1')] }, 'currency'],
      [{ location: 999999, lines: [line('1', '1')] }, 'location'],
      [JSON.parse(`{"location": ${s.A}, "lines": [{"quantity": "1", "unit_price": "1"}], "__proto__": {"x": 1}}`), ''],
      [{ location: s.A, lines: [{ ...line('1', '1'), description: 'bad \ud800' }] }, ''],
    ]
    for (const [payload, field] of cases) {
      const response = await s.admin({ method: 'POST', url: '/api/v3/requests/', payload })
      assert.equal(response.statusCode, 400, `${JSON.stringify(payload).slice(0, 80)} → ${response.body}`)
      if (field !== '') assert.ok(field in (response.json().errors ?? {}), `${field}: ${response.body}`)
    }
    assert.equal((await s.admin({ method: 'GET', url: '/api/v3/requests/' })).json().metadata.pagination.count, before)
  })

  test('edit while draft; submit; then edits are 409; cancel from draft or pending only', async () => {
    const r = await draft(requester.api, s.A)
    const patched = await requester.api({
      method: 'PATCH',
      url: `/api/v3/requests/${r.id}/`,
      payload: { description: 'Updated', lines: [line('2', '10')] },
    })
    assert.equal(patched.statusCode, 200, patched.body)
    assert.equal(patched.json().data.total, '20.00')
    assert.equal(patched.json().data.description, 'Updated')
    const roundTrip = await requester.api({
      method: 'PATCH',
      url: `/api/v3/requests/${r.id}/`,
      payload: patched.json().data,
    })
    assert.equal(roundTrip.statusCode, 200, roundTrip.body)
    assert.equal(roundTrip.json().data.total, '20.00')
    const toB = await requester.api({ method: 'PATCH', url: `/api/v3/requests/${r.id}/`, payload: { location: s.B } })
    assert.equal(toB.statusCode, 403, 'no nav_request at B')
    const byOther = await approverA.api({
      method: 'PATCH',
      url: `/api/v3/requests/${r.id}/`,
      payload: { description: 'x' },
    })
    assert.equal(byOther.statusCode, 403)

    const submitted = await submit(requester.api, r.id)
    assert.equal(submitted.statusCode, 200, submitted.body)
    assert.equal(submitted.json().data.status, 'approved', 'no rule matches: approved at once')
    assert.match(submitted.json().data.submitted_at, /^\d{4}-/)
    const late = await requester.api({
      method: 'PATCH',
      url: `/api/v3/requests/${r.id}/`,
      payload: { description: 'x' },
    })
    assert.equal(late.statusCode, 409)
    assert.match(late.json().detail, /approved/)
    assert.equal((await submit(requester.api, r.id)).statusCode, 409)
    const cancelApproved = await requester.api({ method: 'POST', url: `/api/v3/requests/${r.id}/cancel/` })
    assert.equal(cancelApproved.statusCode, 409)
    assert.match(cancelApproved.json().detail, /approved/)

    const d = await draft(requester.api, s.A)
    const cancelled = await requester.api({ method: 'POST', url: `/api/v3/requests/${d.id}/cancel/` })
    assert.equal(cancelled.statusCode, 200)
    assert.equal(cancelled.json().data.status, 'cancelled')
    assert.equal((await requester.api({ method: 'POST', url: `/api/v3/requests/${d.id}/cancel/` })).statusCode, 409)
  })

  test('list: filters status, location, requester, search; order_by total; CSV; bad order is 400', async () => {
    const own = await s.user('lister', s.roles.Requester, s.A)
    const cheap = await draft(own.api, s.A, [line('1', '5')], { description: 'Cheap pens' })
    const dear = await draft(own.api, s.A, [line('1', '500')], { description: 'Dear desk' })
    const list = async (q: string) => (await s.admin({ method: 'GET', url: `/api/v3/requests/?${q}` })).json()
    const ids = (body: { data: { id: number }[] }) => body.data.map((x) => x.id)
    assert.deepEqual(ids(await list(`requester=${own.profileId}&order_by=-total`)), [dear.id, cheap.id])
    assert.deepEqual(ids(await list(`requester=${own.profileId}&order_by=total`)), [cheap.id, dear.id])
    assert.deepEqual(ids(await list(`requester=${own.profileId}&search=PENS`)), [cheap.id])
    assert.deepEqual(ids(await list(`requester=${own.profileId}&status=draft&location=${s.A}&order_by=-created_at`)), [
      dear.id,
      cheap.id,
    ])
    assert.deepEqual(ids(await list(`requester=${own.profileId}&location=${s.B}`)), [])
    const csv = await s.admin({ method: 'GET', url: `/api/v3/requests/?requester=${own.profileId}&format=csv` })
    assert.match(String(csv.headers['content-type']), /text\/csv/)
    assert.equal(csv.body.trim().split('\r\n').length, 3)
    assert.equal((await s.admin({ method: 'GET', url: '/api/v3/requests/?order_by=requester' })).statusCode, 400)
    assert.equal((await s.admin({ method: 'GET', url: '/api/v3/requests/?status=open' })).statusCode, 400)
  })
  test('Idempotency-Key on POST replays the first answer (one write); every write is audited', async () => {
    const payload = { location: s.A, lines: [line('1', '2')] }
    const headers = { 'idempotency-key': 'req-key-1' }
    const first = await requester.api({ method: 'POST', url: '/api/v3/requests/', payload, headers })
    const again = await requester.api({ method: 'POST', url: '/api/v3/requests/', payload, headers })
    assert.equal(first.statusCode, 201)
    assert.equal(again.body, first.body)
    const other = await requester.api({
      method: 'POST',
      url: '/api/v3/requests/',
      payload: { ...payload, description: 'x' },
      headers,
    })
    assert.equal(other.statusCode, 422)
    const id = first.json().data.id
    const submitHeaders = { 'idempotency-key': 'submit-key-1' }
    const submitted = await requester.api({
      method: 'POST',
      url: `/api/v3/requests/${id}/submit/`,
      headers: submitHeaders,
    })
    const replayed = await requester.api({
      method: 'POST',
      url: `/api/v3/requests/${id}/submit/`,
      headers: submitHeaders,
    })
    assert.equal(submitted.statusCode, 200)
    assert.equal(replayed.body, submitted.body, 'a replay, not a 409 for submitting twice')
    const entries = await ctx.database.db
      .selectFrom('audit_log')
      .select(['action', 'actor_user_id'])
      .where('tenant_id', '=', s.tenant.tenantId)
      .where('resource_type', '=', 'request')
      .where('resource_id', '=', String(id))
      .orderBy('id')
      .execute()
    assert.deepEqual(entries, [
      { action: 'request.create', actor_user_id: requester.userId },
      { action: 'request.submit', actor_user_id: requester.userId },
    ])
  })
})
