/**
 * SQL the console's Home and menu read for the signed-in user: their pending approvals by kind, exactly as
 * `pending_approvals_count` counts them (access/approvers.ts), and their home location.
 */
import { sql, type Kysely } from 'kysely'
import { pendingCount } from '../access/approvers.ts'
import { APPROVAL_KINDS, type ApprovalKind, type DB } from '../db/schema.ts'

/** The pending approvals `userId` of tenant `tenantId` may decide now, per kind. */
export async function pendingByKind(
  db: Kysely<DB>,
  tenantId: number,
  userId: number,
): Promise<Record<ApprovalKind, number>> {
  const user = sql.val(userId)
  const tenant = sql.val(tenantId)
  const row = await db
    .selectNoFrom(APPROVAL_KINDS.map((kind) => pendingCount(user, tenant, kind).as(kind)))
    .executeTakeFirstOrThrow()
  return Object.fromEntries(APPROVAL_KINDS.map((kind) => [kind, Number(row[kind] ?? 0)])) as Record<
    ApprovalKind,
    number
  >
}

/** `userId`'s profile: its id (a person's id on the wire) and its location (their office, or null). */
export async function profileOf(
  db: Kysely<DB>,
  tenantId: number,
  userId: number,
): Promise<{ id: number; location: number | null } | undefined> {
  const row = await db
    .selectFrom('user_profiles')
    .select(['id', 'location_id'])
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', userId)
    .executeTakeFirst()
  return row === undefined ? undefined : { id: row.id, location: row.location_id }
}
