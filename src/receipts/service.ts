/**
 * Receipts and returns (DECISIONS, "A receipt"): only against an `issued` order and its open lines, with
 * `nav_receive` at the order's location. A line's accepted total may exceed its ordered quantity by at most
 * `over_receipt_tolerance_percent` (else 409 naming the line and what is still open); a return gives back at
 * most what was accepted. `void` reverses a receipt unless a line would go below zero, or below its billed
 * quantity under `three_way` (409). The order is locked with its lines first, and its counters and statuses
 * change in the receipt's transaction: concurrent receipts on one line take turns and never over-receive.
 * The quantity rules themselves are in quantities.ts.
 */
import { requireStatus } from '../core/lifecycle.ts'
import type { Kysely } from 'kysely'
import { actingUser, type Actor } from '../access/actor.ts'
import { actorLocationAccess, requireAnyAt } from '../access/location-permissions.ts'
import { audit } from '../audit/service.ts'
import { trimDecimal } from '../core/decimal.ts'
import type { Page } from '../core/list-query.ts'
import { conflict, notFound, validationFailed } from '../core/problem.ts'
import type { DB } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import { recordEvent } from '../events/service.ts'
import { nextNumber } from '../db/numbering.ts'
import { lockForReceiving, receivingScope, setReceived } from '../purchase-orders/receiving.service.ts'
import { procurementSettings } from '../procurement-settings/service.ts'
import { receiptCounters, receiptLines, voidCounters } from './quantities.ts'
import * as repo from './repository.ts'
import type { Receipt, ReceiptInput, ReceiptListQuery } from './schema.ts'

const toReceipt = (row: repo.ReceiptRow): Receipt => ({
  id: row.id,
  number: row.number,
  type: row.type,
  status: row.status,
  purchase_order: row.order_id,
  location: { id: row.location_id, name: row.location_name },
  received_at: row.received_at.toISOString(),
  packing_slip: row.packing_slip,
  notes: row.notes,
  lines: row.lines.map((l) => ({
    po_line: l.po_line,
    accepted_quantity: trimDecimal(l.accepted_quantity),
    rejected_quantity: trimDecimal(l.rejected_quantity),
  })),
  created_by: row.created_by,
  created_at: row.created_at.toISOString(),
  voided_at: row.voided_at === null ? null : row.voided_at.toISOString(),
})

const receiptView = async (tx: Kysely<DB>, tenantId: number, id: number) =>
  toReceipt((await repo.findReceipt(tx, tenantId, id))!)

async function locationsOf(db: Kysely<DB>, actor: Actor) {
  return receivingScope(actor, await actorLocationAccess(db, actor))?.[1]
}

export async function listReceipts(db: Kysely<DB>, actor: Actor, query: ReceiptListQuery): Promise<Page<Receipt>> {
  const scope = receivingScope(actor, await actorLocationAccess(db, actor))
  const page = await repo.pageOfReceipts(db, actor.tenantId, query, scope)
  return { ...page, rows: page.rows.map(toReceipt) }
}

export async function getReceipt(db: Kysely<DB>, actor: Actor, id: number): Promise<Receipt> {
  const row = await repo.findReceipt(db, actor.tenantId, id, await locationsOf(db, actor))
  if (row === undefined) throw notFound(`No receipt ${id}.`)
  return toReceipt(row)
}

export async function createReceipt(db: Kysely<DB>, actor: Actor, input: ReceiptInput): Promise<Receipt> {
  const userId = actingUser(actor)
  const access = await actorLocationAccess(db, actor)
  const type = input.type ?? 'receipt'
  return inTransaction(db, async (tx) => {
    const order = await lockForReceiving(tx, actor, access, input.purchase_order)
    if (order === undefined) throw validationFailed({ purchase_order: [`no purchase order ${input.purchase_order}`] })
    requireAnyAt(access, order.location_id, 'nav_receive')
    const subject = `Purchase order ${order.number}`
    requireStatus({ subject, noun: 'order' }, order.status, ['issued'], 'received against')
    const lines = receiptLines(input, type, order)
    const settings = await procurementSettings(tx, actor.tenantId)
    const counters = receiptCounters(type, lines, order.lines, settings)
    const number = await nextNumber(tx, actor.tenantId, 'receipt')
    const id = await repo.insertReceipt(
      tx,
      actor.tenantId,
      {
        number,
        type,
        order_id: order.id,
        location_id: order.location_id,
        received_at: input.received_at,
        packing_slip: input.packing_slip ?? '',
        notes: input.notes ?? '',
        created_by: userId,
      },
      lines,
    )
    await setReceived(tx, actor.tenantId, order.id, counters)
    await audit(tx, actor, { action: 'receipt.create', resourceType: 'receipt', resourceId: id, changes: input })
    const receipt = await receiptView(tx, actor.tenantId, id)
    await recordEvent(tx, actor.tenantId, 'receipt.created', receipt)
    return receipt
  })
}

export async function voidReceipt(db: Kysely<DB>, actor: Actor, id: number): Promise<Receipt> {
  const access = await actorLocationAccess(db, actor)
  const locations = receivingScope(actor, access)?.[1]
  return inTransaction(db, async (tx) => {
    const seen = await repo.findReceipt(tx, actor.tenantId, id, locations)
    if (seen === undefined) throw notFound(`No receipt ${id}.`)
    requireAnyAt(access, seen.location_id, 'nav_receive')
    const order = await lockForReceiving(tx, actor, access, seen.order_id)
    if (order === undefined) throw notFound(`No receipt ${id}.`)
    const receipt = (await repo.findReceipt(tx, actor.tenantId, id))!
    if (receipt.status !== 'posted') throw conflict(`Receipt ${receipt.number} is already voided.`)
    const settings = await procurementSettings(tx, actor.tenantId)
    const counters = voidCounters(receipt, order.lines, settings)
    await repo.voidReceipt(tx, actor.tenantId, id)
    await setReceived(tx, actor.tenantId, order.id, counters)
    await audit(tx, actor, { action: 'receipt.void', resourceType: 'receipt', resourceId: id })
    const voided = await receiptView(tx, actor.tenantId, id)
    await recordEvent(tx, actor.tenantId, 'receipt.voided', voided)
    return voided
  })
}
