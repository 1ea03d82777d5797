/** SQL for the e-mail outbox. */
import { emailKeyOf } from '../db/email.ts'
import { sql, type Kysely } from 'kysely'
import type { DB, MailAttachment } from '../db/schema.ts'

/**
 * Leases up to `limit` due messages in one statement: their next attempt moves `leaseSeconds` ahead, so no
 * other process (SKIP LOCKED) or later round picks them while they are being sent, and a process that dies
 * mid-send leaves them to be retried when the lease runs out. Sending happens outside any transaction.
 */
export async function leaseDue(db: Kysely<DB>, limit: number, leaseSeconds: number) {
  const result = await sql<{
    id: number
    to_address: string
    subject: string
    body_text: string
    attempts: number
    attachments: MailAttachment[]
  }>`
    update email_outbox set next_attempt_at = now() + make_interval(secs => ${leaseSeconds})
    where id in (
      select id from email_outbox where status = 'queued' and next_attempt_at <= now()
      order by id limit ${limit} for update skip locked)
    returning id, to_address, subject, body_text, attempts, attachments`.execute(db)
  return result.rows
}

export const markSent = (db: Kysely<DB>, id: number) =>
  db
    .updateTable('email_outbox')
    .set({ status: 'sent', sent_at: new Date(), attempts: sql`attempts + 1`, last_error: null })
    .where('id', '=', id)
    .execute()

export const markFailed = (db: Kysely<DB>, id: number, error: string, retryAt: Date | null) =>
  db
    .updateTable('email_outbox')
    .set({
      attempts: sql`attempts + 1`,
      last_error: error.slice(0, 1000),
      ...(retryAt ? { next_attempt_at: retryAt } : { status: 'failed' as const }),
    })
    .where('id', '=', id)
    .execute()

/**
 * E-mail to a user of its tenant who holds `superuser` (through their role or any grant): its links let the
 * holder in as a superuser, so only a superuser may read it.
 */
const toSuperuser = sql<boolean>`exists (select 1 from users su
  join role_permissions srp on srp.role_id in (
    select up.role_id from user_profiles up where up.user_id = su.id
    union select g.role_id from role_grants g where g.user_id = su.id)
  join permissions sp on sp.id = srp.permission_id and sp.key = 'superuser'
  where su.tenant_id = m.tenant_id and lower(su.email) = lower(m.to_address)
    and ${emailKeyOf('su.email')} = ${emailKeyOf('m.to_address')})`

/**
 * Queued e-mail (with `all`, sent and failed too), oldest first; of one tenant, or of every one; with
 * `hideSuperusers`, without the e-mail to superusers.
 */
export const listOutbox = (db: Kysely<DB>, all: boolean, tenantId?: number, hideSuperusers = false) => {
  let q = db
    .selectFrom('email_outbox as m')
    .innerJoin('tenants as t', 't.id', 'm.tenant_id')
    .select([
      'm.id',
      't.domain',
      'm.to_address',
      'm.subject',
      'm.body_text',
      'm.status',
      'm.attempts',
      'm.last_error',
      'm.created_at',
      'm.next_attempt_at',
      // What each attachment is, not its bytes (`procurement outbox --json`).
      sql<{ filename: string; content_type: string; size: number }[]>`coalesce((select json_agg(json_build_object(
        'filename', x->>'filename', 'content_type', x->>'content_type',
        'size', octet_length(decode(x->>'content', 'base64')))) from jsonb_array_elements(m.attachments) x), '[]'::json)`.as(
        'attachments',
      ),
    ])
    .orderBy('m.id')
  if (!all) q = q.where('m.status', '=', 'queued')
  if (tenantId !== undefined) q = q.where('m.tenant_id', '=', tenantId)
  if (hideSuperusers) q = q.where(sql<boolean>`not ${toSuperuser}`)
  return q.execute()
}

/** Queues one e-mail per recipient, in the caller's transaction (it is sent only if the write commits). */
export async function queue(
  db: Kysely<DB>,
  tenantId: number,
  to: readonly string[],
  message: { subject: string; text: string; attachments?: MailAttachment[] },
) {
  if (to.length === 0) return
  await db
    .insertInto('email_outbox')
    .values(
      to.map((address) => ({
        tenant_id: tenantId,
        to_address: address,
        subject: message.subject,
        body_text: message.text,
        attachments: JSON.stringify(message.attachments ?? []),
        next_attempt_at: new Date(),
      })),
    )
    .execute()
}

/** One attachment (by its place in the list, from 0) of e-mail `id` of tenant `tenantId`, with its bytes. */
export async function outboxAttachment(
  db: Kysely<DB>,
  tenantId: number,
  id: number,
  index: number,
  hideSuperusers: boolean,
) {
  let q = db
    .selectFrom('email_outbox as m')
    .select(
      sql<{ filename: string; content_type: string; content: string } | null>`m.attachments -> (${index})::int`.as(
        'file',
      ),
    )
    .where('m.tenant_id', '=', tenantId)
    .where('m.id', '=', id)
  if (hideSuperusers) q = q.where(sql<boolean>`not ${toSuperuser}`)
  return (await q.executeTakeFirst())?.file ?? undefined
}
