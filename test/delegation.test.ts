/**
 * Out-of-office delegation (DECISIONS, "Purchase requests and approvals"): set, read, end; while active the
 * delegatee sees, counts and decides the away user's approvals (acted_by the delegatee, on_behalf_of the
 * away user) and the away user counts 0; one hop only; the requester never decides their own request, even
 * as a delegatee; expiry at the end of expected_return_date (UTC), tested in every query — no job runs.
 */
import assert from 'node:assert/strict'
import { beforeEach, describe, test } from 'node:test'
import { useTestApp } from './helpers/app.ts'
import { decide, draft, pendingOrders, rule, setUp, submit, type Person, type Setup } from './helpers/requests.ts'
import { BASE_DOMAIN } from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn' })
let s: Setup
let requester: Person
let away: Person // the rule's approver
let delegatee: Person
let further: Person

const dayOffset = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)

let ready = false
beforeEach(async () => {
  if (ready) return
  ready = true
  s = await setUp(ctx)
  requester = await s.user('req', s.roles.Requester, s.A)
  away = await s.user('away', s.roles.Approver, s.A)
  // A delegatee decides only where they hold nav_approval themselves (issue 30): Approver granted at A.
  delegatee = await s.user('deleg', s.roles.Requester, s.B, [{ location: s.A, role: s.roles.Approver }])
  further = await s.user('further', s.roles.Requester, s.B)
  await rule(s.admin, { location: s.A, step: 1, approvers: [away.profileId] })
})

const url = (p: Person) => `/api/v3/users/${p.profileId}/delegation/`

describe('delegation', () => {
  test('set, read, shown on the profile and me; validated; only yours unless superuser or nav_setting', async () => {
    assert.deepEqual((await away.api({ method: 'GET', url: url(away) })).json().data, {
      delegatee: null,
      expected_return_date: null,
    })
    const until = dayOffset(7)
    for (const [payload, field] of [
      [{ delegatee: away.profileId }, 'delegatee'],
      [{ delegatee: 999999 }, 'delegatee'],
      [{ delegatee: delegatee.profileId, expected_return_date: dayOffset(-2) }, 'expected_return_date'],
    ] as const) {
      const bad = await away.api({ method: 'PUT', url: url(away), payload })
      assert.equal(bad.statusCode, 400, bad.body)
      assert.ok(field in bad.json().errors)
    }
    const other = await delegatee.api({ method: 'PUT', url: url(away), payload: { delegatee: delegatee.profileId } })
    assert.equal(other.statusCode, 403)
    const set = await away.api({
      method: 'PUT',
      url: url(away),
      payload: { delegatee: delegatee.profileId, expected_return_date: until },
    })
    assert.equal(set.statusCode, 200, set.body)
    assert.equal(set.json().data.delegatee.id, delegatee.profileId)
    assert.equal(set.json().data.expected_return_date, until)
    const profile = (await s.admin({ method: 'GET', url: `/api/v3/users/${away.profileId}/` })).json().data
    assert.equal(profile.approval_delegatee.id, delegatee.profileId)
    assert.equal(profile.expected_return_date, until)
    const me = (await delegatee.api({ method: 'GET', url: '/api/v3/users/me/' })).json().data
    assert.equal(me.is_approval_delegatee, true)
    const byAdmin = await s.admin({ method: 'DELETE', url: url(away) })
    assert.equal(byAdmin.statusCode, 204)
    assert.equal(
      (await s.admin({ method: 'GET', url: `/api/v3/users/${away.profileId}/` })).json().data.approval_delegatee,
      null,
    )
    assert.equal(
      (await delegatee.api({ method: 'GET', url: '/api/v3/users/me/' })).json().data.is_approval_delegatee,
      false,
    )
  })

  test('the delegatee sees, counts and decides; acted_by and on_behalf_of; the away user counts 0', async () => {
    await away.api({
      method: 'PUT',
      url: url(away),
      payload: { delegatee: delegatee.profileId, expected_return_date: dayOffset(3) },
    })
    const r = await draft(requester.api, s.A)
    const approval = (await submit(requester.api, r.id)).json().data.approvals[0]
    assert.equal(await pendingOrders(delegatee.api), 1)
    assert.equal(await pendingOrders(away.api), 0)
    const users = (await s.admin({ method: 'GET', url: '/api/v3/users/?page_size=100' })).json().data
    const count = (p: Person) => users.find((u: { id: number }) => u.id === p.profileId).pending_approvals_count.order
    assert.equal(count(delegatee), 1)
    assert.equal(count(away), 0)
    const inbox = (await delegatee.api({ method: 'GET', url: '/api/v3/approvals/?approver=me&status=pending' })).json()
      .data
    assert.deepEqual(
      inbox.map((a: { id: number }) => a.id),
      [approval.id],
    )
    assert.equal((await delegatee.api({ method: 'GET', url: `/api/v3/requests/${r.id}/` })).statusCode, 200)
    const decided = await decide(delegatee.api, approval.id, 'approve', 'On behalf')
    assert.equal(decided.statusCode, 200, decided.body)
    assert.equal(decided.json().data.acted_by.id, delegatee.profileId)
    assert.equal(decided.json().data.on_behalf_of.id, away.profileId)
    await away.api({ method: 'DELETE', url: url(away) })
  })

  test('one hop only; the requester never decides their own request as a delegatee', async () => {
    await away.api({ method: 'PUT', url: url(away), payload: { delegatee: delegatee.profileId } })
    await delegatee.api({ method: 'PUT', url: url(delegatee), payload: { delegatee: further.profileId } })
    const r = await draft(requester.api, s.A)
    const approval = (await submit(requester.api, r.id)).json().data.approvals[0]
    assert.equal(await pendingOrders(further.api), 0, 'not passed on a second hop')
    assert.equal((await decide(further.api, approval.id, 'approve')).statusCode, 404)
    assert.equal(await pendingOrders(delegatee.api), 1)
    await delegatee.api({ method: 'DELETE', url: url(delegatee) })

    await away.api({ method: 'PUT', url: url(away), payload: { delegatee: requester.profileId } })
    const own = await draft(requester.api, s.A)
    const ownApproval = (await submit(requester.api, own.id)).json().data.approvals[0]
    assert.equal(await pendingOrders(requester.api), 0)
    assert.equal((await decide(requester.api, ownApproval.id, 'approve')).statusCode, 403)
    await away.api({ method: 'DELETE', url: url(away) })
  })

  test('a delegation that has expired no longer routes — without any job; one ending today still does', async () => {
    await away.api({
      method: 'PUT',
      url: url(away),
      payload: { delegatee: delegatee.profileId, expected_return_date: dayOffset(0) },
    })
    const r = await draft(requester.api, s.A)
    const approval = (await submit(requester.api, r.id)).json().data.approvals[0]
    const before = await pendingOrders(delegatee.api)
    assert.ok(before >= 1, 'still away until the end of today (UTC)')
    // Time passes: the return date is now yesterday. Nothing else changes.
    await ctx.database.db
      .updateTable('delegations')
      .set({ expected_return_date: dayOffset(-1) })
      .where('tenant_id', '=', s.tenant.tenantId)
      .where('active', '=', true)
      .execute()
    assert.equal(await pendingOrders(delegatee.api), 0, 'everything the delegatee counted came through the delegation')
    assert.ok((await pendingOrders(away.api)) >= 1, 'back: the away user counts their approvals again')
    // The delegatee is an Approver at A, so sees the request: no longer a decider, a 403 (it was a 404 unseen).
    assert.equal((await decide(delegatee.api, approval.id, 'approve')).statusCode, 403)
    const profile = (await s.admin({ method: 'GET', url: `/api/v3/users/${away.profileId}/` })).json().data
    assert.equal(profile.approval_delegatee, null)
    assert.equal(profile.expected_return_date, null)
    assert.deepEqual((await away.api({ method: 'GET', url: url(away) })).json().data, {
      delegatee: null,
      expected_return_date: null,
    })
    assert.equal((await decide(away.api, approval.id, 'approve')).statusCode, 200)
  })
})
