/**
 * Approvals (the inbox) of every document — requests, purchase orders, later bills: who sees them (as their
 * documents), who decides them (any one candidate, or the delegatee of an away candidate; never the
 * document's submitter), and what a decision does — step n+1 is opened when step n is approved, the document's
 * handler (documents.ts) is told after the last step or at the first rejection. A second decision → 409; two
 * deciders at the same instant: the document row is locked and the UPDATE is conditional on
 * `status = 'pending'`, so exactly one wins.
 */
import type { Kysely } from 'kysely'
import { actingUser, type Actor } from '../access/actor.ts'
import { requireMayDecide } from '../access/decision.ts'
import { requestScope } from '../access/location-permissions.ts'
import { audit } from '../audit/service.ts'
import type { Page } from '../core/list-query.ts'
import { conflict, forbidden, notFound } from '../core/problem.ts'
import type { DB, DocumentType, PlannedStep } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import { recordEvent } from '../events/service.ts'
import { openNext, requireNotApprovedEarlier } from './next-step.service.ts'
import { notifyDecision, notifyPending, type MailBase } from './notify.service.ts'
import { documentHandler, type DocumentEvent, type DocumentRef } from './documents.service.ts'
import * as repo from './repository.ts'
import type { Approval, ApprovalListQuery, ApprovalListSql } from './schema.ts'
import { toApproval } from './view.service.ts'

export async function listApprovals(db: Kysely<DB>, actor: Actor, query: ApprovalListQuery): Promise<Page<Approval>> {
  const scope = await requestScope(db, actor)
  const { approver, ...rest } = query
  const sqlQuery: ApprovalListSql = approver === 'me' ? { ...rest, approver_user: actingUser(actor) } : rest
  const page = await repo.pageOfApprovals(db, actor.tenantId, sqlQuery, scope)
  return { ...page, rows: page.rows.map(toApproval) }
}

export async function getApproval(db: Kysely<DB>, actor: Actor, id: number): Promise<Approval> {
  const row = await repo.findApproval(db, actor.tenantId, id, await requestScope(db, actor))
  if (row === undefined) throw notFound(`No approval ${id}.`)
  return toApproval(row)
}

/**
 * Opens the chain of a submitted document: its first planned step becomes a pending approval, and its
 * deciders are e-mailed (when `base` says where the console is). The caller records `approval.created` after
 * its own event, with the approval as GET returns it.
 */
export async function startChain(
  tx: Kysely<DB>,
  actor: Actor,
  doc: DocumentRef,
  chain: PlannedStep[],
  base: MailBase,
): Promise<number> {
  const first = await repo.insertApproval(tx, actor.tenantId, doc, documentHandler(doc.type).kind, chain, chain[0]!)
  await notifyPending(tx, actor.tenantId, first, base)
  return first
}

/** Ends a document's chain unfinished (the document was cancelled or withdrawn): its pending approval is cancelled. */
export const cancelChain = (tx: Kysely<DB>, actor: Actor, type: DocumentType, id: number) =>
  repo.cancelPending(tx, actor.tenantId, type, id)

/** The approval as GET returns it, read inside the write's transaction. */
const approvalView = async (tx: Kysely<DB>, tenantId: number, id: number) =>
  toApproval((await repo.findApproval(tx, tenantId, id))!)

async function decide(
  db: Kysely<DB>,
  actor: Actor,
  id: number,
  outcome: 'approved' | 'rejected',
  comment: string,
  base: MailBase,
): Promise<Approval> {
  const userId = actingUser(actor)
  const scope = await requestScope(db, actor)
  return inTransaction(db, async (tx) => {
    const seen = await repo.findApproval(tx, actor.tenantId, id, scope)
    if (seen === undefined) throw notFound(`No approval ${id}.`)
    const handler = documentHandler(seen.document_type)
    if (!(await handler.lock(tx, actor.tenantId, seen.document_id))) throw notFound(`No approval ${id}.`)
    // Authority read now, not when the candidates were chosen (access/decision.ts). A budget's step needs no
    // permission: owning the budget is the authority for it (budgets/check.service.ts).
    const budgetStep = seen.plan.find((s) => s.step === seen.step)?.budget !== undefined
    // A document spanning locations (a payment run) is decided with the permission held at every one of them.
    if (seen.status === 'pending' && seen.submitter_id !== userId && !budgetStep) {
      const spanned = (await handler.decisionLocations?.(tx, actor.tenantId, seen.document_id)) ?? []
      for (const locationId of new Set([seen.location_id, ...spanned]))
        await requireMayDecide(tx, actor, {
          locationId,
          candidates: seen.candidate_ids,
          permission: seen.plan.find((s) => s.step === seen.step)?.permission,
        })
    }
    if (seen.status === 'pending') await requireNotApprovedEarlier(tx, actor.tenantId, seen, userId)
    const decided = await repo.decide(tx, actor.tenantId, id, userId, outcome, comment)
    if (decided === undefined) {
      const now = (await repo.findApproval(tx, actor.tenantId, id))!
      if (now.status !== 'pending') throw conflict(`This approval is already ${now.status}.`)
      if (now.submitter_id === userId) throw forbidden('Nobody approves their own document.')
      throw forbidden('You are not a candidate for this approval, nor the delegatee of an away candidate.')
    }
    const doc: DocumentRef = {
      type: decided.document_type,
      id: decided.document_id,
      locationId: seen.location_id,
      submitterId: seen.submitter_id,
    }
    const opened = outcome === 'approved' ? await openNext(tx, actor.tenantId, doc, handler.kind, decided) : undefined
    const nextId = opened?.pending
    let sequel: DocumentEvent[] = []
    if (outcome === 'rejected') sequel = await handler.rejected(tx, actor, doc.id, comment)
    else if (nextId === undefined) sequel = await handler.approved(tx, actor, doc.id)
    // The decided approval's event first, then what it led to: the steps it covered, the next step's approval,
    // or the document's.
    const approval = await approvalView(tx, actor.tenantId, id)
    await recordEvent(tx, actor.tenantId, outcome === 'approved' ? 'approval.approved' : 'approval.rejected', approval)
    for (const covered of opened?.covered ?? []) {
      const view = await approvalView(tx, actor.tenantId, covered)
      await recordEvent(tx, actor.tenantId, 'approval.created', view)
      await recordEvent(tx, actor.tenantId, 'approval.approved', view)
      await audit(tx, actor, {
        action: 'approval.approve',
        resourceType: 'approval',
        resourceId: covered,
        changes: { status: 'approved', comment: view.comment },
      })
    }
    if (nextId !== undefined)
      await recordEvent(tx, actor.tenantId, 'approval.created', await approvalView(tx, actor.tenantId, nextId))
    for (const event of sequel) await recordEvent(tx, actor.tenantId, event.type, event.object as never)
    if (nextId !== undefined) await notifyPending(tx, actor.tenantId, nextId, base)
    else await notifyDecision(tx, actor.tenantId, doc.type, doc.id, outcome, comment, base)
    await audit(tx, actor, {
      action: outcome === 'approved' ? 'approval.approve' : 'approval.reject',
      resourceType: 'approval',
      resourceId: id,
      changes: { status: outcome, comment },
    })
    return approval
  })
}

/** `base`: where the links of the e-mail this sends start (none without it). */
export const approve = (db: Kysely<DB>, actor: Actor, id: number, comment = '', base?: MailBase) =>
  decide(db, actor, id, 'approved', comment, base)

export const reject = (db: Kysely<DB>, actor: Actor, id: number, comment: string, base?: MailBase) =>
  decide(db, actor, id, 'rejected', comment.trim(), base)
