/**
 * Orders from an approved request (DECISIONS, "From a request"): its lines become draft orders, one per
 * vendor, in line order; `line_vendors` names a vendor for lines without one (a line still without one → 400
 * naming it); each request line is ordered once — on any order that is not cancelled — (again → 409 naming
 * the lines). An order copies the request's location, department, currency, descriptions, quantities and
 * prices; `request` and `request_line` link back. Needs `nav_purchase` at the request's location.
 */
import { nextNumber } from '../db/numbering.ts'
import { requireStatus } from '../core/lifecycle.ts'
import type { Kysely } from 'kysely'
import { actingUser, type Actor } from '../access/actor.ts'
import { actorLocationAccess, requireAnyAt } from '../access/location-permissions.ts'
import { audit } from '../audit/service.ts'
import { conflict, validationFailed, type FieldErrors } from '../core/problem.ts'
import type { DB } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import { recordEvent } from '../events/service.ts'
import { requestForOrdering } from '../requests/service.ts'
import * as lineWrites from './lines-repository.ts'
import * as orderWrites from './write-repository.ts'
import * as references from './references-repository.ts'
import type { PurchaseOrder } from './schema.ts'
import { lineValues, totalsOf } from './values.service.ts'
import { orderView } from './view.service.ts'

export interface FromRequest {
  line_vendors?: { line: number; vendor: number }[] | undefined
}

export async function ordersFromRequest(
  db: Kysely<DB>,
  actor: Actor,
  requestId: number,
  input: FromRequest,
): Promise<PurchaseOrder[]> {
  const userId = actingUser(actor)
  const access = await actorLocationAccess(db, actor)
  return inTransaction(db, async (tx) => {
    const request = await requestForOrdering(tx, actor, requestId)
    requireAnyAt(access, request.location.id, 'nav_purchase')
    requireStatus({ subject: 'The request', noun: 'request' }, request.status, ['approved'], 'ordered')
    const lineIds = new Set(request.lines.map((l) => l.id))
    const ordered = await references.orderedRequestLines(tx, actor.tenantId, [...lineIds])
    if (ordered.size > 0)
      throw conflict(
        `Request lines ${[...ordered].sort((a, b) => a - b).join(', ')} are already on an order (each is ordered once).`,
      )
    const errors: FieldErrors = {}
    const add = (field: string, message: string) => (errors[field] ??= []).push(message)
    const named = new Map<number, number>()
    ;(input.line_vendors ?? []).forEach((lv, i) => {
      if (!lineIds.has(lv.line)) add(`line_vendors.${i}.line`, `no line ${lv.line} on request ${requestId}`)
      else named.set(lv.line, lv.vendor)
    })
    const vendorOf = request.lines.map((l) => l.vendor ?? named.get(l.id) ?? null)
    request.lines.forEach((l, i) => {
      if (vendorOf[i] === null)
        add(
          `lines.${i}.vendor`,
          `request line ${l.id} has no vendor: name one in line_vendors [{line: ${l.id}, vendor}]`,
        )
    })
    const vendors = await references.activeVendors(tx, actor.tenantId, [...new Set(vendorOf.filter((v) => v !== null))])
    ;(input.line_vendors ?? []).forEach((lv, i) => {
      if (!vendors.has(lv.vendor)) add(`line_vendors.${i}.vendor`, `no active vendor ${lv.vendor}`)
    })
    request.lines.forEach((l, i) => {
      const v = vendorOf[i]
      if (v !== null && l.vendor === v && !vendors.has(v)) add(`lines.${i}.vendor`, `vendor ${v} is not active`)
    })
    if (Object.keys(errors).length > 0) throw validationFailed(errors)
    const groups = new Map<number, typeof request.lines>()
    request.lines.forEach((l, i) => groups.set(vendorOf[i]!, [...(groups.get(vendorOf[i]!) ?? []), l]))
    const orders: PurchaseOrder[] = []
    for (const [vendor, lines] of groups) {
      const values = lineValues(
        lines.map((l) => ({ description: l.description, quantity: l.quantity, unit_price: l.unit_price })),
        new Map(),
        () => undefined,
      ).map((v, i) => ({ ...v, request_line_id: lines[i]!.id, account_id: lines[i]!.account?.id ?? null }))
      const number = await nextNumber(tx, actor.tenantId, 'purchase_order')
      const id = await orderWrites.insertOrder(tx, actor.tenantId, {
        vendor_id: vendor,
        location_id: request.location.id,
        department_id: request.department?.id ?? null,
        currency_id: request.currency_id,
        promise_date: request.needed_by,
        notes: '',
        ...totalsOf(values),
        number,
        request_id: requestId,
        created_by: userId,
      })
      await lineWrites.replaceLines(tx, actor.tenantId, id, values)
      await audit(tx, actor, {
        action: 'purchase_order.create',
        resourceType: 'purchase_order',
        resourceId: id,
        changes: { request: requestId, vendor },
      })
      const order = await orderView(tx, actor.tenantId, id)
      await recordEvent(tx, actor.tenantId, 'purchase_order.created', order)
      orders.push(order)
    }
    return orders
  })
}
