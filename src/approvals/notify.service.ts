/**
 * Approval e-mail (DECISIONS, "Administering a tenant without SQL"): when an approval becomes pending, its
 * candidates — or, while one is away, their delegatee — are told, with a link to it in the console; when a
 * request is approved or rejected, its requester is told. Queued in the outbox in the same transaction as the
 * change (sent by SMTP when set); nobody who turned approval e-mail off on My account gets any.
 */
import type { Kysely } from 'kysely'
import { trimDecimal } from '../core/decimal.ts'
import type { DB } from '../db/schema.ts'
import * as repo from './notify.repository.ts'

/** Where the links in e-mail start (the tenant's console origin); no e-mail without one (e.g. the demo seed). */
export type MailBase = string | undefined

const footer = (base: string) =>
  `\n\nYou get this because approval e-mail is on for you. Turn it off on My account: ${base}/console/account`

const DOCUMENT_NAMES: Record<string, string> = { request: 'request', purchase_order: 'purchase order', bill: 'bill' }

/** Tells whoever decides this pending approval that it waits for them (any document: request, order, bill). */
export async function notifyPending(db: Kysely<DB>, tenantId: number, approvalId: number, base: MailBase) {
  if (base === undefined) return
  const a = await repo.approvalFacts(db, tenantId, approvalId)
  if (a === undefined || a.status !== 'pending') return
  const to = await repo.deciders(db, tenantId, a.candidates, a.submitter_id)
  const link = `${base}/console/approvals/${a.id}`
  if (a.document_type === 'request') {
    const r = await repo.requestFacts(db, tenantId, a.document_id)
    const what = `request #${r.id}${r.description ? ` “${r.description}”` : ''} (${trimDecimal(r.total)} ${r.currency}, ${r.location})`
    await repo.queue(
      db,
      tenantId,
      to.map((t) => t.email),
      `Approval needed: request #${r.id}`,
      `${r.requester_email} asks for your approval of ${what}.\n\nApprove or reject it: ${link}${footer(base)}`,
    )
    return
  }
  const name = `${DOCUMENT_NAMES[a.document_type] ?? a.document_type} ${a.label ?? `#${a.document_id}`}`
  await repo.queue(
    db,
    tenantId,
    to.map((t) => t.email),
    `Approval needed: ${name}`,
    `${a.submitter_email} asks for your approval of ${name} (${a.location}).\n\nApprove or reject it: ${link}${footer(base)}`,
  )
}

/** Tells the requester their request was approved or rejected (with the comment given). */
export async function notifyDecision(
  db: Kysely<DB>,
  tenantId: number,
  requestId: number,
  outcome: 'approved' | 'rejected',
  comment: string,
  base: MailBase,
) {
  if (base === undefined) return
  const r = await repo.requestFacts(db, tenantId, requestId)
  if (!r.requester_active || !r.requester_wants) return
  const why = comment === '' ? '' : `\n\nComment: ${comment}`
  await repo.queue(
    db,
    tenantId,
    [r.requester_email],
    `Request #${r.id} ${outcome}`,
    `Your request #${r.id}${r.description ? ` “${r.description}”` : ''} (${trimDecimal(r.total)} ${r.currency}) is ${outcome}.${why}\n\nSee it: ${base}/console/requests/${r.id}${footer(base)}`,
  )
}
