/**
 * Who may act on an approval, as SQL (DECISIONS, "Purchase requests and approvals"): its candidates, and
 * while a candidate is away, their delegatee. A delegation is active until the end of its
 * `expected_return_date` in UTC (no end date: until ended); the test is made in every query, so an expired
 * delegation stops routing the instant it expires, without any job. One hop only: a delegatee's own
 * delegation does not pass the away user's approvals further on.
 */
import { sql, type RawBuilder } from 'kysely'
import type { ApprovalKind } from '../db/schema.ts'

/** Whether the delegation row aliased `alias` is in force now. */
export const delegationActive = (alias: string): RawBuilder<boolean> =>
  sql<boolean>`(${sql.ref(`${alias}.active`)} and (${sql.ref(`${alias}.expected_return_date`)} is null
    or now() < (${sql.ref(`${alias}.expected_return_date`)} + 1)::timestamp at time zone 'UTC'))`

/**
 * Whether the user `user` (an SQL expression for a users.id) may decide the approval aliased `a`: a candidate
 * who is not away, or the delegatee of an away candidate — never the document's submitter (a request's
 * requester, the one who issued an order).
 */
export const decidesFor = (user: RawBuilder<number>, a = 'a', tenantId?: number): RawBuilder<boolean> => {
  const candidates = sql.ref(`${a}.candidates`)
  // A known tenant is written as a value: the delegation look-ups then run once per statement, not per row.
  const tenant = tenantId === undefined ? sql.ref(`${a}.tenant_id`) : sql`${tenantId}::int`
  return sql<boolean>`(${sql.ref(`${a}.submitter_id`)} <> ${user} and (
    (${candidates} @> array[${user}]::int[] and not exists (
      select 1 from delegations dd where dd.tenant_id = ${tenant} and dd.user_id = ${user} and ${delegationActive('dd')}))
    or ${candidates} && array(
      select dd.user_id from delegations dd where dd.tenant_id = ${tenant} and dd.delegatee_id = ${user}
        and ${delegationActive('dd')})))`
}

/** Whether the user `user` (users.id expression) is away now: their own delegation is in force. */
const away = (user: RawBuilder<number>, tenant: RawBuilder<number>) =>
  sql<boolean>`exists (select 1 from delegations dw where dw.tenant_id = ${tenant} and dw.user_id = ${user}
    and ${delegationActive('dw')})`

/**
 * The count of pending approvals of `kind` (DECISIONS: `pending_approvals_count`, one kind per document:
 * `order` for requests and purchase orders, `bill` for bills, …) the user `user` (users.id expression) of
 * tenant `tenant` may decide (exactly `decidesFor`), in two disjoint parts. Their own: the kept count of
 * pending approvals naming them as a candidate and not as the submitter (migration 0009, kept by triggers),
 * 0 while they are away. Through delegation, counted live and only when someone's delegation to them is in
 * force now: the delegators' pending approvals of the kind that the own part did not count and that are not
 * the user's own documents (`pending_delegated_kind`, migration 0018: one generic plan per session, using the
 * partial GIN index). Neither part reads every pending approval of a busy approver.
 *
 * `isAway` says whether the user is away now; by default a probe of `delegations`. A query that already
 * joins the user's delegation in force (at most one: `delegations_one_active`) passes a test of that join.
 */
export const pendingCount = (
  user: RawBuilder<number>,
  tenant: RawBuilder<number>,
  kind: ApprovalKind,
  isAway: RawBuilder<boolean> = away(user, tenant),
): RawBuilder<number> =>
  // The kind is one of five fixed words, written into the statement: a row's counts need no parameters.
  sql<number>`((case when ${isAway} then 0 else coalesce((select sum(pc.n) from pending_counts pc
      where pc.tenant_id = ${tenant} and pc.user_id = ${user} and pc.kind = ${sql.lit(kind)}), 0) end)
    + (case when exists (select 1 from delegations de where de.tenant_id = ${tenant} and de.delegatee_id = ${user}
        and ${delegationActive('de')})
      then pending_delegated_kind(${tenant}, ${user}, ${sql.lit(kind)}) else 0 end))::int`

/**
 * Whether the approval aliased `a` is visible to the user `user` whose locations with `nav_approval`,
 * `nav_purchase` or `superuser` are `locations`: as its document is — the document's submitter, anyone at
 * those locations, and whoever is (or was) a candidate or decides one of the document's approvals.
 */
export const approvalVisible = (user: unknown, locations: unknown, a = 'a', tenantId?: number): RawBuilder<boolean> => {
  const u = sql<number>`${user}::int`
  const tenant = tenantId === undefined ? sql.ref(`${a}.tenant_id`) : sql`${tenantId}::int`
  return sql<boolean>`(${sql.ref(`${a}.submitter_id`)} = ${u} or ${sql.ref(`${a}.location_id`)} = any(${locations}::int[])
    or exists (select 1 from request_approvals va where va.tenant_id = ${tenant}
      and va.document_type = ${sql.ref(`${a}.document_type`)} and va.document_id = ${sql.ref(`${a}.document_id`)}
      and (va.candidates @> array[${u}]::int[] or va.acted_by = ${u}
        or (va.status = 'pending' and ${decidesFor(u, 'va', tenantId)}))))`
}

/**
 * Whether the document (`type`, id expression `id`) has an approval naming the user `user` as a candidate or
 * decider, or one they decide now as a delegatee: its approval candidates see the document.
 */
export const approvalCandidateOf = (
  user: unknown,
  type: string,
  tenant: RawBuilder<number>,
  id: RawBuilder<number>,
) => {
  const u = sql<number>`${user}::int`
  return sql<boolean>`exists (select 1 from request_approvals va where va.tenant_id = ${tenant}
    and va.document_type = ${type} and va.document_id = ${id}
    and (va.candidates @> array[${u}]::int[] or va.acted_by = ${u} or (va.status = 'pending' and ${decidesFor(u, 'va')})))`
}
