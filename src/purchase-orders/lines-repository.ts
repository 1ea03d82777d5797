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
  /** Its general-ledger account (null: none). */
  account_id?: number | null | undefined
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
  const changed: (LineValues & { id: number; position: number })[] = []
  for (const [i, l] of lines.entries()) {
    if (l.id === undefined) fresh.push({ ...l, position: i + 1 })
    else changed.push({ ...l, id: l.id, position: i + 1 })
  }
  if (changed.length > 0) {
    const column = <K extends keyof (typeof changed)[number]>(key: K) => changed.map((l) => l[key])
    // One statement for all of them, whatever their number (the arrays are its only parameters).
    await sql`update purchase_order_lines li set request_line_id = v.request_line_id, description = v.description,
        quantity = v.quantity, unit_price = v.unit_price, tax_rate = v.tax_rate, amount = v.amount, tax = v.tax,
        position = v.position, account_id = v.account_id
      from unnest(${column('id')}::int[], ${column('request_line_id')}::int[], ${column('description')}::text[],
        ${column('quantity')}::numeric[], ${column('unit_price')}::numeric[], ${column('tax_rate')}::numeric[],
        ${column('amount')}::numeric[], ${column('tax')}::numeric[], ${column('position')}::int[],
        ${changed.map((l) => l.account_id ?? null)}::int[])
        as v (id, request_line_id, description, quantity, unit_price, tax_rate, amount, tax, position, account_id)
      where li.tenant_id = ${tenantId} and li.order_id = ${orderId} and li.id = v.id`.execute(db)
  }
  if (fresh.length > 0)
    await db
      .insertInto('purchase_order_lines')
      .values(fresh.map(({ id: _, ...l }) => ({ tenant_id: tenantId, order_id: orderId, ...l })))
      .execute()
}

/** Sets lines' received and rejected quantities, in one statement whatever their number. */
export async function setQuantities(
  db: Kysely<DB>,
  tenantId: number,
  orderId: number,
  lines: { id: number; received_quantity: string; rejected_quantity: string }[],
) {
  if (lines.length === 0) return
  await sql`update purchase_order_lines li set received_quantity = v.received, rejected_quantity = v.rejected
    from unnest(${lines.map((l) => l.id)}::int[], ${lines.map((l) => l.received_quantity)}::numeric[],
      ${lines.map((l) => l.rejected_quantity)}::numeric[]) as v (id, received, rejected)
    where li.tenant_id = ${tenantId} and li.order_id = ${orderId} and li.id = v.id`.execute(db)
}

/** Locks the order's lines (after the order itself): receipts, returns, voids and bills on it take turns. */
export async function lockLines(db: Kysely<DB>, tenantId: number, orderId: number) {
  await db
    .selectFrom('purchase_order_lines')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('order_id', '=', orderId)
    .forUpdate()
    .execute()
}

/** Sets the order's lines' `billed_quantity`: as given, 0 for a line not given (the bills resource counts it). */
export async function setBilledQuantities(
  db: Kysely<DB>,
  tenantId: number,
  orderId: number,
  lines: readonly { id: number; billed_quantity: string }[],
) {
  await sql`update purchase_order_lines li set billed_quantity = coalesce((select v.billed
      from unnest(${lines.map((l) => l.id)}::int[], ${lines.map((l) => l.billed_quantity)}::numeric[]) as v (id, billed)
      where v.id = li.id), 0)
    where li.tenant_id = ${tenantId} and li.order_id = ${orderId}`.execute(db)
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
