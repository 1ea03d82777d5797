/**
 * Who sees a document with approvals (a request, a purchase order, a bill, …) in its list and on its own —
 * one rule for every document: holders of the resource's permissions at the document's location, the
 * candidates and deciders of its approvals, and, where the document has one, its owner (a request's
 * requester). With the `updated_since` filter the lists share; `alias` is the document's table in the query.
 */
import { sql } from 'kysely'
import type { DocumentType } from '../db/schema.ts'
import { approvalCandidateOf } from './approvers.ts'

export function documentScope(alias: string, type: DocumentType, owner?: string) {
  const column = (name: string) => sql<number>`${sql.ref(`${alias}.${name}`)}`
  /** Visible to `user` with the permissions at `locations`: its owner, at one of them, or of its approvals. */
  const visible = (user: unknown, locations: unknown) =>
    sql<boolean>`(${owner === undefined ? sql`false` : sql`${column(owner)} = ${user}::int`}
      or ${column('location_id')} = any(${locations}::int[])
      or ${approvalCandidateOf(user, type, column('tenant_id'), column('id'))})`
  return {
    visible,
    /** listSql's `scope`: the caller's user id and locations. */
    scope: ([user, locations]: readonly unknown[]) => visible(user, locations),
    /** The `updated_since` filter: changed at or after the instant. */
    updatedSince: (since: string) => sql<boolean>`${column('updated_at')} >= ${since}`,
  }
}
