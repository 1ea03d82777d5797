/**
 * Kept pending counts (issue #22, migration 0009): after every kind of change — creates, submits, approvals,
 * rejections, cancellations, candidate changes, a requester among the candidates, deleted approvals,
 * delegations set, ended and expired, concurrent decisions — every user's `pending_approvals_count.order`
 * on `me` and on the users list equals a brute-force count over all pending approvals with `decidesFor`,
 * and the pending inbox's total equals the number of approvals its pages list.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { decidesFor } from '../src/access/approvers.ts'
import { foldKeptCounts } from '../src/db/maintenance.ts'
import { useTestApp } from './helpers/app.ts'
import { decide, draft, rule, setUp, submit, type Person } from './helpers/requests.ts'
import { BASE_DOMAIN } from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn' })
const dayOffset = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)

test('kept counts equal a brute-force count through every change', async () => {
  const s = await setUp(ctx)
  const db = ctx.database.db
  const tid = s.tenant.tenantId
  const requester = await s.user('req', s.roles.Requester, s.A)
  const ap1 = await s.user('ap1', s.roles.Approver, s.A)
  const ap2 = await s.user('ap2', s.roles.Approver, s.A)
  const ap3 = await s.user('ap3', s.roles.Approver, s.A)
  const people = [requester, ap1, ap2, ap3]
  await rule(s.admin, { location: s.A, step: 1, approvers: [ap1.profileId, ap2.profileId] })
  await rule(s.admin, { location: s.A, step: 2, approvers: [ap2.profileId, ap3.profileId] })

  const bruteForce = async (p: Person) =>
    (
      await sql<{ n: number }>`select count(*)::int as n from request_approvals a
        join purchase_requests r on r.tenant_id = a.tenant_id and r.id = a.request_id
        where a.tenant_id = ${tid} and a.status = 'pending' and ${decidesFor(sql<number>`${p.userId}::int`)}`.execute(
        db,
      )
    ).rows[0]!.n
  const seen: number[] = []
  const check = async (label: string) => {
    const listed = (await s.admin({ method: 'GET', url: '/api/v3/users/?page_size=100' })).json().data as {
      id: number
      pending_approvals_count: { order: number }
    }[]
    for (const p of people) {
      const want = await bruteForce(p)
      seen.push(want)
      const me = (await p.api({ method: 'GET', url: '/api/v3/users/me/' })).json().data
      assert.equal(me.pending_approvals_count.order, want, `${label}: me of user ${p.userId}`)
      const row = listed.find((r) => r.id === p.profileId)
      assert.ok(row !== undefined, `${label}: user ${p.userId} listed`)
      assert.equal(row.pending_approvals_count.order, want, `${label}: users list row of user ${p.userId}`)
      for (const order of ['id', '-created_at']) {
        // The inbox's total (kept per location, plus the rest live) against the rows it actually lists.
        const ids: number[] = []
        let total: number | undefined
        for (let page = 1; page < 50; page++) {
          const inbox = await p.api({
            method: 'GET',
            url: `/api/v3/approvals/?status=pending&page_size=2&order_by=${order}&page=${page}`,
          })
          if (inbox.statusCode === 404) break
          assert.equal(inbox.statusCode, 200, inbox.body)
          total = inbox.json().metadata.pagination.count as number
          ids.push(...(inbox.json().data as { id: number }[]).map((a) => a.id))
          if (inbox.json().metadata.pagination.next === null) break
        }
        assert.equal(new Set(ids).size, ids.length, `${label}: inbox of user ${p.userId} repeats no approval`)
        assert.equal(total ?? 0, ids.length, `${label}: inbox total of user ${p.userId} (${order})`)
      }
    }
  }
  const pendingOf = async (requestId: number) =>
    await db
      .selectFrom('request_approvals')
      .select(['id', 'candidates'])
      .where('tenant_id', '=', tid)
      .where('request_id', '=', requestId)
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow()

  const drafts = [await draft(requester.api, s.A), await draft(requester.api, s.A), await draft(requester.api, s.A)]
  await draft(requester.api, s.A)
  await check('drafts')
  for (const d of drafts) assert.equal((await submit(requester.api, d.id)).statusCode, 200)
  await check('submitted')
  assert.equal((await decide(ap1.api, (await pendingOf(drafts[0].id)).id, 'approve')).statusCode, 200)
  await check('approved, step 2 open')
  assert.equal((await decide(ap2.api, (await pendingOf(drafts[1].id)).id, 'reject', 'no')).statusCode, 200)
  await check('rejected')
  assert.equal(
    (await requester.api({ method: 'POST', url: `/api/v3/requests/${drafts[2].id}/cancel/` })).statusCode,
    200,
  )
  await check('cancelled')

  // ap2's own request: the rule's candidates minus ap2; then ap2 is written back among the candidates.
  const own = await draft(ap2.api, s.A)
  assert.equal((await submit(ap2.api, own.id)).statusCode, 200)
  await check('own request submitted')
  const ownApproval = await pendingOf(own.id)
  await db
    .updateTable('request_approvals')
    .set({ candidates: [...ownApproval.candidates, ap2.userId, ap2.userId] })
    .where('id', '=', ownApproval.id)
    .execute()
  await check('requester among the candidates (twice)')
  const more = [await draft(requester.api, s.A), await draft(requester.api, s.A)]
  for (const d of more) assert.equal((await submit(requester.api, d.id)).statusCode, 200)
  const changed = await pendingOf(more[0].id)
  await db
    .updateTable('request_approvals')
    .set({ candidates: [ap3.userId] })
    .where('id', '=', changed.id)
    .execute()
  await check('candidates changed')
  await db.updateTable('request_approvals').set({ comment: 'touched' }).where('tenant_id', '=', tid).execute()
  await check('an update that changes nothing counted')

  // Delegations: ap1 away to ap3 (who is a candidate of some of ap1's), ap2 away to the requester (whose own
  // requests never count), then one expires and one ends.
  const away = (who: Person, to: Person, until: string | null) =>
    who.api({
      method: 'PUT',
      url: `/api/v3/users/${who.profileId}/delegation/`,
      payload: { delegatee: to.profileId, ...(until === null ? {} : { expected_return_date: until }) },
    })
  assert.equal((await away(ap1, ap3, dayOffset(3))).statusCode, 200)
  await check('ap1 away to ap3')
  assert.equal((await away(ap2, requester, null)).statusCode, 200)
  await check('ap2 away to the requester')
  assert.equal((await away(ap3, ap2, null)).statusCode, 200)
  await check('ap3 away too (one hop: ap2 does not get ap1 through ap3)')
  await db
    .updateTable('delegations')
    .set({ expected_return_date: dayOffset(-1) })
    .where('tenant_id', '=', tid)
    .where('user_id', '=', ap1.userId)
    .where('active', '=', true)
    .execute()
  await check('ap1 delegation expired')
  assert.equal((await s.admin({ method: 'DELETE', url: `/api/v3/users/${ap2.profileId}/delegation/` })).statusCode, 204)
  await check('ap2 delegation ended')

  const deleted = await pendingOf(more[1].id)
  await db.deleteFrom('request_approvals').where('id', '=', deleted.id).execute()
  await check('a pending approval deleted')

  // Many deciders at once (two of them on the same approval: one wins, one gets 409).
  const batch = [] as { id: number }[]
  for (let i = 0; i < 4; i++) {
    const d = await draft(requester.api, s.A)
    assert.equal((await submit(requester.api, d.id)).statusCode, 200)
    batch.push(await pendingOf(d.id))
  }
  const answers = await Promise.all([
    decide(ap1.api, batch[0]!.id, 'approve'),
    decide(ap2.api, batch[0]!.id, 'approve'),
    decide(ap1.api, batch[1]!.id, 'approve'),
    decide(ap2.api, batch[2]!.id, 'reject', 'no'),
    decide(ap1.api, batch[3]!.id, 'approve'),
  ])
  assert.deepEqual(
    answers.map((a) => a.statusCode).sort(),
    [200, 200, 200, 200, 409],
    answers.map((a) => a.body).join('\n'),
  )
  await check('concurrent decisions')

  // Housekeeping folds the sessions' rows into slot 0; the counts stay what they were.
  assert.ok((await foldKeptCounts(ctx.database)) > 0)
  const left = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM pending_counts WHERE tenant_id = ${tid} AND slot <> 0`.execute(db)
  assert.equal(left.rows[0]!.n, 0)
  await check('folded into slot 0')
  assert.ok(
    seen.some((n) => n > 1),
    'the checks saw real counts',
  )
})
