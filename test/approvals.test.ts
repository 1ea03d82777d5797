/**
 * Approval rules, routing on submit and the approvals inbox (DECISIONS, "Purchase requests and approvals"):
 * candidates are the rules' approvers holding nav_approval at the location, minus the requester; a step with
 * no candidate is a 409 that leaves a draft; steps run in order; one rejection ends the chain; a second
 * decision is a 409, and of two candidates deciding at the same instant exactly one wins.
 */
import assert from 'node:assert/strict'
import { beforeEach, describe, test } from 'node:test'
import { useTestApp } from './helpers/app.ts'
import { decide, draft, line, pendingOrders, rule, setUp, submit, type Person, type Setup } from './helpers/requests.ts'
import { BASE_DOMAIN } from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn' })
let s: Setup
let requester: Person
let first: Person // Approver granted at A
let second: Person // Approver role, home A
let noApproval: Person // Requester at A: listed in a rule, but not a candidate
let outsider: Person // Approver at B only

let ready = false
beforeEach(async () => {
  if (ready) return
  ready = true
  s = await setUp(ctx)
  requester = await s.user('req', s.roles.Approver, s.A)
  first = await s.user('first', s.roles.Requester, null, [{ location: s.A, role: s.roles.Approver }])
  second = await s.user('second', s.roles.Approver, s.A)
  noApproval = await s.user('noappr', s.roles.Requester, s.A)
  outsider = await s.user('outsider', s.roles.Approver, s.B)
  // Step 1 at A for every total; step 2 at A from 100.
  // Rules are checked when saved: noApproval (no nav_approval at A) and outsider (at B only) cannot be named.
  await rule(s.admin, { location: s.A, step: 1, approvers: [first.profileId, requester.profileId] })
  await rule(s.admin, { location: s.A, step: 2, min_total: '100', approvers: [second.profileId] })
})

describe('approval rules', () => {
  test('CRUD, validation, and only superuser or nav_setting manage them', async () => {
    const created = await rule(s.admin, {
      location: null,
      step: 3,
      min_total: '1000000.50',
      approvers: [second.profileId],
      active: false,
    })
    assert.deepEqual(created, {
      id: created.id,
      location: null,
      min_total: '1000000.5',
      step: 3,
      approvers: [second.profileId],
      active: false,
      document: 'request',
    })
    const url = `/api/v3/approval-rules/${created.id}/`
    assert.deepEqual((await s.admin({ method: 'GET', url })).json().data, created)
    // Managing rules, reading them included, is for superuser or nav_setting (DECISIONS).
    assert.equal((await first.api({ method: 'GET', url })).statusCode, 403)
    assert.equal((await first.api({ method: 'GET', url: '/api/v3/approval-rules/' })).statusCode, 403)
    const put = await s.admin({ method: 'PUT', url, payload: { ...created, step: 4 } })
    assert.equal(put.statusCode, 200, put.body)
    assert.equal(put.json().data.step, 4)
    for (const bad of [
      { step: 0, approvers: [first.profileId] },
      { step: 11, approvers: [first.profileId] },
      { step: 1, approvers: [] },
      { step: 1, approvers: Array.from({ length: 21 }, (_, i) => i + 1) },
      { step: 1, approvers: [999999] },
      { step: 1, location: 999999, approvers: [first.profileId] },
      { step: 1, min_total: '-1', approvers: [first.profileId] },
    ]) {
      const response = await s.admin({ method: 'POST', url: '/api/v3/approval-rules/', payload: bad })
      assert.equal(response.statusCode, 400, `${JSON.stringify(bad)} → ${response.body}`)
    }
    const denied = await first.api({
      method: 'POST',
      url: '/api/v3/approval-rules/',
      payload: { step: 1, approvers: [first.profileId] },
    })
    assert.equal(denied.statusCode, 403)
    assert.equal((await first.api({ method: 'DELETE', url })).statusCode, 403)
    assert.equal((await s.admin({ method: 'DELETE', url })).statusCode, 204)
    assert.equal((await s.admin({ method: 'GET', url })).statusCode, 404)
  })
})

describe('routing and decisions', () => {
  test('one step: candidates exclude the requester', async () => {
    const r = await draft(requester.api, s.A, [line('1', '50')])
    const submitted = await submit(requester.api, r.id)
    assert.equal(submitted.statusCode, 200, submitted.body)
    const body = submitted.json().data
    assert.equal(body.status, 'pending')
    assert.equal(body.approvals.length, 1)
    const approval = body.approvals[0]
    assert.equal(approval.step, 1)
    assert.equal(approval.status, 'pending')
    assert.equal(approval.kind, 'order')
    assert.deepEqual(
      approval.candidates.map((c: { id: number }) => c.id),
      [first.profileId],
    )
    assert.equal(await pendingOrders(first.api), 1)
    assert.equal(await pendingOrders(noApproval.api), 0)
    assert.equal(await pendingOrders(requester.api), 0)
    const inbox = (await first.api({ method: 'GET', url: '/api/v3/approvals/?approver=me&status=pending' })).json()
    assert.deepEqual(
      inbox.data.map((a: { id: number }) => a.id),
      [approval.id],
    )
    const profile = (await s.admin({ method: 'GET', url: `/api/v3/users/${first.profileId}/` })).json().data
    assert.equal(profile.pending_approvals_count.order, 1)
    const users = (await s.admin({ method: 'GET', url: '/api/v3/users/?page_size=100' })).json().data
    assert.equal(users.find((u: { id: number }) => u.id === first.profileId).pending_approvals_count.order, 1)

    const own = await decide(requester.api, approval.id, 'approve')
    assert.equal(own.statusCode, 403, 'nobody approves their own request')
    assert.equal((await decide(outsider.api, approval.id, 'approve')).statusCode, 404, 'outsider cannot see it')
    assert.equal((await decide(noApproval.api, approval.id, 'approve')).statusCode, 404)
    const ok = await decide(first.api, approval.id, 'approve', 'Fine')
    assert.equal(ok.statusCode, 200, ok.body)
    assert.equal(ok.json().data.status, 'approved')
    assert.equal(ok.json().data.acted_by.id, first.profileId)
    assert.equal(ok.json().data.approver.id, first.profileId)
    assert.equal(ok.json().data.on_behalf_of, null)
    assert.equal(ok.json().data.comment, 'Fine')
    const again = await decide(first.api, approval.id, 'reject', 'changed my mind')
    assert.equal(again.statusCode, 409)
    assert.match(again.json().detail, /approved/)
    const after = (await requester.api({ method: 'GET', url: `/api/v3/requests/${r.id}/` })).json().data
    assert.equal(after.status, 'approved')
    assert.equal(await pendingOrders(first.api), 0)
  })

  test('two steps: step 2 is created when step 1 is approved; a rejection needs a comment and ends the chain', async () => {
    const r = await draft(requester.api, s.A, [line('2', '75')])
    const body = (await submit(requester.api, r.id)).json().data
    assert.equal(body.approvals.length, 1, 'only step 1 exists at first')
    assert.equal((await decide(first.api, body.approvals[0].id, 'approve')).statusCode, 200)
    const mid = (await requester.api({ method: 'GET', url: `/api/v3/requests/${r.id}/` })).json().data
    assert.equal(mid.status, 'pending')
    assert.deepEqual(
      mid.approvals.map((a: { step: number; status: string }) => [a.step, a.status]),
      [
        [1, 'approved'],
        [2, 'pending'],
      ],
    )
    const step2 = mid.approvals[1]
    assert.deepEqual(
      step2.candidates.map((c: { id: number }) => c.id),
      [second.profileId],
    )
    assert.equal((await decide(second.api, step2.id, 'reject')).statusCode, 400, 'no comment')
    assert.equal((await decide(second.api, step2.id, 'reject', '   ')).statusCode, 400, 'a blank comment')
    const rejected = await decide(second.api, step2.id, 'reject', 'Over budget')
    assert.equal(rejected.statusCode, 200, rejected.body)
    const end = (await requester.api({ method: 'GET', url: `/api/v3/requests/${r.id}/` })).json().data
    assert.equal(end.status, 'rejected')
    assert.equal(end.approvals.length, 2)
    assert.equal(end.approvals[1].comment, 'Over budget')
    const list = (await s.admin({ method: 'GET', url: `/api/v3/approvals/?request=${r.id}&order_by=-id` })).json()
    assert.deepEqual(
      list.data.map((a: { step: number }) => a.step),
      [2, 1],
    )
  })

  test('a step with no candidate is a 409 and the request stays a draft; no matching rule approves at once', async () => {
    // Saved while its approver held nav_approval at B; the grant withdrawn since.
    const late = await s.user('late', s.roles.Requester, null, [{ location: s.B, role: s.roles.Approver }])
    const atB = await rule(s.admin, { location: s.B, step: 1, approvers: [late.profileId] })
    const withdrawn = await s.admin({
      method: 'PUT',
      url: `/api/v3/users/${late.profileId}/location-roles/`,
      payload: [],
    })
    assert.equal(withdrawn.statusCode, 200, withdrawn.body)
    const r = await draft(s.admin, s.B)
    const refused = await submit(s.admin, r.id)
    assert.equal(refused.statusCode, 409, refused.body)
    assert.match(refused.json().detail, /no candidate/)
    const still = (await s.admin({ method: 'GET', url: `/api/v3/requests/${r.id}/` })).json().data
    assert.equal(still.status, 'draft')
    assert.deepEqual(still.approvals, [])
    assert.equal((await s.admin({ method: 'DELETE', url: `/api/v3/approval-rules/${atB.id}/` })).statusCode, 204)
    const approved = await submit(s.admin, r.id)
    assert.equal(approved.json().data.status, 'approved')
  })

  test('cancelling a pending request cancels its approval', async () => {
    const r = await draft(requester.api, s.A)
    const approval = (await submit(requester.api, r.id)).json().data.approvals[0]
    const cancelled = await requester.api({ method: 'POST', url: `/api/v3/requests/${r.id}/cancel/` })
    assert.equal(cancelled.statusCode, 200)
    assert.equal(cancelled.json().data.approvals[0].status, 'cancelled')
    assert.equal((await decide(first.api, approval.id, 'approve')).statusCode, 409)
  })

  test('two candidates deciding at the same instant: exactly one wins', async () => {
    const both = await rule(s.admin, { location: s.A, step: 1, min_total: '5000', approvers: [second.profileId] })
    for (let round = 0; round < 5; round++) {
      const r = await draft(requester.api, s.A, [line('1', '6000')])
      const approval = (await submit(requester.api, r.id)).json().data.approvals[0]
      assert.equal(approval.candidates.length, 2)
      const results = await Promise.all([
        decide(first.api, approval.id, 'approve'),
        decide(second.api, approval.id, 'reject', 'No'),
      ])
      assert.deepEqual(results.map((x) => x.statusCode).sort(), [200, 409], results.map((x) => x.body).join('\n'))
      const final = (await requester.api({ method: 'GET', url: `/api/v3/requests/${r.id}/` })).json().data
      const winner = results.find((x) => x.statusCode === 200)!.json().data
      assert.equal(final.approvals[0].status, winner.status)
      if (winner.status === 'rejected') assert.equal(final.status, 'rejected')
      else assert.equal(final.approvals.length, 2, 'approved step 1 opens step 2 (total ≥ 100)')
    }
    await s.admin({ method: 'DELETE', url: `/api/v3/approval-rules/${both.id}/` })
  })
})
