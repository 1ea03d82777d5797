/**
 * A payment request's status machine (DECISIONS): draft → submit → pending_approval → approved | rejected;
 * cancel from draft, pending_approval or approved (requester or superuser; never while an open payment run holds
 * it); approved → paid when a confirmed run pays off what is open (payment-runs/confirm.service.ts). Any other
 * transition → 409 naming the current status. Submitting needs nav_request at its location and plans the chain
 * from the `payment_request` rules (none matching → approved at once).
 */
import type { Kysely } from 'kysely'
import { actingUser, type Actor } from '../access/actor.ts'
import { requireAnyAt } from '../access/location-permissions.ts'
import { planChain } from '../approvals/chain.service.ts'
import type { MailBase } from '../approvals/notify.service.ts'
import { cancelChain, startChain } from '../approvals/service.ts'
import { audit } from '../audit/service.ts'
import { requireStatus } from '../core/lifecycle.ts'
import { conflict } from '../core/problem.ts'
import type { DB, PaymentRequestStatus } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import { recordEvent } from '../events/service.ts'
import { checkBudgets, recordBudgetOutcome, withBudgetSteps } from '../budgets/check.service.ts'
import { writeLedger } from '../ledger/ledger.service.ts'
import { planPaymentRequest, syncPaymentRequest } from './ledger.service.ts'
import { openRunHolding } from '../payment-runs/repository.ts'
import * as repo from './repository.ts'
import type { PaymentRequest } from './schema.ts'
import { requireOwner } from './service.ts'
import { accessOf, paymentRequestView, visiblePaymentRequest } from './view.service.ts'

const requirePrStatus = (row: repo.PaymentRequestRow, allowed: readonly PaymentRequestStatus[], action: string) =>
  requireStatus({ subject: `Payment request ${row.number}`, noun: 'payment request' }, row.status, allowed, action)

/** `base`: where the approval e-mail's link starts. */
export async function submitPaymentRequest(
  db: Kysely<DB>,
  actor: Actor,
  id: number,
  base?: MailBase,
): Promise<PaymentRequest> {
  const userId = actingUser(actor)
  const access = await accessOf(db, actor)
  return inTransaction(db, async (tx) => {
    const row = await visiblePaymentRequest(tx, actor, access, id, true)
    requireAnyAt(access, row.location_id, 'nav_request')
    requirePrStatus(row, ['draft'], 'submitted')
    const rules = await planChain(tx, actor.tenantId, {
      document: 'payment_request',
      locationId: row.location_id,
      total: row.amount,
      currencyId: row.currency_id,
      requesterId: userId,
    })
    // Counted as pending first, so the budgets see what it asks for; approved at once, it is spent.
    await repo.updatePaymentRequest(tx, actor.tenantId, id, { status: 'pending_approval', submitted_at: new Date() })
    const moves = await planPaymentRequest(tx, actor.tenantId, id)
    const outcome = await checkBudgets(tx, actor.tenantId, moves, { submitterId: userId, noun: 'payment request' })
    const chain = withBudgetSteps(outcome.steps, rules)
    await writeLedger(tx, actor.tenantId, moves, 'submitted')
    await recordBudgetOutcome(tx, actor.tenantId, { type: 'payment_request', id }, outcome)
    if (chain.length === 0) {
      await repo.updatePaymentRequest(tx, actor.tenantId, id, { status: 'approved' })
      await syncPaymentRequest(tx, actor.tenantId, id, 'approved')
    }
    await audit(tx, actor, { action: 'payment_request.submit', resourceType: 'payment_request', resourceId: id })
    if (chain.length > 0) {
      const doc = { type: 'payment_request' as const, id, locationId: row.location_id, submitterId: userId }
      const first = await startChain(tx, actor, doc, chain, base)
      const request = await paymentRequestView(tx, actor.tenantId, id)
      await recordEvent(tx, actor.tenantId, 'payment_request.submitted', request)
      await recordEvent(
        tx,
        actor.tenantId,
        'approval.created',
        request.approvals.find((a) => a.id === first)!,
      )
      return request
    }
    const request = await paymentRequestView(tx, actor.tenantId, id)
    await recordEvent(tx, actor.tenantId, 'payment_request.submitted', request)
    await recordEvent(tx, actor.tenantId, 'payment_request.approved', request)
    return request
  })
}

export async function cancelPaymentRequest(db: Kysely<DB>, actor: Actor, id: number): Promise<PaymentRequest> {
  const access = await accessOf(db, actor)
  return inTransaction(db, async (tx) => {
    const row = await visiblePaymentRequest(tx, actor, access, id, true)
    requireOwner(actor, row, 'cancel')
    requirePrStatus(row, ['draft', 'pending_approval', 'approved'], 'cancelled')
    const run = await openRunHolding(tx, actor.tenantId, { paymentRequestId: id })
    if (run !== undefined)
      throw conflict(
        `Payment request ${row.number} is in payment run ${run.number} (${run.status}); cancel the run or take the ` +
          'item out of it first.',
      )
    await cancelChain(tx, actor, 'payment_request', id)
    await repo.updatePaymentRequest(tx, actor.tenantId, id, { status: 'cancelled' })
    await syncPaymentRequest(tx, actor.tenantId, id, 'cancelled')
    await audit(tx, actor, { action: 'payment_request.cancel', resourceType: 'payment_request', resourceId: id })
    const request = await paymentRequestView(tx, actor.tenantId, id)
    await recordEvent(tx, actor.tenantId, 'payment_request.cancelled', request)
    return request
  })
}
