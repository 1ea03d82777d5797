/** SQL that writes an order's own row, its number and its revisions. Every query is scoped to one tenant. */
import { sql, type Kysely } from 'kysely'
import type { DB, OrderStatus } from '../db/schema.ts'

/** Locks the order row (every write to an order, its lines and its receipts takes turns on it). */
export async function lockOrder(db: Kysely<DB>, tenantId: number, id: number) {
  const row = await db
    .selectFrom('purchase_orders')
    .select(['id', 'status'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst()
  return row
}

export interface OrderValues {
  vendor_id: number
  location_id: number
  department_id: number | null
  currency_id: number
  promise_date: string | null
  notes: string
  subtotal: string
  tax: string
  total: string
}

export async function insertOrder(
  db: Kysely<DB>,
  tenantId: number,
  values: OrderValues & { number: string; request_id: number | null; created_by: number },
) {
  const addresses = await sql<{ ship_to: unknown; bill_to: unknown }>`select
      (select json_build_object('name', a.name, 'addressLineOne', a.address_line_one, 'city', a.city,
        'postalCode', a.postal_code, 'state_province', a.state_province, 'country', a.country)
       from addresses a where a.tenant_id = ${tenantId} and a.location_id = ${values.location_id}
         and a.kind = 'shipping' and a.active order by a.id limit 1) as ship_to,
      (select json_build_object('name', a.name, 'addressLineOne', a.address_line_one, 'city', a.city,
        'postalCode', a.postal_code, 'state_province', a.state_province, 'country', a.country)
       from addresses a where a.tenant_id = ${tenantId} and a.location_id = ${values.location_id}
         and a.kind = 'billing' and a.active order by a.id limit 1) as bill_to`.execute(db)
  const { ship_to, bill_to } = addresses.rows[0]!
  const row = await db
    .insertInto('purchase_orders')
    .values({
      tenant_id: tenantId,
      ...values,
      ship_to: JSON.stringify(ship_to ?? null),
      bill_to: JSON.stringify(bill_to ?? null),
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

export async function updateOrder(
  db: Kysely<DB>,
  tenantId: number,
  id: number,
  values: Partial<OrderValues> & {
    status?: OrderStatus
    version?: number
    approved_total?: string | null
    pending_revision?: string | null
    issued_at?: Date
    sent_at?: Date
    closed_at?: Date | null
  },
) {
  await db
    .updateTable('purchase_orders')
    .set({ ...values, updated_at: new Date() })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute()
}

export async function insertRevision(
  db: Kysely<DB>,
  tenantId: number,
  orderId: number,
  version: number,
  changedBy: number,
  changes: unknown[],
) {
  await db
    .insertInto('purchase_order_revisions')
    .values({
      tenant_id: tenantId,
      order_id: orderId,
      version,
      changed_by: changedBy,
      changes: JSON.stringify(changes),
    })
    .execute()
}
