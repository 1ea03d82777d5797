/** SQL for invitations: one-time acceptance tokens (stored as hashes) and the e-mail that carries them. */
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'

export const tenantName = async (db: Kysely<DB>, tenantId: number) =>
  (await db.selectFrom('tenants').select('name').where('id', '=', tenantId).executeTakeFirstOrThrow()).name

export async function insertInvitations(
  db: Kysely<DB>,
  rows: { tenant_id: number; user_id: number; token_hash: Buffer; expires_at: Date }[],
) {
  if (rows.length > 0) await db.insertInto('invitations').values(rows).execute()
}

export async function queueEmails(
  db: Kysely<DB>,
  rows: { tenant_id: number; to_address: string; subject: string; body_text: string }[],
) {
  if (rows.length > 0) await db.insertInto('email_outbox').values(rows).execute()
}

/** Marks an open, unexpired invitation accepted; undefined when there is none for this token. */
export const markAccepted = (db: Kysely<DB>, tokenHash: Buffer) =>
  db
    .updateTable('invitations')
    .set({ accepted_at: new Date() })
    .where('token_hash', '=', tokenHash)
    .where('accepted_at', 'is', null)
    .where('expires_at', '>', new Date())
    .returning(['user_id', 'tenant_id'])
    .executeTakeFirst()

/** The user is no longer pending; returns their e-mail. */
export const clearPendingInvite = async (db: Kysely<DB>, tenantId: number, userId: number) =>
  (
    await db
      .updateTable('users')
      .set({ pending_invite: false, updated_at: new Date() })
      .where('id', '=', userId)
      .where('tenant_id', '=', tenantId)
      .returning('email')
      .executeTakeFirstOrThrow()
  ).email
