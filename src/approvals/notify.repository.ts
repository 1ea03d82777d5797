/** SQL for approval e-mail: who is told, and the message queued in the outbox. */
import { sql, type Kysely } from 'kysely'
import { byTenant } from '../db/joins.ts'
import { delegationActive } from '../access/approvers.ts'
import type { DB } from '../db/schema.ts'

export interface Told {
  email: string
}

/** A pending approval's candidates, its submitter's e-mail and its document (the handler names the document). */
export const approvalFacts = (db: Kysely<DB>, tenantId: number, approvalId: number) =>
  db
    .selectFrom('request_approvals as a')
    .innerJoin('users as u', byTenant('u', 'a.submitter_id'))
    .select(['a.id', 'a.status', 'a.candidates', 'a.submitter_id', 'a.document_type', 'a.document_id', 'u.email'])
    .where('a.tenant_id', '=', tenantId)
    .where('a.id', '=', approvalId)
    .executeTakeFirst()

/**
 * Who decides an approval with these candidates: each candidate, or while they are away their delegatee —
 * never the requester; only active users who have not turned approval e-mail off.
 */
export async function deciders(db: Kysely<DB>, tenantId: number, candidates: number[], requesterId: number) {
  const { rows } = await sql<Told>`select distinct u.email from users u
    where u.tenant_id = ${tenantId} and u.is_active and u.approval_emails and u.id <> ${requesterId}
      and u.id in (
        select c from unnest(${candidates}::int[]) c where not exists (
          select 1 from delegations dd where dd.user_id = c and ${delegationActive('dd')})
        union
        select dd.delegatee_id from delegations dd
          where dd.tenant_id = ${tenantId} and dd.user_id = any(${candidates}::int[]) and ${delegationActive('dd')})
    order by u.email`.execute(db)
  return rows
}

export async function queue(db: Kysely<DB>, tenantId: number, to: string[], subject: string, body: string) {
  if (to.length === 0) return
  await db
    .insertInto('email_outbox')
    .values(to.map((to_address) => ({ tenant_id: tenantId, to_address, subject, body_text: body })))
    .execute()
}
