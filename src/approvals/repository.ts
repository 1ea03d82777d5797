/** SQL for approval records (`request_approvals`). Every query is scoped to one tenant. */
import { sql, type Kysely, type RawBuilder } from 'kysely'
import { personOrNull } from '../db/joins.ts'
import { approvalVisible, decidesFor, delegationActive } from '../access/approvers.ts'
import { filtersOf, pageRequest, type Page } from '../core/list-query.ts'
import { listSql } from '../db/list.ts'
import type { ApprovalKind, DB, DocumentType, PlannedStep } from '../db/schema.ts'
import type { DocumentRef } from './schema.ts'
import { ApprovalListSql, type Person } from './schema.ts'

/** The person (profile id, names, e-mail) of the user id `user` of the approval's tenant, as JSON; null for null. */
const person = (user: RawBuilder<number | null>) => personOrNull(user, sql.ref('a.tenant_id'))

function selectApprovals(db: Kysely<DB>) {
  return db.selectFrom('request_approvals as a').select([
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
    'a.document_type',
    'a.document_id',
    'a.location_id',
    'a.submitter_id',
    'a.plan',
    sql<Person[]>`coalesce((select json_agg(json_build_object('id', pp.id, 'first_name', pp.first_name,
        'last_name', pp.last_name, 'email', pu.email) order by pp.id) from user_profiles pp join users pu on pu.tenant_id = pp.tenant_id and pu.id = pp.user_id
        where pp.tenant_id = a.tenant_id and pp.user_id = any(a.candidates)), '[]')`.as('candidates'),
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
    document_type: 'a.document_type',
    document_id: 'a.document_id',
    // An approval changes when it is created and when it is decided.
    updated_since: (since) => sql<boolean>`coalesce(a.acted_at, a.created_at) >= ${since}`,
    approver_user: (me) => sql<boolean>`(${decidesFor(sql<number>`${me}::int`)} or a.acted_by = ${me}::int)`,
  },
  scope: ([user, locations]) => approvalVisible(user, locations),
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
      where a.tenant_id = ${tenantId} and a.status = 'pending' and a.location_id = any(${elsewhere}::int[])
        and ${approvalVisible(user, locations, 'a', tenantId)}`.execute(db)
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
    .where(approvalVisible(user, locations, 'a', tenantId))
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
  if (scope !== undefined) q = q.where(approvalVisible(scope[0], scope[1], 'a', tenantId))
  return q.executeTakeFirst()
}

/** The approvals of these documents of one type, in step order (then creation order). */
export const approvalsOfDocuments = (db: Kysely<DB>, tenantId: number, type: DocumentType, ids: number[]) =>
  ids.length === 0
    ? Promise.resolve([])
    : selectApprovals(db)
        .where('a.tenant_id', '=', tenantId)
        .where('a.document_type', '=', type)
        .where('a.document_id', 'in', ids)
        .orderBy('a.id')
        .execute()

/**
 * Whether `user` may decide the approval aliased `a` (DECISIONS: "any one candidate (or a delegatee of one)
 * decides it"): a candidate — away or not: being away hands one's approvals to the delegatee for seeing and
 * counting, it does not take them away — or the delegatee of an away candidate; never the submitter.
 */
const mayDecide = (user: RawBuilder<number>) =>
  sql<boolean>`(a.submitter_id <> ${user} and (a.candidates @> array[${user}]::int[] or a.candidates && array(
    select dd.user_id from delegations dd where dd.tenant_id = a.tenant_id and dd.delegatee_id = ${user}
      and ${delegationActive('dd')})))`

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
  const result = await sql<{
    id: number
    document_type: DocumentType
    document_id: number
    step: number
    plan: PlannedStep[]
  }>`
    update request_approvals a set status = ${outcome}, acted_by = ${user}, comment = ${comment}, acted_at = now(),
      on_behalf_of = case when a.candidates @> array[${user}::int] then null else (
        select dd.user_id from delegations dd where dd.tenant_id = a.tenant_id and dd.delegatee_id = ${user}
          and dd.user_id = any(a.candidates)
          and ${delegationActive('dd')} order by dd.user_id limit 1) end
    where a.tenant_id = ${tenantId} and a.id = ${id} and a.status = 'pending'
      and ${mayDecide(sql<number>`${user}::int`)}
    returning a.id, a.document_type, a.document_id, a.step, a.plan`.execute(db)
  return result.rows[0]
}

/** An approval given at once, in the name of whoever's earlier approval of the document covers it. */
export interface Covered {
  actedBy: number
  onBehalfOf: number | null
  comment: string
}

/**
 * The approved steps among `steps` (steps of the document's current chain, each already opened) up to the
 * approval `upTo` (included), ascending: for each step, the latest approval of it created no later than `upTo`
 * — a chain's steps are created in order, so an earlier chain's (a bill rejected and resubmitted, an order
 * revised) never wins.
 */
export async function approvedSteps(
  db: Kysely<DB>,
  tenantId: number,
  doc: { type: DocumentType; id: number },
  steps: readonly number[],
  upTo: number,
) {
  if (steps.length === 0) return []
  const result = await sql<{ step: number; status: string; acted_by: number | null; on_behalf_of: number | null }>`
    select distinct on (a.step) a.step, a.status, a.acted_by, a.on_behalf_of from request_approvals a
    where a.tenant_id = ${tenantId} and a.document_type = ${doc.type} and a.document_id = ${doc.id}
      and a.step = any(${[...steps]}::int[]) and a.id <= ${upTo}
    order by a.step, a.id desc`.execute(db)
  return result.rows.filter((r) => r.status === 'approved' && r.acted_by !== null)
}

/**
 * Opens the step `planned` of the chain `plan` for the document: one pending approval, counted in `kind`; or,
 * with `decided`, one approved at once.
 * `request_id` is kept for requests (the pending-count triggers of migration 0009 read it). Returns its id.
 */
export async function insertApproval(
  db: Kysely<DB>,
  tenantId: number,
  doc: DocumentRef,
  kind: ApprovalKind,
  plan: PlannedStep[],
  planned: PlannedStep,
  decided?: Covered,
) {
  const row = await db
    .insertInto('request_approvals')
    .values({
      ...(decided === undefined
        ? {}
        : {
            status: 'approved' as const,
            acted_by: decided.actedBy,
            on_behalf_of: decided.onBehalfOf,
            comment: decided.comment,
            acted_at: new Date(),
          }),
      tenant_id: tenantId,
      request_id: doc.type === 'request' ? doc.id : null,
      document_type: doc.type,
      document_id: doc.id,
      location_id: doc.locationId,
      submitter_id: doc.submitterId,
      kind,
      plan: JSON.stringify(plan),
      step: planned.step,
      candidates: planned.candidates,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

/** Cancels the document's pending approval (its chain ends unfinished). */
export async function cancelPending(db: Kysely<DB>, tenantId: number, type: DocumentType, id: number) {
  await db
    .updateTable('request_approvals')
    .set({ status: 'cancelled', acted_at: new Date() })
    .where('tenant_id', '=', tenantId)
    .where('document_type', '=', type)
    .where('document_id', '=', id)
    .where('status', '=', 'pending')
    .execute()
}
