/**
 * Every write is recorded, in the same transaction as the write itself: who (user and application), what
 * (action, resource, the fields written — never a secret), when, and the request id to find the log line.
 */
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'
import type { Caller } from '../http/auth.ts'
import { appendAudit } from './repository.ts'

export interface Change {
  action: string
  resourceType: string
  resourceId: string | number
  changes?: object
}

export function audit(db: Kysely<DB>, caller: Caller, ...changes: Change[]): Promise<void> {
  return appendAudit(
    db,
    changes.map((c) => ({
      tenantId: caller.tenantId,
      actorUserId: caller.userId,
      applicationId: caller.applicationId,
      requestId: caller.requestId,
      action: c.action,
      resourceType: c.resourceType,
      resourceId: c.resourceId,
      changes: c.changes ?? {},
    })),
  )
}
