/**
 * Who may act on an approval, as SQL (DECISIONS, "Purchase requests and approvals"): its candidates, and
 * while a candidate is away, their delegatee. A delegation is active until the end of its
 * `expected_return_date` in UTC (no end date: until ended); the test is made in every query, so an expired
 * delegation stops routing the instant it expires, without any job. One hop only: a delegatee's own
 * delegation does not pass the away user's approvals further on.
 */
import { sql, type RawBuilder } from 'kysely'

/** Whether the delegation row aliased `alias` is in force now. */
export const delegationActive = (alias: string): RawBuilder<boolean> =>
  sql<boolean>`(${sql.ref(`${alias}.active`)} and (${sql.ref(`${alias}.expected_return_date`)} is null
    or now() < (${sql.ref(`${alias}.expected_return_date`)} + 1)::timestamp at time zone 'UTC'))`

/**
 * Whether the user `user` (an SQL expression for a users.id) may decide the approval aliased `a` of the
 * request aliased `r`: a candidate who is not away, or the delegatee of an away candidate — never the requester.
 */
export const decidesFor = (user: RawBuilder<number>, a = 'a', r = 'r'): RawBuilder<boolean> => {
  const candidates = sql.ref(`${a}.candidates`)
  return sql<boolean>`(${sql.ref(`${r}.requester_id`)} <> ${user} and (
    (${candidates} @> array[${user}]::int[] and not exists (
      select 1 from delegations dd where dd.user_id = ${user} and ${delegationActive('dd')}))
    or ${candidates} && array(
      select dd.user_id from delegations dd where dd.delegatee_id = ${user} and ${delegationActive('dd')})))`
}

/**
 * The count of pending order approvals the user `user` (users.id expression) of tenant `tenant` sees in their
 * inbox. The tenant's own rows only, and first the approvals whose candidates include the user or someone
 * away who delegated to them (`&&` on the candidates, which the partial GIN index on pending approvals
 * answers) — a superset that `decidesFor` then narrows exactly: the count reads the user's few approvals, not
 * every pending one.
 */
export const pendingOrderCount = (user: RawBuilder<number>, tenant: RawBuilder<number>): RawBuilder<number> =>
  sql<number>`(select count(*)::int from request_approvals a
    join purchase_requests r on r.tenant_id = a.tenant_id and r.id = a.request_id
    where a.tenant_id = ${tenant} and a.status = 'pending'
      and a.candidates && (array[${user}]::int[] || array(
        select dd.user_id from delegations dd where dd.delegatee_id = ${user} and ${delegationActive('dd')}))
      and ${decidesFor(user)})`

/**
 * Whether the request aliased `r` is visible to the user `user` whose locations with `nav_approval`,
 * `nav_purchase` or `superuser` are `locations` (int[]): their own, one they are (or were) a candidate for or
 * decide as a delegatee, or any at those locations. A superuser's lists are not scoped at all.
 */
export const requestVisible = (user: unknown, locations: unknown, r = 'r'): RawBuilder<boolean> => {
  const u = sql<number>`${user}::int`
  return sql<boolean>`(${sql.ref(`${r}.requester_id`)} = ${u} or ${sql.ref(`${r}.location_id`)} = any(${locations}::int[])
    or exists (select 1 from request_approvals va where va.tenant_id = ${sql.ref(`${r}.tenant_id`)}
      and va.request_id = ${sql.ref(`${r}.id`)} and (va.candidates @> array[${u}]::int[] or va.acted_by = ${u}
        or (va.status = 'pending' and ${decidesFor(u, 'va', r)}))))`
}
