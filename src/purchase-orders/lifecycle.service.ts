/**
 * An order's status machine (DECISIONS): draft → issue → issued, or pending_approval → issued on approval
 * (back to draft on rejection); issued → close → closed → reopen → issued; cancel from draft,
 * pending_approval, or issued with nothing received or billed; a line closed short. Any other transition →
 * 409 naming the current status. Each needs `nav_purchase` at the order's location.
 */
import { requireStatus } from '../core/lifecycle.ts'
import type { Kysely } from 'kysely'
import { actingUser, type Actor } from '../access/actor.ts'
import { actorLocationAccess, requireAnyAt } from '../access/location-permissions.ts'
import { planChain } from '../approvals/rules.service.ts'
import type { MailBase } from '../approvals/notify.service.ts'
import { cancelChain, startChain } from '../approvals/service.ts'
import { audit } from '../audit/service.ts'
import { compareDecimal, exceedsByPercent } from '../core/decimal.ts'
import { conflict, notFound } from '../core/problem.ts'
import type { DB, OrderStatus } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import type { EventType } from '../events/schema.ts'
import { recordEvent } from '../events/service.ts'
import { checkDocument, recordBudgetOutcome, withBudgetSteps } from '../budgets/check.service.ts'
import { requestOfOrder, syncDocument } from '../ledger/documents.service.ts'
import { requestTotal } from '../requests/service.ts'
import { scopeOf, visibleOrder } from './access.service.ts'
import * as lineWrites from './lines-repository.ts'
import * as orderWrites from './write-repository.ts'
import type * as repo from './repository.ts'
import type { PurchaseOrder } from './schema.ts'
import { procurementSettings } from '../procurement-settings/service.ts'
import { orderView } from './view.service.ts'

const requireOrderStatus = (row: repo.OrderRow, allowed: readonly OrderStatus[], action: string) =>
  requireStatus({ subject: 'The purchase order', noun: 'order' }, row.status, allowed, action)

type Step = (tx: Kysely<DB>, actor: Actor, row: repo.OrderRow) => Promise<EventType | undefined>

/** One transition: the order locked and visible, `nav_purchase` there, the step, its audit entry and event. */
async function transition(db: Kysely<DB>, actor: Actor, id: number, action: string, step: Step) {
  const access = await actorLocationAccess(db, actor)
  return inTransaction(db, async (tx) => {
    const row = await visibleOrder(tx, actor, scopeOf(actor, access), id, true)
    requireAnyAt(access, row.location_id, 'nav_purchase')
    const event = await step(tx, actor, row)
    await audit(tx, actor, { action: `purchase_order.${action}`, resourceType: 'purchase_order', resourceId: id })
    const order = await orderView(tx, actor.tenantId, id)
    if (event !== undefined) await recordEvent(tx, actor.tenantId, event as 'purchase_order.issued', order)
    return order
  })
}

/**
 * The ledger after an order is issued, approved or cancelled: the order's lines count what it now holds and its
 * request's lines what is still not ordered (reason `ordered` when they move to the order).
 */
export async function syncOrdered(tx: Kysely<DB>, tenantId: number, id: number, reason: string) {
  const request = await requestOfOrder(tx, tenantId, id)
  if (request !== null)
    await syncDocument(tx, tenantId, 'request', request, reason === 'cancelled' ? reason : 'ordered')
  await syncDocument(tx, tenantId, 'purchase_order', id, reason)
}

/** Marks the order issued at version 1, its total the approved one. */
export async function markIssued(tx: Kysely<DB>, tenantId: number, row: { id: number; total: string }) {
  await orderWrites.updateOrder(tx, tenantId, row.id, {
    status: 'issued',
    version: 1,
    issued_at: new Date(),
    approved_total: row.total,
  })
}

/** `base`: where the approval e-mail's link starts, when the order waits for approval (none without it). */
export const issueOrder = (db: Kysely<DB>, actor: Actor, id: number, base?: MailBase): Promise<PurchaseOrder> =>
  transition(db, actor, id, 'issue', async (tx, actor, row) => {
    requireOrderStatus(row, ['draft'], 'issued')
    const userId = actingUser(actor)
    const settings = await procurementSettings(tx, actor.tenantId)
    const approved = row.request_id === null ? undefined : await requestTotal(tx, actor.tenantId, row.request_id)
    const needsApproval =
      approved === undefined || exceedsByPercent(row.total, approved, settings.po_approval_tolerance_percent)
    const rules = !needsApproval
      ? []
      : await planChain(tx, actor.tenantId, {
          locationId: row.location_id,
          total: row.total,
          currencyId: row.currency_id,
          requesterId: userId,
          document: 'purchase_order',
        })
    // Budgets (budgets/check.service.ts): what it adds to what its request counted, checked; a block throws.
    await orderWrites.updateOrder(tx, actor.tenantId, row.id, { status: 'pending_approval' })
    const budgets = await checkDocument(tx, actor.tenantId, 'purchase_order', row.id, userId)
    const chain = withBudgetSteps(budgets.steps, rules)
    if (chain.length === 0) {
      await markIssued(tx, actor.tenantId, row)
      await syncOrdered(tx, actor.tenantId, row.id, 'issued')
      await recordBudgetOutcome(tx, actor.tenantId, { type: 'purchase_order', id: row.id }, budgets)
      return 'purchase_order.issued'
    }
    await syncDocument(tx, actor.tenantId, 'purchase_order', row.id, 'submitted')
    await recordBudgetOutcome(tx, actor.tenantId, { type: 'purchase_order', id: row.id }, budgets)
    const doc = { type: 'purchase_order' as const, id: row.id, locationId: row.location_id, submitterId: userId }
    const first = await startChain(tx, actor, doc, chain, base)
    const order = await orderView(tx, actor.tenantId, row.id)
    await recordEvent(
      tx,
      actor.tenantId,
      'approval.created',
      order.approvals.find((a) => a.id === first)!,
    )
    return undefined
  })

export const closeOrder = (db: Kysely<DB>, actor: Actor, id: number) =>
  transition(db, actor, id, 'close', async (tx, actor, row) => {
    requireOrderStatus(row, ['issued'], 'closed')
    if (row.pending_revision !== null)
      throw conflict(`A revision of ${row.number} is pending approval; decide it before closing the order.`)
    await orderWrites.updateOrder(tx, actor.tenantId, row.id, { status: 'closed', closed_at: new Date() })
    await syncDocument(tx, actor.tenantId, 'purchase_order', row.id, 'closed')
    return 'purchase_order.closed'
  })

export const reopenOrder = (db: Kysely<DB>, actor: Actor, id: number) =>
  transition(db, actor, id, 'reopen', async (tx, actor, row) => {
    requireOrderStatus(row, ['closed'], 'reopened')
    await orderWrites.updateOrder(tx, actor.tenantId, row.id, { status: 'issued', closed_at: null })
    await syncDocument(tx, actor.tenantId, 'purchase_order', row.id, 'issued')
    return 'purchase_order.reopened'
  })

export const cancelOrder = (db: Kysely<DB>, actor: Actor, id: number) =>
  transition(db, actor, id, 'cancel', async (tx, actor, row) => {
    requireOrderStatus(row, ['draft', 'pending_approval', 'issued'], 'cancelled')
    if (row.status === 'issued') {
      const touched = row.lines.find(
        (l) =>
          compareDecimal(l.received_quantity, '0') > 0 ||
          compareDecimal(l.rejected_quantity, '0') > 0 ||
          compareDecimal(l.billed_quantity, '0') > 0,
      )
      if (touched !== undefined)
        throw conflict(
          `The purchase order is issued and line ${touched.id} has been received or billed; close it instead of cancelling.`,
        )
    }
    await cancelChain(tx, actor, 'purchase_order', row.id)
    await orderWrites.updateOrder(tx, actor.tenantId, row.id, { status: 'cancelled', pending_revision: null })
    await syncOrdered(tx, actor.tenantId, row.id, 'cancelled')
    return 'purchase_order.cancelled'
  })

export const closeLine = (db: Kysely<DB>, actor: Actor, id: number, lineId: number) =>
  transition(db, actor, id, 'close_line', async (tx, actor, row) => {
    const line = row.lines.find((l) => l.id === lineId)
    if (line === undefined) throw notFound(`No line ${lineId} on purchase order ${row.number}.`)
    requireOrderStatus(row, ['issued'], 'have a line closed')
    if (line.closed) throw conflict(`Line ${lineId} of ${row.number} is already closed.`)
    await lineWrites.closeLine(tx, actor.tenantId, row.id, lineId)
    await syncDocument(tx, actor.tenantId, 'purchase_order', row.id, 'closed')
    await lineWrites.refreshStatuses(tx, actor.tenantId, row.id)
    return 'purchase_order.line_closed'
  })
