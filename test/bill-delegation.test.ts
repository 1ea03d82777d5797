/**
 * `pending_approvals_count.bill` through delegation (DECISIONS, "Purchase requests and approvals": while a
 * delegation is active the delegatee sees, counts and decides the away user's approvals and the away user's
 * count shows 0): a bill's exceptions step counts for the away accounts-payable candidate's delegatee exactly
 * as request and order approvals do — on `me` and on the users list — and no longer once decided.
 */
import assert from 'node:assert/strict'
import { beforeEach, test } from 'node:test'
import { useTestApp } from './helpers/app.ts'
import { issuedOrder, poLine, setUpOrders, type OrderSetup } from './helpers/orders.ts'
import type { Person } from './helpers/requests.ts'
import { BASE_DOMAIN, roleWith, type Api } from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' })
let s: OrderSetup
let clerk: Person
let away: Person
let delegatee: Person
let ready = false
beforeEach(async () => {
  if (ready) return
  ready = true
  s = await setUpOrders(ctx)
  const ap = await roleWith(ctx, s.tenant, 'Payables', ['accounts_payable'], 8)
  clerk = await s.user('clerk', ap, s.A)
  away = await s.user('apaway', ap, s.A)
  delegatee = await s.user('apdeleg', s.roles.Requester, s.B)
  apRole = ap
})
let apRole = 0

const counts = async (api: Api) =>
  (await api({ method: 'GET', url: '/api/v3/users/me/' })).json().data.pending_approvals_count as {
    order: number
    bill: number
  }
const listed = async (p: Person) => {
  const users = (await s.admin({ method: 'GET', url: '/api/v3/users/?page_size=100' })).json().data
  return users.find((u: { id: number }) => u.id === p.profileId).pending_approvals_count.bill as number
}

test('a bill approval of an away candidate counts for their delegatee, and 0 for them', async () => {
  const po = await issuedOrder(s, [poLine('10', '5')])
  const created = await clerk.api({
    method: 'POST',
    url: '/api/v3/bills/',
    payload: { number: 'INV-DELEG-1', purchase_order: po.id, lines: [{ po_line: po.lines[0].id, quantity: '4' }] },
  })
  assert.equal(created.statusCode, 201, created.body)
  assert.equal((await counts(delegatee.api)).bill, 0)
  const set = await away.api({
    method: 'PUT',
    url: `/api/v3/users/${away.profileId}/delegation/`,
    payload: { delegatee: delegatee.profileId },
  })
  assert.equal(set.statusCode, 200, set.body)
  // Nothing received: the bill has an exception and waits for an accounts-payable holder other than the clerk.
  const submitted = await clerk.api({ method: 'POST', url: `/api/v3/bills/${created.json().data.id}/submit/` })
  assert.equal(submitted.statusCode, 200, submitted.body)
  const bill = submitted.json().data
  assert.equal(bill.match_status, 'exception')
  const approval = bill.approvals[0]
  assert.ok(approval.candidates.some((c: { id: number }) => c.id === away.profileId))
  assert.ok(!approval.candidates.some((c: { id: number }) => c.id === delegatee.profileId))
  // Deciding needs accounts_payable at A now: granted after the submit, so the delegatee is no candidate.
  const granted = await s.admin({
    method: 'PUT',
    url: `/api/v3/users/${delegatee.profileId}/location-roles/`,
    payload: [{ location: s.A, role: apRole }],
  })
  assert.equal(granted.statusCode, 200, granted.body)

  assert.deepEqual(await counts(delegatee.api), { ...(await counts(delegatee.api)), bill: 1, order: 0 })
  assert.equal((await counts(away.api)).bill, 0, 'the away candidate counts 0 while away')
  assert.equal(await listed(delegatee), 1)
  assert.equal(await listed(away), 0)
  const inbox = await delegatee.api({ method: 'GET', url: '/api/v3/approvals/?approver=me&status=pending' })
  assert.deepEqual(
    inbox.json().data.map((a: { id: number }) => a.id),
    [approval.id],
  )

  const decided = await delegatee.api({ method: 'POST', url: `/api/v3/approvals/${approval.id}/approve/`, payload: {} })
  assert.equal(decided.statusCode, 200, decided.body)
  assert.equal(decided.json().data.on_behalf_of.id, away.profileId)
  assert.equal((await counts(delegatee.api)).bill, 0, 'a decided approval no longer counts')
  assert.equal(await listed(delegatee), 0)

  await away.api({ method: 'DELETE', url: `/api/v3/users/${away.profileId}/delegation/` })
  assert.equal((await counts(away.api)).bill, 0)
})
