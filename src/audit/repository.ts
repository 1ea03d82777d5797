/** SQL for the audit log: append-only. */
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'

export interface AuditEntry {
  tenantId: number
  actorUserId: number | null
  applicationId: number | null
  requestId: string | null
  action: string
  resourceType: string
  resourceId: string | number
  changes: object
}

export async function appendAudit(db: Kysely<DB>, entries: AuditEntry[]): Promise<void> {
  if (entries.length === 0) return
  await db
    .insertInto('audit_log')
    .values(
      entries.map((e) => ({
        tenant_id: e.tenantId,
        actor_user_id: e.actorUserId,
        application_id: e.applicationId,
        request_id: e.requestId,
        action: e.action,
        resource_type: e.resourceType,
        resource_id: String(e.resourceId),
        changes: JSON.stringify(e.changes),
      })),
    )
    .execute()
}

export function readAudit(
  db: Kysely<DB>,
  options: { since?: Date | undefined; domain?: string | undefined; limit?: number },
) {
  let q = db
    .selectFrom('audit_log as a')
    .innerJoin('tenants as t', 't.id', 'a.tenant_id')
    .leftJoin('users as u', 'u.id', 'a.actor_user_id')
    .leftJoin('applications as app', 'app.id', 'a.application_id')
    .select([
      'a.id',
      'a.created_at',
      't.domain',
      'u.email as actor',
      'app.client_id',
      'a.action',
      'a.resource_type',
      'a.resource_id',
      'a.changes',
      'a.request_id',
    ])
    .orderBy('a.id')
  if (options.since !== undefined) q = q.where('a.created_at', '>=', options.since)
  if (options.domain !== undefined) q = q.where('t.domain', '=', options.domain)
  return q.limit(options.limit ?? 10_000).execute()
}
