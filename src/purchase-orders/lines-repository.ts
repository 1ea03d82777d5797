/** SQL that writes an order's lines: replacing them, their counters and the statuses derived from them. */
import { sql, type Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'

export interface LineValues {
  id?: number | undefined
  request_line_id: number | null
  description: string
  quantity: string
  unit_price: string
  tax_rate: string
  amount: string
  tax: string
}

/**
 * Makes the order's lines these, in this order: lines with an `id` of the order are updated in place (their
 * received, rejected and billed quantities stay), the others inserted, and lines not named deleted.
 */
export async function replaceLines(db: Kysely<DB>, tenantId: number, orderId: number, lines: LineValues[]) {
  const kept = lines.flatMap((l) => (l.id === undefined ? [] : [l.id]))
  let del = db.deleteFrom('purchase_order_lines').where('tenant_id', '=', tenantId).where('order_id', '=', orderId)
  if (kept.length > 0) del = del.where('id', 'not in', kept)
  await del.execute()
  const fresh: (LineValues & { position: number })[] = []
  for (const [i, l] of lines.entries()) {
    const { id, ...values } = l
    if (id === undefined) fresh.push({ ...values, position: i + 1 })
    else
      await db
        .updateTable('purchase_order_lines')
        .set({ ...values, position: i + 1 })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .execute()
  }
  if (fresh.length > 0)
    await db
      .insertInto('purchase_order_lines')
      .values(fresh.map((l) => ({ tenant_id: tenantId, order_id: orderId, ...l })))
      .execute()
}

/** Derives `receipt_status` and `billing_status` from the lines (after any change to their quantities). */
export async function refreshStatuses(db: Kysely<DB>, tenantId: number, orderId: number) {
  await sql`update purchase_orders po set
      receipt_status = case
        when bool_or_over then 'over'
        when all_done then 'full'
        when any_received then 'partial' else 'none' end,
      billing_status = case
        when all_billed then 'full'
        when any_billed then 'partial' else 'none' end
    from (select bool_or(li.received_quantity > li.quantity) as bool_or_over,
        bool_and(li.closed or li.received_quantity >= li.quantity) as all_done,
        bool_or(li.received_quantity > 0) as any_received,
        bool_and(li.billed_quantity >= li.quantity) as all_billed,
        bool_or(li.billed_quantity > 0) as any_billed
      from purchase_order_lines li where li.tenant_id = ${tenantId} and li.order_id = ${orderId}) s
    where po.tenant_id = ${tenantId} and po.id = ${orderId}`.execute(db)
}

export async function closeLine(db: Kysely<DB>, tenantId: number, orderId: number, lineId: number) {
  const r = await db
    .updateTable('purchase_order_lines')
    .set({ closed: true })
    .where('tenant_id', '=', tenantId)
    .where('order_id', '=', orderId)
    .where('id', '=', lineId)
    .executeTakeFirst()
  return r.numUpdatedRows > 0n
}
