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
    .leftJoin('applications as app', (join) =>
      join.onRef('app.tenant_id', '=', 'a.tenant_id').onRef('app.id', '=', 'a.application_id'),
    )
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

/** One entry of a document's history: who (a person, an application, or the operator), what, when. */
export interface HistoryRow {
  id: string
  created_at: Date
  action: string
  resource_type: string
  changes: unknown
  actor_email: string | null
  actor_first_name: string | null
  actor_last_name: string | null
  client_id: string | null
}

/**
 * The audit entries of one document of tenant `tenantId`, oldest first: those written on the document itself
 * and those written on its approvals (decisions), at most `limit`.
 */
export function documentHistory(
  db: Kysely<DB>,
  tenantId: number,
  resourceType: string,
  resourceId: number,
  limit = 200,
): Promise<HistoryRow[]> {
  return db
    .selectFrom('audit_log as a')
    .leftJoin('users as u', (join) =>
      join.onRef('u.tenant_id', '=', 'a.tenant_id').onRef('u.id', '=', 'a.actor_user_id'),
    )
    .leftJoin('user_profiles as p', (join) =>
      join.onRef('p.tenant_id', '=', 'u.tenant_id').onRef('p.user_id', '=', 'u.id'),
    )
    .leftJoin('applications as app', (join) =>
      join.onRef('app.tenant_id', '=', 'a.tenant_id').onRef('app.id', '=', 'a.application_id'),
    )
    .select([
      'a.id',
      'a.created_at',
      'a.action',
      'a.resource_type',
      'a.changes',
      'u.email as actor_email',
      'p.first_name as actor_first_name',
      'p.last_name as actor_last_name',
      'app.client_id',
    ])
    .where('a.tenant_id', '=', tenantId)
    .where((w) =>
      w.or([
        w.and([w('a.resource_type', '=', resourceType), w('a.resource_id', '=', String(resourceId))]),
        w.and([
          w('a.resource_type', '=', 'approval'),
          w(
            'a.resource_id',
            'in',
            db
              .selectFrom('request_approvals as ra')
              .select((s) => s.cast<string>('ra.id', 'text').as('id'))
              .where('ra.tenant_id', '=', tenantId)
              .where('ra.document_type', '=', resourceType as never)
              .where('ra.document_id', '=', resourceId),
          ),
        ]),
      ]),
    )
    .orderBy('a.created_at')
    .orderBy('a.id')
    .limit(limit)
    .execute()
}
