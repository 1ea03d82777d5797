/**
 * A bill's status machine (DECISIONS): draft → submit → pending_approval → approved (or back to draft on
 * rejection) → pay → paid; cancel from draft, pending_approval or approved. Any other transition → 409 naming
 * the current status. Each needs `accounts_payable` at the bill's location. Submit locks the bill, then its
 * order and the order's lines, so two bills on one line take turns: the second is matched against what the
 * first has billed.
 */
import { requireStatus } from '../core/lifecycle.ts'
import type { Kysely } from 'kysely'
import { actingUser, type Actor } from '../access/actor.ts'
import { holdersAt, requireAnyAt } from '../access/location-permissions.ts'
import { planChain } from '../approvals/rules.service.ts'
import type { MailBase } from '../approvals/notify.service.ts'
import { cancelChain, startChain } from '../approvals/service.ts'
import { audit } from '../audit/service.ts'
import { QUANTITY_MAX } from '../core/decimal.ts'
import { conflict, Problem, validationFailed } from '../core/problem.ts'
import type { DB, PlannedStep } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import { recordEvent } from '../events/service.ts'
import { checkBill, recordBudgetOutcome, withBudgetSteps } from '../budgets/check.service.ts'
import { syncBilled } from '../ledger/documents.service.ts'
import { lockOrderLines } from '../purchase-orders/receiving.service.ts'
import { refreshBilled } from './billed.service.ts'
import { procurementSettings } from '../procurement-settings/service.ts'
import { instantFault } from '../core/instant.ts'
import { matchBill, overbilled } from './match.ts'
import * as repo from './repository.ts'
import type { Bill, PayInput } from './schema.ts'
import { accessOf, billView, visibleBill } from './view.service.ts'

type Status = repo.BillStatus
const requireBillStatus = (row: repo.BillRow, allowed: readonly Status[], action: string) =>
  requireStatus({ subject: `Bill ${row.number}`, noun: 'bill' }, row.status, allowed, action)

type Step = (
  tx: Kysely<DB>,
  row: repo.BillRow,
) => Promise<'bill.submitted' | 'bill.paid' | 'bill.cancelled' | 'bill.approved' | undefined>

async function transition(db: Kysely<DB>, actor: Actor, id: number, action: string, step: Step): Promise<Bill> {
  const access = await accessOf(db, actor)
  return inTransaction(db, async (tx) => {
    const row = await visibleBill(tx, actor, access, id, true)
    requireAnyAt(access, row.location_id, 'accounts_payable')
    const event = await step(tx, row)
    await audit(tx, actor, { action: `bill.${action}`, resourceType: 'bill', resourceId: id })
    const bill = await billView(tx, actor.tenantId, id)
    if (event !== undefined) await recordEvent(tx, actor.tenantId, event, bill)
    if (event === 'bill.submitted' && bill.status === 'approved')
      await recordEvent(tx, actor.tenantId, 'bill.approved', bill)
    return bill
  })
}

/** Who resolves a bill's exceptions: holders of accounts_payable at its location, other than the submitter. */
async function payables(tx: Kysely<DB>, row: repo.BillRow, submitter: number): Promise<number[]> {
  const users = await repo.tenantUsers(tx, row.tenant_id)
  const holders = await holdersAt(tx, row.tenant_id, users, row.location_id, 'accounts_payable')
  const candidates = [...holders].filter((u) => u !== submitter).sort((a, b) => a - b)
  if (candidates.length === 0)
    throw conflict(
      `Bill ${row.number} has match exceptions and nobody other than its submitter holds accounts_payable at ` +
        `location ${row.location_id} to resolve them. The bill stays a draft.`,
    )
  return candidates
}

/** 409 naming each line that would carry its order line's billed quantity past what a quantity can be. */
function tooMuchBilled(row: repo.BillRow, over: ReturnType<typeof overbilled>): Problem {
  const errors = Object.fromEntries(
    over.map((o) => [
      `lines.${o.index}.quantity`,
      [
        `would make order line ${o.poLine} billed ${o.billed} in all (${o.earlier} on other bills), more than ` +
          `the ${QUANTITY_MAX} a quantity can be`,
      ],
    ]),
  )
  const named = over.map((o) => `line ${o.index + 1} (order line ${o.poLine}: ${o.billed} billed in all)`)
  return new Problem(
    409,
    'Conflict',
    `Bill ${row.number} cannot be submitted: ${named.join(', ')} would be billed beyond ${QUANTITY_MAX}, the most ` +
      'an order line can count. Lower the quantity, or cancel another bill on the order line. The bill stays a draft.',
    { errors },
  )
}

/** `base`: where the approval e-mail's link starts, when the bill waits for approval (none without it). */
export const submitBill = (db: Kysely<DB>, actor: Actor, id: number, base?: MailBase) =>
  transition(db, actor, id, 'submit', async (tx, row) => {
    requireBillStatus(row, ['draft'], 'submitted')
    const userId = actingUser(actor)
    let match: 'not_required' | 'matched' | 'exception' = 'not_required'
    let exceptions: repo.BillException[] = []
    if (row.order_id !== null) {
      const order = (await lockOrderLines(tx, actor.tenantId, row.order_id))!
      if (order.status !== 'issued' && order.status !== 'closed')
        throw conflict(
          `Purchase order ${order.number} is ${order.status}; only an issued or closed order can be billed.`,
        )
      const over = overbilled(row.lines, order.lines)
      if (over.length > 0) throw tooMuchBilled(row, over)
      exceptions = matchBill(row.lines, order.lines, await procurementSettings(tx, actor.tenantId))
      match = exceptions.length === 0 ? 'matched' : 'exception'
    }
    let chain = await planChain(tx, actor.tenantId, {
      locationId: row.location_id,
      total: row.total,
      currencyId: row.currency_id,
      requesterId: userId,
      document: 'bill',
    })
    if (match === 'exception')
      chain = [
        { step: 1, candidates: await payables(tx, row, userId), permission: 'accounts_payable' },
        ...chain.map((s, i): PlannedStep => ({ ...s, step: i + 2 })),
      ]
    // Budgets (budgets/check.service.ts): its lines as spent, less what they take off its order; a block throws.
    await repo.updateBill(tx, actor.tenantId, row.id, { status: 'pending_approval' })
    if (row.order_id !== null) await refreshBilled(tx, actor.tenantId, row.order_id)
    const budgets = await checkBill(tx, actor.tenantId, row.id, row.order_id, userId)
    chain = withBudgetSteps(budgets.steps, chain)
    const status = chain.length === 0 ? 'approved' : 'pending_approval'
    await repo.updateBill(tx, actor.tenantId, row.id, {
      status,
      match_status: match,
      exceptions: JSON.stringify(exceptions),
    })
    if (row.order_id !== null) await refreshBilled(tx, actor.tenantId, row.order_id)
    await syncBilled(tx, actor.tenantId, row.id, row.order_id, 'billed')
    await recordBudgetOutcome(tx, actor.tenantId, { type: 'bill', id: row.id }, budgets)
    if (chain.length > 0) {
      const doc = { type: 'bill' as const, id: row.id, locationId: row.location_id, submitterId: userId }
      const first = await startChain(tx, actor, doc, chain, base)
      const bill = await billView(tx, actor.tenantId, row.id)
      await recordEvent(tx, actor.tenantId, 'bill.submitted', bill)
      await recordEvent(
        tx,
        actor.tenantId,
        'approval.created',
        bill.approvals.find((a) => a.id === first)!,
      )
      return undefined
    }
    return 'bill.submitted'
  })

export const payBill = (db: Kysely<DB>, actor: Actor, id: number, input: PayInput) =>
  transition(db, actor, id, 'pay', async (tx, row) => {
    requireBillStatus(row, ['approved'], 'paid')
    const fault = input.paid_at === undefined ? undefined : instantFault(input.paid_at)
    if (fault !== undefined) throw validationFailed({ paid_at: [fault] })
    await markBillsPaid(tx, actor.tenantId, [row.id], input.paid_at ?? new Date(), input.payment_reference ?? null)
    await syncBilled(tx, actor.tenantId, row.id, null, 'paid')
    return 'bill.paid'
  })

/**
 * Marks approved bills paid, in the caller's transaction (the caller has locked them and records `bill.paid`):
 * by hand (`pay`) or by a confirmed payment run that paid what was open (payment_reference: the run's number).
 */
export const markBillsPaid = (
  tx: Kysely<DB>,
  tenantId: number,
  ids: readonly number[],
  paidAt: Date | string,
  paymentReference: string | null,
) => repo.markPaid(tx, tenantId, ids, paidAt, paymentReference)

export const cancelBill = (db: Kysely<DB>, actor: Actor, id: number) =>
  transition(db, actor, id, 'cancel', async (tx, row) => {
    requireBillStatus(row, ['draft', 'pending_approval', 'approved'], 'cancelled')
    if (row.order_id !== null) await lockOrderLines(tx, actor.tenantId, row.order_id)
    await cancelChain(tx, actor, 'bill', row.id)
    await repo.updateBill(tx, actor.tenantId, row.id, { status: 'cancelled' })
    if (row.order_id !== null) await refreshBilled(tx, actor.tenantId, row.order_id)
    await syncBilled(tx, actor.tenantId, row.id, row.order_id, 'cancelled')
    return 'bill.cancelled'
  })
