/**
 * Approvals (the inbox): who sees them (as their requests), who decides them (any one candidate, or the
 * delegatee of an away candidate; never the requester), and what a decision does — step n+1 is created when
 * step n is approved, the request is approved after the last step, one rejection rejects it. A second
 * decision → 409; two deciders at the same instant: the request row is locked and the UPDATE is conditional
 * on `status = 'pending'`, so exactly one wins.
 */
import type { Kysely } from 'kysely'
import { actingUser, type Actor } from '../access/actor.ts'
import { requireMayDecide } from '../access/decision.ts'
import { requestScope } from '../access/location-permissions.ts'
import { audit } from '../audit/service.ts'
import type { Page } from '../core/list-query.ts'
import { conflict, forbidden, notFound } from '../core/problem.ts'
import type { DB, PlannedStep } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import { recordEvent } from '../events/service.ts'
import { requestView } from '../requests/view.service.ts'
import { notifyDecision, notifyPending, type MailBase } from './notify.service.ts'
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
 * Opens the chain of a submitted request: its first planned step becomes a pending approval. The caller
 * records `approval.created` after its `request.submitted`, with the approval as the request shows it.
 */
export async function startChain(tx: Kysely<DB>, actor: Actor, requestId: number, chain: PlannedStep[]) {
  await repo.insertApproval(tx, actor.tenantId, requestId, chain[0]!)
}

/** Ends a cancelled request's chain: its pending approval is cancelled. */
export const cancelChain = (tx: Kysely<DB>, actor: Actor, requestId: number) =>
  repo.cancelPending(tx, actor.tenantId, requestId)

/** What a decision leads to, after the decided approval's own event. */
type Sequel = 'approval.created' | 'request.approved' | 'request.rejected'

/**
 * Records a decision's events, in the order a reader should see them: the decided approval, then what it led
 * to — the next step's approval, or the request approved or rejected. Each object is read after the whole
 * write, as GET returns it once the transaction commits. Returns the decided approval.
 */
async function recordDecision(tx: Kysely<DB>, tenantId: number, approvalId: number, requestId: number, sequel: Sequel) {
  const request = await requestView(tx, tenantId, requestId)
  const decided = request.approvals.find((a) => a.id === approvalId)!
  await recordEvent(tx, tenantId, decided.status === 'approved' ? 'approval.approved' : 'approval.rejected', decided)
  if (sequel === 'approval.created') await recordEvent(tx, tenantId, sequel, request.approvals.at(-1)!)
  else await recordEvent(tx, tenantId, sequel, request)
  return decided
}

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
    const request = await repo.lockRequestOf(tx, actor.tenantId, id)
    if (request === undefined) throw notFound(`No approval ${id}.`)
    // Authority read now, not when the candidates were chosen (access/decision.ts).
    if (seen.status === 'pending' && seen.requester_id !== userId)
      await requireMayDecide(tx, actor, { locationId: seen.location_id, candidates: seen.candidate_ids })
    const decided = await repo.decide(tx, actor.tenantId, id, userId, outcome, comment)
    if (decided === undefined) {
      const now = (await repo.findApproval(tx, actor.tenantId, id))!
      if (now.status !== 'pending') throw conflict(`This approval is already ${now.status}.`)
      if (now.requester_id === userId) throw forbidden('Nobody approves their own request.')
      throw forbidden('You are not a candidate for this approval, nor the delegatee of an away candidate.')
    }
    const next = outcome === 'approved' ? request.chain.find((s) => s.step > decided.step) : undefined
    if (outcome === 'rejected') await repo.setRequestStatus(tx, actor.tenantId, decided.request_id, 'rejected')
    else if (next === undefined) await repo.setRequestStatus(tx, actor.tenantId, decided.request_id, 'approved')
    else await repo.insertApproval(tx, actor.tenantId, decided.request_id, next)
    const sequel: Sequel =
      outcome === 'rejected' ? 'request.rejected' : next === undefined ? 'request.approved' : 'approval.created'
    const approval = await recordDecision(tx, actor.tenantId, id, decided.request_id, sequel)
    if (sequel === 'approval.created') await notifyPending(tx, actor.tenantId, decided.request_id, base)
    else await notifyDecision(tx, actor.tenantId, decided.request_id, outcome, comment, base)
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
