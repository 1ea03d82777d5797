/**
 * Accounts, budgets and the checks (DECISIONS, "Accounts, budgets and the commitment ledger"), through HTTP:
 * accounts (unique code ignoring case, writers, inactive on a line → 400 naming it, `{id, code, name}` on read);
 * budgets (validation, computed figures, used_percent, permissions: writers, nav_report readers, the owner,
 * others 404), the request's stage moves (submit → pending, approve → committed, reject and cancel reverse),
 * the three actions at request submit (warn with budget_warnings, block 409 with nothing changed, approve with
 * the owner's step first — also with no rule — and never the submitter), `budget.exceeded` (the budget as
 * `data.object`, the document as `data.document`), the entries list
 * and the check endpoint.
 */
import assert from 'node:assert/strict'
import { beforeEach, describe, test } from 'node:test'
import { useTestApp } from './helpers/app.ts'
import { decide, draft, rule, setUp, submit, type Person, type Setup } from './helpers/requests.ts'
import { BASE_DOMAIN, roleWith, type Api } from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' })
let s: Setup
let requester: Person
let approver: Person
let manager: Person
let reporter: Person
let owner: Person
let outsider: Person
let ready = false
let seq = 0

beforeEach(async () => {
  if (ready) return
  ready = true
  s = await setUp(ctx)
  requester = await s.user('requester', s.roles.Requester, s.A)
  approver = await s.user('approver', s.roles.Approver, s.A)
  const manage = await roleWith(ctx, s.tenant, 'Budget manager', ['nav_manage'], 8)
  const report = await roleWith(ctx, s.tenant, 'Reporter', ['nav_report'], 8)
  manager = await s.user('manager', manage, s.A)
  reporter = await s.user('reporter', report, s.A)
  owner = await s.user('owner', s.roles.Requester, s.B)
  outsider = await s.user('outsider', s.roles.Requester, s.A)
})

// The tests read answers loosely: each assertion names the field it checks.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>
async function ok(response: Promise<{ statusCode: number; body: string; json(): { data: unknown } }>, status = 200) {
  const r = await response
  assert.equal(r.statusCode, status, r.body)
  return r.json().data as Json
}
const post = (api: Api, url: string, payload?: object) =>
  api({ method: 'POST', url, ...(payload === undefined ? {} : { payload }) })
const get = (api: Api, url: string) => api({ method: 'GET', url })
const today = () => new Date().toISOString().slice(0, 10)
const year = () => {
  const y = new Date().getUTCFullYear()
  return { period_start: `${y}-01-01`, period_end: `${y}-12-31` }
}
async function account(active = true) {
  return ok(post(s.admin, '/api/v3/accounts/', { code: `5${++seq}00`, name: `Supplies ${seq}`, active }), 201)
}
async function budget(body: object, api: Api = s.admin) {
  return ok(post(api, '/api/v3/budgets/', { name: `Budget ${++seq}`, ...year(), action: 'warn', ...body }), 201)
}
const figures = async (id: number) => ok(get(s.admin, `/api/v3/budgets/${id}/`))
const ln = (quantity: string, unit_price: string, account: number | null) => ({
  description: 'Item',
  quantity,
  unit_price,
  account,
})
async function submitted(lines: object[], api: Api = requester.api) {
  const r = await draft(api, s.A, lines as never)
  return ok(submit(api, r.id))
}
const entries = async (id: number) => (await get(s.admin, `/api/v3/budgets/${id}/entries/`)).json().data as Json[]
const events = async (type: string) =>
  ((await get(s.admin, `/api/v3/events/?type=${type}&page_size=1000`)).json().data as Json[]).map(
    (e) => (e as { data: { object: Json } }).data.object,
  )

describe('accounts', () => {
  test('codes unique ignoring case; writers only; read by every user; PUT; events', async () => {
    const a = await ok(post(s.admin, '/api/v3/accounts/', { code: 'Acct-X1', name: 'Office' }), 201)
    assert.deepEqual(a, { id: a.id, code: 'Acct-X1', name: 'Office', active: true })
    const dup = await post(s.admin, '/api/v3/accounts/', { code: 'acct-x1' })
    assert.equal(dup.statusCode, 409, dup.body)
    assert.match(dup.json().detail, /already exists/)
    assert.equal((await post(s.admin, '/api/v3/accounts/', { code: '' })).statusCode, 400)
    assert.equal((await post(s.admin, '/api/v3/accounts/', { code: 'x'.repeat(33) })).statusCode, 400)
    assert.equal((await post(requester.api, '/api/v3/accounts/', { code: 'NOPE' })).statusCode, 403)
    assert.equal((await ok(get(requester.api, `/api/v3/accounts/${a.id}/`))).code, 'Acct-X1')
    const put = await ok(
      requester.api === s.admin
        ? Promise.reject(new Error('unreachable'))
        : s.admin({ method: 'PUT', url: `/api/v3/accounts/${a.id}/`, payload: { code: 'ACCT-X1', name: 'Office 2' } }),
    )
    assert.equal(put.name, 'Office 2')
    const b = await account()
    const clash = await s.admin({ method: 'PUT', url: `/api/v3/accounts/${b.id}/`, payload: { code: 'acct-X1' } })
    assert.equal(clash.statusCode, 409)
    assert.equal((await get(s.admin, '/api/v3/accounts/99999999/')).statusCode, 404)
    const created = await events('account.created')
    assert.ok(created.some((o) => o.id === a.id))
    assert.ok((await events('account.updated')).some((o) => o.id === a.id && o.name === 'Office 2'))
  })

  test('request lines: account id on write, {id, code, name} on read; unknown or inactive → 400 naming the line', async () => {
    const a = await account()
    const off = await account(false)
    const r = await draft(requester.api, s.A, [ln('1', '10', a.id), ln('2', '3', null)] as never)
    assert.deepEqual(r.lines[0].account, { id: a.id, code: a.code, name: a.name })
    assert.equal(r.lines[1].account, null)
    assert.deepEqual(r.budget_warnings, [])
    const bad = await post(requester.api, '/api/v3/requests/', {
      location: s.A,
      lines: [ln('1', '1', a.id), ln('1', '1', off.id)],
    })
    assert.equal(bad.statusCode, 400, bad.body)
    assert.match(JSON.stringify(bad.json()), /line 2.*inactive/)
    const none = await post(requester.api, '/api/v3/requests/', { location: s.A, lines: [ln('1', '1', 99999999)] })
    assert.equal(none.statusCode, 400, none.body)
    assert.match(JSON.stringify(none.json()), /lines\.0\.account/)
    // A GET body sent back as it is (account objects, budget_warnings) is accepted.
    const back = await requester.api({ method: 'PATCH', url: `/api/v3/requests/${r.id}/`, payload: r })
    assert.equal(back.statusCode, 200, back.body)
    assert.equal(back.json().data.lines[0].account.id, a.id)
  })
})

describe('budgets', () => {
  test('validation: period, amount, owner for approve, department at the location, computed fields ignored', async () => {
    const bad = async (body: object, field: string) => {
      const r = await post(s.admin, '/api/v3/budgets/', { name: 'B', ...year(), amount: '10', action: 'warn', ...body })
      assert.equal(r.statusCode, 400, `${JSON.stringify(body)} → ${r.body}`)
      assert.match(r.body, new RegExp(field))
    }
    await bad({ period_start: '2026-02-01', period_end: '2026-01-31' }, 'period_end')
    await bad({ period_start: '2026-01-01', period_end: '2027-01-02' }, 'period_end') // 367 days
    await bad({ amount: '-1' }, 'amount')
    await bad({ amount: '1.234' }, 'amount')
    await bad({ action: 'approve' }, 'owner')
    await bad({ action: 'stop' }, 'action')
    await bad({ location: s.B, department: s.departmentA }, 'department')
    await bad({ owner: 99999999 }, 'owner')
    await bad({ __proto__: { x: 1 }, extra: 1 }, 'extra')
    // 2028 is a leap year: 366 days counting both ends is allowed.
    const leap = await budget({ period_start: '2028-01-01', period_end: '2028-12-31', amount: '0', pending: '5' })
    assert.equal(leap.pending, '0.00')
    assert.equal(leap.used_percent, null)
    assert.equal(leap.available, '0.00')
  })

  test('permissions: superuser or nav_manage at its location write; nav_report there and the owner read; others 404', async () => {
    const b = await budget({ location: s.A, amount: '100', owner: owner.profileId }, manager.api)
    assert.equal(b.owner, owner.profileId)
    const everywhere = await post(manager.api, '/api/v3/budgets/', {
      name: 'All',
      ...year(),
      amount: '1',
      action: 'warn',
    })
    assert.equal(everywhere.statusCode, 403, everywhere.body)
    const atB = await post(manager.api, '/api/v3/budgets/', {
      name: 'B',
      location: s.B,
      ...year(),
      amount: '1',
      action: 'warn',
    })
    assert.equal(atB.statusCode, 403)
    assert.equal((await get(reporter.api, `/api/v3/budgets/${b.id}/`)).statusCode, 200)
    assert.equal((await get(owner.api, `/api/v3/budgets/${b.id}/`)).statusCode, 200)
    assert.equal((await get(outsider.api, `/api/v3/budgets/${b.id}/`)).statusCode, 404)
    assert.equal((await get(outsider.api, `/api/v3/budgets/${b.id}/entries/`)).statusCode, 404)
    const put = await reporter.api({ method: 'PUT', url: `/api/v3/budgets/${b.id}/`, payload: { ...b, amount: '5' } })
    assert.equal(put.statusCode, 403)
    const del = await outsider.api({ method: 'DELETE', url: `/api/v3/budgets/${b.id}/` })
    assert.equal(del.statusCode, 404)
    const listed = (await get(reporter.api, '/api/v3/budgets/?page_size=1000')).json().data as Json[]
    assert.ok(listed.some((x) => x.id === b.id))
    const hidden = (await get(outsider.api, '/api/v3/budgets/?page_size=1000')).json().data as Json[]
    assert.ok(!hidden.some((x) => x.id === b.id))
    const all = await budget({ amount: '1', period_start: '2019-01-01', period_end: '2019-12-31' })
    // nav_report in the tenant-wide set (the profile's role) reads budgets of every location; others do not.
    assert.equal((await get(reporter.api, `/api/v3/budgets/${all.id}/`)).statusCode, 200)
    assert.equal((await get(manager.api, `/api/v3/budgets/${all.id}/`)).statusCode, 404)
    const edited = await ok(
      manager.api({ method: 'PUT', url: `/api/v3/budgets/${b.id}/`, payload: { ...b, amount: '250.5' } }),
    )
    assert.equal(edited.amount, '250.50')
    assert.equal((await manager.api({ method: 'DELETE', url: `/api/v3/budgets/${b.id}/` })).statusCode, 204)
    assert.equal((await get(s.admin, `/api/v3/budgets/${b.id}/`)).statusCode, 404)
    for (const type of ['budget.created', 'budget.updated', 'budget.deleted'])
      assert.ok(
        (await events(type)).some((o) => o.id === b.id),
        type,
      )
  })

  test('a request moves pending → committed on approval; rejection and cancellation write reversing entries', async () => {
    const a = await account()
    const b = await budget({ account: a.id, amount: '1000' })
    await rule(s.admin, { location: s.A, step: 1, approvers: [approver.profileId], min_total: '0' })
    try {
      const r1 = await submitted([ln('3', '19.99', a.id), ln('1', '5', null)])
      assert.equal(r1.status, 'pending')
      let f = await figures(b.id)
      assert.deepEqual(
        [f.pending, f.committed, f.spent, f.available, f.used_percent],
        ['59.97', '0.00', '0.00', '940.03', '6.0'],
      )
      const approval = (await get(approver.api, `/api/v3/approvals/?request=${r1.id}`)).json().data[0]
      assert.equal((await decide(approver.api, approval.id, 'approve')).statusCode, 200)
      f = await figures(b.id)
      assert.deepEqual([f.pending, f.committed], ['0.00', '59.97'])
      const list = await entries(b.id)
      assert.deepEqual(
        list.slice(0, 2).map((e) => [e.stage, e.amount, e.reason]),
        [
          ['committed', '59.97', 'approved'],
          ['pending', '-59.97', 'approved'],
        ],
      )
      const e = list[0] as unknown as {
        document: object
        budget_date: string
        currency: string
        rate: string
        account: number
      }
      assert.deepEqual(e.document, { type: 'request', id: r1.id, number: `#${r1.id}` })
      assert.equal(e.budget_date, today())
      assert.equal(e.account, a.id)
      assert.equal(e.currency, 'USD')
      const r2 = await submitted([ln('1', '100', a.id)])
      const a2 = (await get(approver.api, `/api/v3/approvals/?request=${r2.id}`)).json().data[0]
      assert.equal((await decide(approver.api, a2.id, 'reject', 'No')).statusCode, 200)
      f = await figures(b.id)
      assert.deepEqual([f.pending, f.committed], ['0.00', '59.97'])
      assert.equal((await entries(b.id))[0]!.reason, 'rejected')
      const r3 = await submitted([ln('1', '40', a.id)])
      assert.equal((await figures(b.id)).pending, '40.00')
      assert.equal((await ok(post(requester.api, `/api/v3/requests/${r3.id}/cancel/`))).status, 'cancelled')
      f = await figures(b.id)
      assert.deepEqual([f.pending, f.committed, f.available], ['0.00', '59.97', '940.03'])
      assert.equal((await entries(b.id))[0]!.reason, 'cancelled')
      // A draft counts nothing.
      await draft(requester.api, s.A, [ln('1', '500', a.id)] as never)
      assert.equal((await figures(b.id)).available, '940.03')
    } finally {
      const rules = (await get(s.admin, '/api/v3/approval-rules/?page_size=1000')).json().data as Json[]
      for (const r of rules) await s.admin({ method: 'DELETE', url: `/api/v3/approval-rules/${r.id}/` })
    }
  })

  test('warn: the request proceeds and carries budget_warnings; budget.exceeded; null dimensions match any', async () => {
    const a = await account()
    const b = await budget({ account: a.id, location: s.A, amount: '100', action: 'warn' })
    const r = await submitted([ln('1', '80', a.id)])
    assert.deepEqual(r.budget_warnings, [])
    const over = await submitted([ln('3', '10', a.id)])
    assert.equal(over.status, 'approved')
    assert.deepEqual(over.budget_warnings, [
      { budget: { id: b.id, name: b.name }, available: '20.00', requested: '30.00', over_by: '10.00' },
    ])
    const again = await ok(get(requester.api, `/api/v3/requests/${over.id}/`))
    assert.deepEqual(again.budget_warnings, over.budget_warnings)
    const f = await figures(b.id)
    assert.deepEqual([f.committed, f.available, f.used_percent], ['110.00', '-10.00', '110.0'])
    const exceeded = (await events('budget.exceeded')).filter((o) => o.id === b.id)
    assert.equal(exceeded.length, 1)
    assert.equal(exceeded[0]!.available, '-10.00')
    // DECISIONS to the letter: `{id, type, created_at, data: {object, document}}`, the object the budget exactly as
    // GET returns it (nothing added), the document `{type, id}` beside it — in the feed and as one event.
    const feed = (await get(s.admin, '/api/v3/events/?type=budget.exceeded&page_size=1000')).json().data as Json[]
    const event = feed.find((e) => e.data.object.id === b.id)!
    assert.deepEqual(Object.keys(event).sort(), ['created_at', 'data', 'id', 'type'])
    assert.equal(event.type, 'budget.exceeded')
    assert.deepEqual(event.data, { object: f, document: { type: 'request', id: over.id } })
    assert.deepEqual(await ok(get(s.admin, `/api/v3/events/${event.id}/`)), event)
    // Further below zero: another event.
    await submitted([ln('1', '1', a.id)])
    assert.equal((await events('budget.exceeded')).filter((o) => o.id === b.id).length, 2)
    assert.ok(r.id > 0)
  })

  test('block: 409 naming the budget, available and asked; nothing changes', async () => {
    const a = await account()
    const b = await budget({ account: a.id, amount: '50', action: 'block' })
    await submitted([ln('1', '30', a.id)])
    const d = await draft(requester.api, s.A, [ln('1', '25', a.id)] as never)
    const before = (await entries(b.id)).length
    const r = await submit(requester.api, d.id)
    assert.equal(r.statusCode, 409, r.body)
    assert.match(r.json().detail, new RegExp(`${b.name}.*20\\.00 available.*asks 25\\.00`))
    assert.equal((await ok(get(requester.api, `/api/v3/requests/${d.id}/`))).status, 'draft')
    assert.equal((await entries(b.id)).length, before)
    assert.equal((await figures(b.id)).available, '20.00')
    // Within: it passes.
    const fits = await requester.api({
      method: 'PATCH',
      url: `/api/v3/requests/${d.id}/`,
      payload: { lines: [ln('1', '20', a.id)] },
    })
    assert.equal(fits.statusCode, 200, fits.body)
    assert.equal((await ok(submit(requester.api, d.id))).status, 'approved')
    assert.equal((await figures(b.id)).available, '0.00')
  })

  test('approve: the owner decides an extra first step, with no rule too; never the submitter; ordered by budget id', async () => {
    const a = await account()
    const b1 = await budget({ account: a.id, amount: '10', action: 'approve', owner: owner.profileId })
    const b2 = await budget({ account: a.id, amount: '5', action: 'approve', owner: approver.profileId })
    const r = await submitted([ln('1', '20', a.id)])
    assert.equal(r.status, 'pending')
    assert.equal(r.approvals.length, 1)
    const first = r.approvals[0] as unknown as { id: number; step: number; candidates: { id: number }[] }
    assert.equal(first.step, 1)
    assert.deepEqual(
      first.candidates.map((c) => c.id),
      [owner.profileId],
    )
    // The owner holds no approval permission (Requester role at B): owning the budget is the authority.
    assert.equal((await decide(owner.api, first.id, 'approve')).statusCode, 200)
    const after = await ok(get(requester.api, `/api/v3/requests/${r.id}/`))
    const second = (after.approvals as unknown as { id: number; step: number; candidates: { id: number }[] }[])[1]!
    assert.equal(second.step, 2)
    assert.deepEqual(
      second.candidates.map((c) => c.id),
      [approver.profileId],
    )
    assert.equal((await decide(approver.api, second.id, 'approve')).statusCode, 200)
    assert.equal((await ok(get(requester.api, `/api/v3/requests/${r.id}/`))).status, 'approved')
    assert.equal((await figures(b1.id)).committed, '20.00')
    assert.ok((await events('budget.exceeded')).some((o) => o.id === b2.id))
    // The owner submitting over their own budget: no candidate → 409, the request stays a draft.
    const own = await account()
    await budget({ account: own.id, amount: '1', action: 'approve', owner: requester.profileId })
    const d = await draft(requester.api, s.A, [ln('1', '2', own.id)] as never)
    const refused = await submit(requester.api, d.id)
    assert.equal(refused.statusCode, 409, refused.body)
    assert.match(refused.json().detail, /no candidate/)
    assert.equal((await ok(get(requester.api, `/api/v3/requests/${d.id}/`))).status, 'draft')
  })

  test('budget_date and period: a budget of another period does not count; inactive budgets are not checked', async () => {
    const a = await account()
    const past = await budget({
      account: a.id,
      amount: '1',
      action: 'block',
      period_start: '2020-01-01',
      period_end: '2020-12-31',
    })
    const off = await budget({ account: a.id, amount: '1', action: 'block', active: false })
    const r = await submitted([ln('1', '10', a.id)])
    assert.equal(r.status, 'approved')
    assert.equal((await figures(past.id)).committed, '0.00')
    assert.equal((await figures(off.id)).committed, '10.00')
  })

  test('POST /budgets/check/ writes nothing and answers for every budget the lines match; needs nav_request', async () => {
    const a = await account()
    const other = await account()
    const b = await budget({ account: a.id, amount: '100', action: 'block' })
    await submitted([ln('1', '60', a.id)])
    const body = { document: 'request', location: s.A, lines: [ln('2', '25', a.id), ln('1', '5', other.id)] }
    const r = await ok(post(requester.api, '/api/v3/budgets/check/', body))
    const mine = (r.budgets as unknown as { budget: { id: number } }[]).find((x) => x.budget.id === b.id)
    assert.deepEqual(mine, {
      budget: { id: b.id, name: b.name, action: 'block' },
      available: '40.00',
      this_document: '50.00',
      over_by: '10.00',
    })
    const within = await ok(post(requester.api, '/api/v3/budgets/check/', { ...body, lines: [ln('1', '1', a.id)] }))
    assert.equal(
      (within.budgets as unknown as { budget: { id: number }; over_by: string }[]).find((x) => x.budget.id === b.id)!
        .over_by,
      '0.00',
    )
    assert.equal((await figures(b.id)).available, '40.00')
    const away = await post(requester.api, '/api/v3/budgets/check/', { ...body, location: s.B })
    assert.equal(away.statusCode, 403, away.body)
    assert.equal((await post(requester.api, '/api/v3/budgets/check/', { ...body, currency: 'XXX' })).statusCode, 400)
    assert.equal((await post(requester.api, '/api/v3/budgets/check/', { ...body, document: 'nope' })).statusCode, 400)
    const old = await ok(post(requester.api, '/api/v3/budgets/check/', { ...body, date: '2020-06-01' }))
    assert.ok(!(old.budgets as unknown as { budget: { id: number } }[]).some((x) => x.budget.id === b.id))
  })
})
