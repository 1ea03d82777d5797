/**
 * Who sees a document with approvals (a purchase order, a bill) in its list and on its own: holders of the
 * resource's permissions at the document's location, and the candidates of its approvals. One condition for
 * every such list, with the `updated_since` filter they share; `alias` is the document's table in the query.
 */
import { sql } from 'kysely'
import { approvalCandidateOf } from './approvers.ts'

export function documentScope(alias: string, type: 'purchase_order' | 'bill') {
  const column = (name: string) => sql<number>`${sql.ref(`${alias}.${name}`)}`
  /** Visible to `user` with the permissions at `locations`: at one of them, or a candidate of its approvals. */
  const visible = (user: unknown, locations: unknown) =>
    sql<boolean>`(${column('location_id')} = any(${locations}::int[])
      or ${approvalCandidateOf(user, type, column('tenant_id'), column('id'))})`
  return {
    visible,
    /** listSql's `scope`: the caller's user id and locations. */
    scope: ([user, locations]: readonly unknown[]) => visible(user, locations),
    /** The `updated_since` filter: changed at or after the instant. */
    updatedSince: (since: string) => sql<boolean>`${column('updated_at')} >= ${since}`,
  }
}
