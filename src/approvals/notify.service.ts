/**
 * Approval e-mail (DECISIONS, "Administering a tenant without SQL"): when an approval becomes pending, its
 * candidates — or, while one is away, their delegatee — are told, with a link to it in the console; when a
 * document's chain ends, its owner (a request's requester) is told. Each document is named as its handler
 * describes it (documents.service.ts). Queued in the outbox in the same transaction as the
 * change (sent by SMTP when set); nobody who turned approval e-mail off on My account gets any.
 */
import type { Kysely } from 'kysely'
import type { DB, DocumentType } from '../db/schema.ts'
import { documentHandler } from './documents.service.ts'
import * as repo from './notify.repository.ts'

/** Where the links in e-mail start (the tenant's console origin); no e-mail without one (e.g. the demo seed). */
export type MailBase = string | undefined

const footer = (base: string) =>
  `\n\nYou get this because approval e-mail is on for you. Turn it off on My account: ${base}/console/account`

/** Tells whoever decides this pending approval that it waits for them (any document, as its handler names it). */
export async function notifyPending(db: Kysely<DB>, tenantId: number, approvalId: number, base: MailBase) {
  if (base === undefined) return
  const a = await repo.approvalFacts(db, tenantId, approvalId)
  if (a === undefined || a.status !== 'pending') return
  const to = await repo.deciders(db, tenantId, a.candidates, a.submitter_id)
  const facts = await documentHandler(a.document_type).describe(db, tenantId, a.document_id)
  await repo.queue(
    db,
    tenantId,
    to.map((t) => t.email),
    `Approval needed: ${facts.label}`,
    `${a.email} asks for your approval of ${facts.title}.\n\n` +
      `Approve or reject it: ${base}/console/approvals/${a.id}${footer(base)}`,
  )
}

/** Tells the document's owner (a request's requester) that its chain ended: approved or rejected, with the comment. */
export async function notifyDecision(
  db: Kysely<DB>,
  tenantId: number,
  type: DocumentType,
  id: number,
  outcome: 'approved' | 'rejected',
  comment: string,
  base: MailBase,
) {
  if (base === undefined) return
  const facts = await documentHandler(type).describe(db, tenantId, id)
  const owner = facts.owner
  if (owner === undefined || !owner.active || !owner.wants) return
  const why = comment === '' ? '' : `\n\nComment: ${comment}`
  const subject = `${facts.label.charAt(0).toUpperCase()}${facts.label.slice(1)} ${outcome}`
  await repo.queue(
    db,
    tenantId,
    [owner.email],
    subject,
    `Your ${owner.summary} is ${outcome}.${why}\n\nSee it: ${base}${facts.path}${footer(base)}`,
  )
}
