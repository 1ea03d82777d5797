/**
 * The outbox: e-mail the service has queued (invitations, set-password links). With SMTP_URL set,
 * smtp.service.ts delivers it; without, it waits here for an administrator to hand the links over by hand.
 */
import type { Kysely } from 'kysely'
import { requireAny, type Actor } from '../access/actor.ts'
import { notFound } from '../core/problem.ts'
import type { DB, MailAttachment } from '../db/schema.ts'
import * as outbox from './outbox.repository.ts'

/** Queued e-mail (invitations), and with `all` the sent and failed ones too: what `procurement outbox` shows. */
export const listOutbox = (db: Kysely<DB>, all: boolean) => outbox.listOutbox(db, all)

/**
 * The tenant's e-mail, newest first, for the people who manage users (superuser or nav_setting): without an
 * SMTP server it is where invitations and set-password links wait, to be handed over by hand. E-mail to a
 * superuser is shown to superusers only (containment: its link would let a nav_setting holder in as one).
 */
export async function tenantOutbox(db: Kysely<DB>, actor: Actor, all: boolean) {
  requireAny(actor, 'superuser', 'nav_setting')
  return (await outbox.listOutbox(db, all, actor.tenantId, !actor.permissions.has('superuser'))).reverse()
}

/** Queues e-mail (with attachments) in the caller's transaction: SMTP delivers it when set, else it waits here. */
export const queueMail = (
  db: Kysely<DB>,
  tenantId: number,
  to: readonly string[],
  message: { subject: string; text: string; attachments?: MailAttachment[] },
) => outbox.queue(db, tenantId, to, message)

/**
 * An attachment of an e-mail in the tenant's outbox (an order's PDF), for whoever may read the outbox (the
 * same e-mail as `tenantOutbox` shows them); 404 when there is none.
 */
export async function tenantOutboxAttachment(db: Kysely<DB>, actor: Actor, id: number, index: number) {
  requireAny(actor, 'superuser', 'nav_setting')
  const file = await outbox.outboxAttachment(db, actor.tenantId, id, index, !actor.permissions.has('superuser'))
  if (file === undefined || typeof file.content !== 'string') throw notFound('No such attachment in the outbox.')
  return { filename: file.filename, content_type: file.content_type, bytes: Buffer.from(file.content, 'base64') }
}
