/** SQL for approval records (`request_approvals`). Every query is scoped to one tenant. */
import { sql, type Kysely, type RawBuilder } from 'kysely'
import { decidesFor, delegationActive, requestVisible } from '../access/approvers.ts'
import { filtersOf, pageRequest, type Page } from '../core/list-query.ts'
import { listSql } from '../db/list.ts'
import type { DB, PlannedStep } from '../db/schema.ts'
import { ApprovalListSql, type Person } from './schema.ts'

/** The person (profile id, names, e-mail) of the user id `user`, as JSON; null for null. */
const person = (user: RawBuilder<number | null>) =>
  sql<Person | null>`(select json_build_object('id', pp.id, 'first_name', pp.first_name, 'last_name', pp.last_name,
    'email', pu.email) from user_profiles pp join users pu on pu.id = pp.user_id where pp.user_id = ${user})`

function selectApprovals(db: Kysely<DB>) {
  return db
    .selectFrom('request_approvals as a')
    .innerJoin('purchase_requests as r', (j) =>
      j.onRef('r.tenant_id', '=', 'a.tenant_id').onRef('r.id', '=', 'a.request_id'),
    )
    .select([
      'a.id',
      'a.tenant_id',
      'a.request_id',
      'a.step',
      'a.kind',
      'a.status',
      'a.candidates as candidate_ids',
      'a.comment',
      'a.created_at',
      'a.acted_at',
      'r.location_id',
      'r.requester_id',
      sql<Person[]>`coalesce((select json_agg(json_build_object('id', pp.id, 'first_name', pp.first_name,
        'last_name', pp.last_name, 'email', pu.email) order by pp.id) from user_profiles pp join users pu on pu.id = pp.user_id
        where pp.user_id = any(a.candidates)), '[]')`.as('candidates'),
      person(sql.ref('a.acted_by')).as('acted_by'),
      person(sql.ref('a.on_behalf_of')).as('on_behalf_of'),
    ])
}
export type ApprovalRow = Awaited<ReturnType<ReturnType<typeof selectApprovals>['executeTakeFirstOrThrow']>>

/** Any filtered page of the approvals the caller may see; its total is `count(*) over ()`, every match. */
const listedApprovals = listSql(ApprovalListSql, {
  select: selectApprovals,
  tenant: 'a.tenant_id',
  id: 'a.id',
  order: { created_at: 'a.created_at' },
  search: [],
  filters: {
    status: 'a.status',
    request: 'a.request_id',
    approver_user: (me) => sql<boolean>`(${decidesFor(sql<number>`${me}::int`)} or a.acted_by = ${me}::int)`,
  },
  scope: ([user, locations]) => requestVisible(user, locations),
})

/**
 * The plain pending inbox's total, in parts: the kept count of pending approvals (migration 0009, by the
 * request's location) at the locations where the caller sees everything, and the other locations that have
 * pending approvals at all, whose visible ones `pendingElsewhere` counts live. Both ride on the page's rows.
 */
const keptTotal = (tenantId: number, locations: number[]) => ({
  kept: sql<number>`(select coalesce(sum(plc.n), 0)::int from pending_location_counts plc
    where plc.tenant_id = ${tenantId} and plc.location_id = any(${locations}::int[]))`,
  elsewhere: sql<number[]>`array(select plc.location_id from pending_location_counts plc
    where plc.tenant_id = ${tenantId} and plc.location_id <> all(${locations}::int[])
    group by plc.location_id having sum(plc.n) <> 0)`,
})

/** The pending approvals at `elsewhere` (locations) that the user sees as requester, candidate or decider. */
const pendingElsewhere = async (
  db: Kysely<DB>,
  tenantId: number,
  user: number,
  locations: number[],
  elsewhere: number[],
) =>
  (
    await sql<{ n: number }>`select count(*)::int as n from request_approvals a
      join purchase_requests r on r.tenant_id = a.tenant_id and r.id = a.request_id
      where a.tenant_id = ${tenantId} and a.status = 'pending' and r.location_id = any(${elsewhere}::int[])
        and ${requestVisible(user, locations)}`.execute(db)
  ).rows[0]!.n

/**
 * One page of the approvals the caller may see (scope: their user id and locations; none for a superuser).
 * The plain pending inbox (`status=pending`, nothing else) walks the pending approvals in the page's order by
 * index and stops at the page's end; its exact total is the kept count at the caller's locations plus the
 * visible pending approvals elsewhere, counted live only where there are any. Any other query is
 * `listedApprovals`, whose total counts every match.
 */
export async function pageOfApprovals(
  db: Kysely<DB>,
  tenantId: number,
  query: ApprovalListSql,
  scope?: readonly [number, number[]],
): Promise<Page<ApprovalRow>> {
  const set = filtersOf(query)
  const page = pageRequest(query)
  if (scope === undefined || page.search !== undefined || set.length !== 1 || query.status !== 'pending')
    return listedApprovals(db, tenantId, query, scope)
  const [user, locations] = scope
  const { kept, elsewhere } = keptTotal(tenantId, locations)
  let q = selectApprovals(db)
    .select([kept.as('total_count'), elsewhere.as('pending_elsewhere')])
    .where('a.tenant_id', '=', tenantId)
    .where('a.status', '=', 'pending')
    .where(requestVisible(user, locations))
  if (page.orderBy.field === 'created_at') q = q.orderBy('a.created_at', page.orderBy.direction)
  const found = await q.orderBy('a.id', page.orderBy.direction).limit(page.pageSize).offset(page.offset).execute()
  const totals =
    found[0] ??
    (await db.selectNoFrom([kept.as('total_count'), elsewhere.as('pending_elsewhere')]).executeTakeFirstOrThrow())
  let count = totals.total_count
  if (totals.pending_elsewhere.length > 0)
    count += await pendingElsewhere(db, tenantId, user, locations, totals.pending_elsewhere)
  const rows = found.map(({ total_count: _t, pending_elsewhere: _e, ...row }) => row)
  return { rows, count, page }
}

/** The approval, if `scope` (the caller's user id and locations; undefined: everything) lets them see it. */
export function findApproval(db: Kysely<DB>, tenantId: number, id: number, scope?: readonly [number, number[]]) {
  let q = selectApprovals(db).where('a.tenant_id', '=', tenantId).where('a.id', '=', id)
  if (scope !== undefined) q = q.where(requestVisible(scope[0], scope[1]))
  return q.executeTakeFirst()
}

export const approvalsOfRequests = (db: Kysely<DB>, tenantId: number, requestIds: number[]) =>
  requestIds.length === 0
    ? Promise.resolve([])
    : selectApprovals(db)
        .where('a.tenant_id', '=', tenantId)
        .where('a.request_id', 'in', requestIds)
        .orderBy('a.step')
        .execute()

/** The request row of an approval, locked: decisions and cancellations of one request take turns. */
export const lockRequestOf = (db: Kysely<DB>, tenantId: number, approvalId: number) =>
  db
    .selectFrom('purchase_requests as r')
    .innerJoin('request_approvals as a', (j) =>
      j.onRef('a.tenant_id', '=', 'r.tenant_id').onRef('a.request_id', '=', 'r.id'),
    )
    .select(['r.id', 'r.status', 'r.chain', 'r.requester_id'])
    .where('a.tenant_id', '=', tenantId)
    .where('a.id', '=', approvalId)
    .forUpdate('r')
    .executeTakeFirst()

/**
 * Whether `user` may decide the approval aliased `a` of the request aliased `r` (DECISIONS: "any one
 * candidate (or a delegatee of one) decides it"): a candidate — away or not: being away hands one's approvals
 * to the delegatee for seeing and counting, it does not take them away — or the delegatee of an away
 * candidate; never the requester.
 */
const mayDecide = (user: RawBuilder<number>) =>
  sql<boolean>`(r.requester_id <> ${user} and (a.candidates @> array[${user}]::int[] or a.candidates && array(
    select dd.user_id from delegations dd where dd.delegatee_id = ${user} and ${delegationActive('dd')})))`

/**
 * Decides the approval if it is still pending and `user` may decide it now (`mayDecide`). One conditional
 * UPDATE: of two deciders at the same instant, exactly one changes the row. Returns undefined when nothing
 * changed.
 */
export async function decide(
  db: Kysely<DB>,
  tenantId: number,
  id: number,
  user: number,
  outcome: 'approved' | 'rejected',
  comment: string,
) {
  const result = await sql<{ id: number; request_id: number; step: number }>`
    update request_approvals a set status = ${outcome}, acted_by = ${user}, comment = ${comment}, acted_at = now(),
      on_behalf_of = case when a.candidates @> array[${user}::int] then null else (
        select dd.user_id from delegations dd where dd.delegatee_id = ${user} and dd.user_id = any(a.candidates)
          and ${delegationActive('dd')} order by dd.user_id limit 1) end
    from purchase_requests r
    where a.tenant_id = ${tenantId} and a.id = ${id} and a.status = 'pending'
      and r.tenant_id = a.tenant_id and r.id = a.request_id and ${mayDecide(sql<number>`${user}::int`)}
    returning a.id, a.request_id, a.step`.execute(db)
  return result.rows[0]
}

export async function insertApproval(db: Kysely<DB>, tenantId: number, requestId: number, planned: PlannedStep) {
  await db
    .insertInto('request_approvals')
    .values({ tenant_id: tenantId, request_id: requestId, step: planned.step, candidates: planned.candidates })
    .execute()
}

export async function cancelPending(db: Kysely<DB>, tenantId: number, requestId: number) {
  await db
    .updateTable('request_approvals')
    .set({ status: 'cancelled', acted_at: new Date() })
    .where('tenant_id', '=', tenantId)
    .where('request_id', '=', requestId)
    .where('status', '=', 'pending')
    .execute()
}

export async function setRequestStatus(
  db: Kysely<DB>,
  tenantId: number,
  requestId: number,
  status: 'approved' | 'rejected',
) {
  await db
    .updateTable('purchase_requests')
    .set({ status, updated_at: new Date() })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', requestId)
    .execute()
}
