/**
 * DECISIONS, "Rules are checked when saved": every approver must hold nav_approval at the rule's location (a
 * rule of every location: at one location at least), else 400 naming each approver and the location;
 * `min_total` is in the base currency (a document's total ÷ its currency's rate, half-up); someone who approved
 * an earlier step is no candidate of the later ones, and a step left with no candidate for that reason is
 * approved at once in their name ("Approved at step n"); a step with no candidate at submit is refused with a
 * sentence naming the step, the location and what an administrator must do. Also the chain preview of a draft.
 */
import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import { useTestApp } from './helpers/app.ts'
import { decide, draft, line, rule, setUp, submit, type Person, type Setup } from './helpers/requests.ts'
import { BASE_DOMAIN } from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn' })
let s: Setup
let requester: Person
let ann: Person // Approver granted at A
let bob: Person // Approver role, home A
let carl: Person // Approver role, home B only
let dora: Person // Requester at A: no nav_approval anywhere

before(async () => {
  s = await setUp(ctx)
  requester = await s.user('req', s.roles.Requester, s.A)
  ann = await s.user('ann', s.roles.Requester, null, [{ location: s.A, role: s.roles.Approver }])
  bob = await s.user('bob', s.roles.Approver, s.A)
  carl = await s.user('carl', s.roles.Approver, s.B)
  dora = await s.user('dora', s.roles.Requester, s.A)
})

/** A fresh location (its own rules), where `people` get the Approver role and the requester nav_request. */
async function place(name: string, approvers: Person[]): Promise<number> {
  const address = {
    name,
    addressLineOne: '1 Main St',
    city: 'Springfield',
    postalCode: '12345',
    country: 'United States',
  }
  const created = await s.admin({
    method: 'POST',
    url: '/api/v2/locations/',
    payload: {
      name,
      currency: 'USD',
      phoneOne: '+1 555 0100',
      primary_billing_address: address,
      primary_shipping_address: address,
    },
  })
  assert.equal(created.statusCode, 201, created.body)
  const id = created.json().data.id as number
  for (const who of [...approvers, requester]) {
    const current = (await s.admin({ method: 'GET', url: `/api/v3/users/${who.profileId}/location-roles/` })).json()
      .data as { location: number; role: number }[]
    const role = who === requester ? s.roles.Requester : s.roles.Approver
    const grants = [...current.map((g) => ({ location: g.location, role: g.role })), { location: id, role }]
    const put = await s.admin({ method: 'PUT', url: `/api/v3/users/${who.profileId}/location-roles/`, payload: grants })
    assert.equal(put.statusCode, 200, put.body)
  }
  return id
}

const post = (body: object) => s.admin({ method: 'POST', url: '/api/v3/approval-rules/', payload: body })
const ids = (people: { id: number }[]) => people.map((p) => p.id)

describe('rules are checked when saved', () => {
  test('an approver without nav_approval at the location: 400 naming each approver and the location', async () => {
    const before = (await s.admin({ method: 'GET', url: '/api/v3/approval-rules/?page_size=100' })).json().count
    const refused = await post({ location: s.A, step: 1, approvers: [ann.profileId, dora.profileId, carl.profileId] })
    assert.equal(refused.statusCode, 400, refused.body)
    const body = refused.json()
    assert.equal(body.errors.approvers.length, 2)
    for (const [who, id] of [
      ['dora', dora.profileId],
      ['carl', carl.profileId],
    ] as const) {
      assert.match(body.detail, new RegExp(`${who} Tester \\(user ${id}\\)`))
      assert.ok(body.errors.approvers.some((m: string) => m.includes(`user ${id}`) && m.includes('Headquarters')))
    }
    assert.doesNotMatch(body.detail, /ann Tester/)
    assert.match(body.detail, /nav_approval at Headquarters/)
    assert.match(body.detail, /not saved/)
    const after = (await s.admin({ method: 'GET', url: '/api/v3/approval-rules/?page_size=100' })).json().count
    assert.equal(after, before, 'nothing was saved')

    // The same rule at B, where carl holds it, and PUT is checked the same way.
    const atB = await post({ location: s.B, step: 1, min_total: '999999', approvers: [carl.profileId] })
    assert.equal(atB.statusCode, 201, atB.body)
    const url = `/api/v3/approval-rules/${atB.json().data.id}/`
    const moved = await s.admin({ method: 'PUT', url, payload: { ...atB.json().data, location: s.A } })
    assert.equal(moved.statusCode, 400, moved.body)
    assert.match(moved.json().detail, /carl Tester .* at Headquarters/)
    assert.equal((await s.admin({ method: 'GET', url })).json().data.location, s.B, 'the rule kept its location')
    assert.equal((await s.admin({ method: 'DELETE', url })).statusCode, 204)
  })

  test('a rule of every location: its approvers must hold nav_approval at one location at least', async () => {
    const refused = await post({
      location: null,
      step: 1,
      min_total: '999999',
      approvers: [carl.profileId, dora.profileId],
    })
    assert.equal(refused.statusCode, 400, refused.body)
    assert.match(refused.json().detail, /dora Tester \(user \d+\) holds no nav_approval at any location/)
    assert.doesNotMatch(refused.json().detail, /carl/)
    const saved = await post({
      location: null,
      step: 1,
      min_total: '999999',
      approvers: [carl.profileId, ann.profileId],
    })
    assert.equal(saved.statusCode, 201, saved.body)
    assert.equal(
      (await s.admin({ method: 'DELETE', url: `/api/v3/approval-rules/${saved.json().data.id}/` })).statusCode,
      204,
    )
  })

  test('bill rules are checked the same way', async () => {
    const refused = await post({ location: s.A, step: 1, approvers: [dora.profileId], document: 'bill' })
    assert.equal(refused.statusCode, 400, refused.body)
    assert.match(refused.json().detail, /dora Tester/)
  })
})

describe('planning a chain', () => {
  test('min_total is in the base currency: the total ÷ its currency rate, half-up', async () => {
    const where = await place('Euro Office', [ann])
    const eur = await s.admin({
      method: 'POST',
      url: '/api/v2/currencies/',
      payload: { name: 'EUR', rate: '0.920000' },
    })
    assert.ok([201, 409].includes(eur.statusCode), eur.body)
    await rule(s.admin, { location: where, step: 1, min_total: '1000', approvers: [ann.profileId] })
    // 920.00 EUR ÷ 0.92 = 1,000.00 USD: at the threshold. 919.99 EUR = 999.99 USD: below it.
    const at = await draft(requester.api, where, [line('1', '920')], { currency: 'EUR' })
    const preview = await requester.api({ method: 'GET', url: `/api/v3/requests/${at.id}/approval-preview/` })
    assert.equal(preview.statusCode, 200, preview.body)
    assert.equal(preview.json().data.base_total, '1000.00')
    assert.equal((await submit(requester.api, at.id)).json().data.status, 'pending')
    const below = await draft(requester.api, where, [line('1', '919.99')], { currency: 'EUR' })
    assert.equal((await submit(requester.api, below.id)).json().data.status, 'approved')
    // In USD, 999.99 stays below and 1000 matches.
    const usd = await draft(requester.api, where, [line('1', '999.99')])
    assert.equal((await submit(requester.api, usd.id)).json().data.status, 'approved')
  })

  test('who approved an earlier step is no candidate of a later one; a step left without one is approved at once', async () => {
    const where = await place('Twice Office', [ann, bob])
    await rule(s.admin, { location: where, step: 1, approvers: [ann.profileId, bob.profileId] })
    await rule(s.admin, { location: null, step: 2, min_total: '500', approvers: [ann.profileId] })
    await rule(s.admin, { location: where, step: 3, min_total: '500', approvers: [ann.profileId, bob.profileId] })

    // The preview shows the three steps before the submit.
    const r = await draft(requester.api, where, [line('1', '600')])
    const preview = (await requester.api({ method: 'GET', url: `/api/v3/requests/${r.id}/approval-preview/` })).json()
      .data
    assert.deepEqual(
      preview.steps.map((p: { step: number; candidates: { id: number }[] }) => [p.step, ids(p.candidates)]),
      [
        [1, [ann.profileId, bob.profileId].sort((a, b) => a - b)],
        [2, [ann.profileId]],
        [3, [ann.profileId, bob.profileId].sort((a, b) => a - b)],
      ],
    )
    assert.equal(preview.submittable, true)

    // Ann approves step 1: step 2 (ann only) is approved at once in her name; step 3 waits for bob alone.
    const first = (await submit(requester.api, r.id)).json().data.approvals[0]
    const ok = await decide(ann.api, first.id, 'approve')
    assert.equal(ok.statusCode, 200, ok.body)
    let request = (await requester.api({ method: 'GET', url: `/api/v3/requests/${r.id}/` })).json().data
    assert.equal(request.status, 'pending')
    const [, second, third] = request.approvals
    assert.equal(second.step, 2)
    assert.equal(second.status, 'approved')
    assert.equal(second.acted_by.id, ann.profileId)
    assert.equal(second.comment, 'Approved at step 1')
    assert.equal(third.step, 3)
    assert.equal(third.status, 'pending')
    assert.deepEqual(ids(third.candidates), [bob.profileId])
    // Ann cannot decide step 3 (she is no candidate; she is not in its list).
    assert.notEqual((await decide(ann.api, third.id, 'approve')).statusCode, 200)
    assert.equal((await decide(bob.api, third.id, 'approve')).statusCode, 200)
    request = (await requester.api({ method: 'GET', url: `/api/v3/requests/${r.id}/` })).json().data
    assert.equal(request.status, 'approved')

    // Bob approves step 1 of another: ann decides step 2, and step 3 is then approved at once in her name
    // (bob and ann both approved earlier; the latest covers it).
    const other = await draft(requester.api, where, [line('1', '700')])
    const one = (await submit(requester.api, other.id)).json().data.approvals[0]
    assert.equal((await decide(bob.api, one.id, 'approve')).statusCode, 200)
    let next = (await requester.api({ method: 'GET', url: `/api/v3/requests/${other.id}/` })).json().data.approvals[1]
    assert.equal(next.status, 'pending')
    assert.deepEqual(ids(next.candidates), [ann.profileId])
    assert.equal((await decide(ann.api, next.id, 'approve')).statusCode, 200)
    const done = (await requester.api({ method: 'GET', url: `/api/v3/requests/${other.id}/` })).json().data
    assert.equal(done.status, 'approved')
    next = done.approvals[2]
    assert.equal(next.status, 'approved')
    assert.equal(next.acted_by.id, ann.profileId)
    assert.equal(next.comment, 'Approved at step 2')
  })

  test('a step with no candidate is refused naming the step, the location and what an administrator must do', async () => {
    const where = await place('Lonely Office', [ann])
    await rule(s.admin, { location: where, step: 1, approvers: [ann.profileId] })
    // Ann's grant there is withdrawn after the rule was saved.
    const grants = (await s.admin({ method: 'GET', url: `/api/v3/users/${ann.profileId}/location-roles/` })).json()
      .data as { location: number; role: number }[]
    const kept = grants.filter((g) => g.location !== where).map((g) => ({ location: g.location, role: g.role }))
    const put = await s.admin({ method: 'PUT', url: `/api/v3/users/${ann.profileId}/location-roles/`, payload: kept })
    assert.equal(put.statusCode, 200, put.body)
    const r = await draft(requester.api, where)
    const preview = (await requester.api({ method: 'GET', url: `/api/v3/requests/${r.id}/approval-preview/` })).json()
      .data
    assert.equal(preview.submittable, false)
    assert.deepEqual(preview.steps[0].candidates, [])
    const refused = await submit(requester.api, r.id)
    assert.equal(refused.statusCode, 409, refused.body)
    const detail = refused.json().detail as string
    assert.match(detail, /^Step 1 of the approval chain has no candidate at Lonely Office/)
    assert.match(detail, /An administrator must grant nav_approval at Lonely Office/)
    assert.equal(preview.steps[0].problem, detail)
    const still = (await requester.api({ method: 'GET', url: `/api/v3/requests/${r.id}/` })).json().data
    assert.equal(still.status, 'draft')
    // Once submitted, there is nothing to preview; a stranger's request is not found.
    const rules = (await s.admin({ method: 'GET', url: `/api/v3/approval-rules/?location=${where}` })).json().data
    for (const x of rules) await s.admin({ method: 'DELETE', url: `/api/v3/approval-rules/${x.id}/` })
    assert.equal((await submit(requester.api, r.id)).json().data.status, 'approved')
    const gone = await requester.api({ method: 'GET', url: `/api/v3/requests/${r.id}/approval-preview/` })
    assert.equal(gone.statusCode, 409, gone.body)
    assert.equal((await dora.api({ method: 'GET', url: `/api/v3/requests/${r.id}/approval-preview/` })).statusCode, 404)
  })
})
