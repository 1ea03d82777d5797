/**
 * Every write is recorded, in the same transaction as the write itself: who (user and application, or the
 * operator), through which channel, what (action, resource, the fields written — never a secret), when, and
 * the request id to find the log line.
 */
import type { Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import type { DB } from '../db/schema.ts'
import { appendAudit, documentHistory as readDocumentHistory, readAudit } from './repository.ts'
export type { HistoryRow } from './repository.ts'

export interface Change {
  action: string
  resourceType: string
  resourceId: string | number
  changes?: object
}

export function audit(db: Kysely<DB>, actor: Actor, ...changes: Change[]): Promise<void> {
  // API writes are the norm; the other channels say so in the entry (`via: "cli"`, `via: "console"`).
  const via = actor.channel === 'api' ? {} : { via: actor.channel }
  return appendAudit(
    db,
    changes.map((c) => ({
      tenantId: actor.tenantId,
      actorUserId: actor.userId,
      applicationId: actor.applicationId,
      requestId: actor.requestId,
      action: c.action,
      resourceType: c.resourceType,
      resourceId: c.resourceId,
      changes: { ...c.changes, ...via },
    })),
  )
}

/** The audit log as `procurement audit` prints it. */
export const auditEntries = readAudit

/**
 * A document's history for its page (the console's History box): the audit entries written on it and on its
 * approvals, oldest first. The caller has already shown that `actor` may see the document.
 */
export const documentHistory = (db: Kysely<DB>, actor: Actor, type: string, id: number) =>
  readDocumentHistory(db, actor.tenantId, type, id)
