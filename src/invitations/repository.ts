/**
 * SQL for one-time links (invitations, set-up and reset links; stored as token hashes) and the e-mail that
 * carries an invitation.
 */
import type { Kysely } from 'kysely'
import type { DB, LinkPurpose } from '../db/schema.ts'

export const tenantName = async (db: Kysely<DB>, tenantId: number) =>
  (await db.selectFrom('tenants').select('name').where('id', '=', tenantId).executeTakeFirstOrThrow()).name

export async function insertLinks(
  db: Kysely<DB>,
  rows: { tenant_id: number; user_id: number; token_hash: Buffer; expires_at: Date; purpose: LinkPurpose }[],
) {
  if (rows.length > 0) await db.insertInto('invitations').values(rows).execute()
}

export async function queueEmails(
  db: Kysely<DB>,
  rows: { tenant_id: number; to_address: string; subject: string; body_text: string }[],
) {
  if (rows.length > 0) await db.insertInto('email_outbox').values(rows).execute()
}

/** An open, unexpired link with its user and tenant; reading it changes nothing. */
export const findOpen = (db: Kysely<DB>, tokenHash: Buffer) =>
  db
    .selectFrom('invitations as i')
    .innerJoin('users as u', (join) => join.onRef('u.id', '=', 'i.user_id').onRef('u.tenant_id', '=', 'i.tenant_id'))
    .innerJoin('tenants as t', 't.id', 'i.tenant_id')
    .select([
      'i.id',
      'i.user_id',
      'i.tenant_id',
      'i.purpose',
      'u.email',
      'u.is_active',
      't.domain',
      't.name as tenant_name',
      't.active as tenant_active',
    ])
    .where('i.token_hash', '=', tokenHash)
    .where('i.accepted_at', 'is', null)
    .where('i.expires_at', '>', new Date())
    .executeTakeFirst()

/** Marks an open, unexpired link used; undefined when there is none for this token. */
export const markUsed = (db: Kysely<DB>, tokenHash: Buffer) =>
  db
    .updateTable('invitations')
    .set({ accepted_at: new Date() })
    .where('token_hash', '=', tokenHash)
    .where('accepted_at', 'is', null)
    .where('expires_at', '>', new Date())
    .returning(['user_id', 'tenant_id'])
    .executeTakeFirst()

/** The user is no longer pending (and, with a hash, has this password now); returns their e-mail. */
export const acceptUser = async (db: Kysely<DB>, tenantId: number, userId: number, passwordHash?: string) =>
  (
    await db
      .updateTable('users')
      .set({
        pending_invite: false,
        updated_at: new Date(),
        ...(passwordHash === undefined ? {} : { password_hash: passwordHash, password_changed_at: new Date() }),
      })
      .where('id', '=', userId)
      .where('tenant_id', '=', tenantId)
      .returning('email')
      .executeTakeFirstOrThrow()
  ).email

/** Older unused links of the user for the same purpose stop working when a new one is issued. */
export const closeOpenLinks = (db: Kysely<DB>, tenantId: number, userId: number, purpose: LinkPurpose) =>
  db
    .updateTable('invitations')
    .set({ expires_at: new Date() })
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', userId)
    .where('purpose', '=', purpose)
    .where('accepted_at', 'is', null)
    .execute()
