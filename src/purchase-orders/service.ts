/**
 * Purchase orders (DECISIONS, "Purchase orders and receiving"): lists, one order, creating a draft by hand,
 * and PUT — a draft is replaced; on an issued order it is a revision (If-Match on `version`; never below what
 * was received or billed; within the approval tolerance of the last approved total it applies at once, beyond
 * it it is held as `pending_revision` and goes through the `purchase_order` rules). Issue, close, reopen,
 * cancel and closing a line are in lifecycle.service.ts; orders from a request in from-request.service.ts.
 */
import { nextNumber } from '../db/numbering.ts'
import type { Kysely } from 'kysely'
import type { MailBase } from '../approvals/notify.service.ts'
import { actingUser, type Actor } from '../access/actor.ts'
import { actorLocationAccess, requireAnyAt } from '../access/location-permissions.ts'
import { audit } from '../audit/service.ts'
import type { Page } from '../core/list-query.ts'
import { conflict, preconditionRequired } from '../core/problem.ts'
import type { DB } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import { recordEvent } from '../events/service.ts'
import { orderScope, scopeOf, visibleOrder } from './access.service.ts'
import * as lineWrites from './lines-repository.ts'
import * as orderWrites from './write-repository.ts'
import * as repo from './repository.ts'
import { reviseIssued } from './revision.service.ts'
import type { OrderInput } from './input.schema.ts'
import type { OrderListQuery, PurchaseOrder, Revision } from './schema.ts'
import { valuesOf } from './values.service.ts'
import { orderView, toOrders } from './view.service.ts'

export async function listOrders(db: Kysely<DB>, actor: Actor, query: OrderListQuery): Promise<Page<PurchaseOrder>> {
  const page = await repo.pageOfOrders(db, actor.tenantId, query, await orderScope(db, actor))
  return { ...page, rows: await toOrders(db, actor.tenantId, page.rows) }
}

export async function getOrder(db: Kysely<DB>, actor: Actor, id: number): Promise<PurchaseOrder> {
  const row = await visibleOrder(db, actor, await orderScope(db, actor), id)
  return (await toOrders(db, actor.tenantId, [row]))[0]!
}

/** The orders among `ids` the actor may see (the rest left out), e.g. for the approvals inbox. */
export async function ordersByIds(db: Kysely<DB>, actor: Actor, ids: readonly number[]): Promise<PurchaseOrder[]> {
  if (ids.length === 0) return []
  const scope = await orderScope(db, actor)
  const rows = (await Promise.all([...new Set(ids)].map((id) => repo.findOrder(db, actor.tenantId, id, scope)))).filter(
    (r) => r !== undefined,
  )
  return toOrders(db, actor.tenantId, rows)
}

export async function listRevisions(db: Kysely<DB>, actor: Actor, id: number): Promise<Revision[]> {
  await visibleOrder(db, actor, await orderScope(db, actor), id)
  const rows = await repo.revisionsOf(db, actor.tenantId, id)
  return rows.map((r) => ({
    version: r.version,
    changed_at: r.changed_at.toISOString(),
    changed_by: r.changed_by,
    changes: r.changes as Revision['changes'],
  }))
}

export async function createOrder(db: Kysely<DB>, actor: Actor, input: OrderInput): Promise<PurchaseOrder> {
  const userId = actingUser(actor)
  const access = await actorLocationAccess(db, actor)
  return inTransaction(db, async (tx) => {
    const { values, lines } = await valuesOf(tx, actor, access, input)
    const number = await nextNumber(tx, actor.tenantId, 'purchase_order')
    const id = await orderWrites.insertOrder(tx, actor.tenantId, {
      ...values,
      number,
      request_id: null,
      created_by: userId,
    })
    await lineWrites.replaceLines(tx, actor.tenantId, id, lines)
    await audit(tx, actor, {
      action: 'purchase_order.create',
      resourceType: 'purchase_order',
      resourceId: id,
      changes: input,
    })
    const order = await orderView(tx, actor.tenantId, id)
    await recordEvent(tx, actor.tenantId, 'purchase_order.created', order)
    return order
  })
}

/** PUT: replaces a draft; revises an issued order (see revision.ts; `base` for a held revision's approval e-mail). Anything else → 409. */
export async function putOrder(
  db: Kysely<DB>,
  actor: Actor,
  id: number,
  input: OrderInput,
  ifMatch: string | undefined,
  base?: MailBase,
): Promise<PurchaseOrder> {
  const access = await actorLocationAccess(db, actor)
  const scope = scopeOf(actor, access)
  return inTransaction(db, async (tx) => {
    const row = await visibleOrder(tx, actor, scope, id, true)
    // The location it is at (and, in valuesOf, the one the body names): a move needs nav_purchase at both.
    requireAnyAt(access, row.location_id, 'nav_purchase')
    const existing = new Map(row.lines.map((l) => [l.id, l]))
    if (row.status === 'issued') {
      if (ifMatch === undefined)
        throw preconditionRequired(
          `Purchase order ${row.number} is issued: a change is a revision and needs If-Match with its ETag ("${row.version}").`,
        )
      return reviseIssued(tx, actor, access, row, input, ifMatch, base)
    }
    if (row.status !== 'draft')
      throw conflict(`The purchase order is ${row.status}; only a draft can be replaced or an issued order revised.`)
    const { values, lines } = await valuesOf(tx, actor, access, input, existing)
    await orderWrites.updateOrder(tx, actor.tenantId, id, values)
    await lineWrites.replaceLines(tx, actor.tenantId, id, lines)
    await audit(tx, actor, {
      action: 'purchase_order.update',
      resourceType: 'purchase_order',
      resourceId: id,
      changes: input,
    })
    // No event: a draft's edits have none (as for requests); its issue, revisions and the rest do.
    return orderView(tx, actor.tenantId, id)
  })
}
