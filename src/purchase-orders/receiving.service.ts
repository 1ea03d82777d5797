/**
 * What receiving (the receipts resource) needs of an order: the order locked with its lines — so concurrent
 * receipts on one order take turns and never over-receive — and its line counters and derived statuses
 * changed in the receipt's transaction.
 */
import type { Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import type { LocationAccess } from '../access/location-permissions.ts'
import type { DB } from '../db/schema.ts'
import { scopeOf, type OrderScope } from './access.service.ts'
import * as lineWrites from './lines-repository.ts'
import * as orderWrites from './write-repository.ts'
import * as repo from './repository.ts'

export type ReceivingOrder = repo.OrderRow

/** The scope of what the actor sees of orders (and their receipts): user id and locations; undefined: all. */
export const receivingScope = (actor: Actor, access: LocationAccess) => scopeOf(actor, access)

/** Locks the order and its lines and reads them; undefined when the actor may not see it (or it is not there). */
export async function lockForReceiving(tx: Kysely<DB>, actor: Actor, access: LocationAccess, orderId: number) {
  return lockOrderLines(tx, actor.tenantId, orderId, scopeOf(actor, access))
}

/** Sets lines' received and rejected quantities, then the order's derived statuses and `updated_at`. */
export async function setReceived(
  tx: Kysely<DB>,
  tenantId: number,
  orderId: number,
  lines: { id: number; received_quantity: string; rejected_quantity: string }[],
) {
  await lineWrites.setQuantities(tx, tenantId, orderId, lines)
  await lineWrites.refreshStatuses(tx, tenantId, orderId)
  await orderWrites.updateOrder(tx, tenantId, orderId, {})
}

/**
 * Billing (the bills resource, which counts what is billed): sets each line's `billed_quantity`, then the
 * order's derived statuses — in the bill's transaction, the order locked first (`lockOrderLines`).
 */
export async function setBilled(
  tx: Kysely<DB>,
  tenantId: number,
  orderId: number,
  lines: readonly { id: number; billed_quantity: string }[],
) {
  await lineWrites.setBilledQuantities(tx, tenantId, orderId, lines)
  await lineWrites.refreshStatuses(tx, tenantId, orderId)
  await orderWrites.updateOrder(tx, tenantId, orderId, {})
}

/**
 * Locks the order and its lines and reads them (undefined when it is not there, or `scope` hides it): a
 * receipt, a bill, a bill's approval decision — whoever acts, they take turns on the order.
 */
export async function lockOrderLines(tx: Kysely<DB>, tenantId: number, orderId: number, scope?: OrderScope) {
  if ((await orderWrites.lockOrder(tx, tenantId, orderId)) === undefined) return undefined
  await lineWrites.lockLines(tx, tenantId, orderId)
  return repo.findOrder(tx, tenantId, orderId, scope)
}
