/** SQL for purchase orders, their lines, revisions and numbers. Every query is scoped to one tenant. */
import { sql, type Kysely } from 'kysely'
import { approvalCandidateOf } from '../access/approvers.ts'
import { listSql } from '../db/list.ts'
import type { DB, OrderStatus } from '../db/schema.ts'
import type { Person } from '../approvals/schema.ts'
import { OrderListQuery } from './schema.ts'

export interface LineRow {
  id: number
  request_line: number | null
  description: string
  quantity: string
  unit_price: string
  tax_rate: string
  amount: string
  tax: string
  received_quantity: string
  rejected_quantity: string
  billed_quantity: string
  closed: boolean
}

const person = (user: string) =>
  sql<Person>`(select json_build_object('id', pp.id, 'first_name', pp.first_name, 'last_name', pp.last_name,
    'email', pu.email) from user_profiles pp join users pu on pu.id = pp.user_id where pp.user_id = ${sql.ref(user)})`

export const linesOf = (tenant: string, order: string) =>
  sql<LineRow[]>`coalesce((select json_agg(json_build_object('id', li.id, 'request_line', li.request_line_id,
    'description', li.description, 'quantity', li.quantity::text, 'unit_price', li.unit_price::text,
    'tax_rate', li.tax_rate::text, 'amount', li.amount::text, 'tax', li.tax::text,
    'received_quantity', li.received_quantity::text, 'rejected_quantity', li.rejected_quantity::text,
    'billed_quantity', li.billed_quantity::text, 'closed', li.closed) order by li.position)
    from purchase_order_lines li where li.tenant_id = ${sql.ref(tenant)} and li.order_id = ${sql.ref(order)}), '[]')`

function selectOrders(db: Kysely<DB>) {
  return db
    .selectFrom('purchase_orders as po')
    .innerJoin('vendors as v', (j) => j.onRef('v.tenant_id', '=', 'po.tenant_id').onRef('v.id', '=', 'po.vendor_id'))
    .innerJoin('locations as l', 'l.id', 'po.location_id')
    .innerJoin('currencies as c', 'c.id', 'po.currency_id')
    .leftJoin('departments as d', 'd.id', 'po.department_id')
    .select([
      'po.id',
      'po.tenant_id',
      'po.number',
      'po.status',
      'po.receipt_status',
      'po.billing_status',
      'po.version',
      'po.vendor_id',
      'v.name as vendor_name',
      'po.location_id',
      'l.name as location_name',
      'po.department_id',
      'd.name as department_name',
      'po.request_id',
      'po.currency_id',
      'c.name as currency',
      'po.ship_to',
      'po.bill_to',
      sql<string | null>`to_char(po.promise_date, 'YYYY-MM-DD')`.as('promise_date'),
      'po.notes',
      sql<string>`po.subtotal::text`.as('subtotal'),
      sql<string>`po.tax::text`.as('tax'),
      sql<string>`po.total::text`.as('total'),
      sql<string | null>`po.approved_total::text`.as('approved_total'),
      'po.pending_revision',
      'po.created_by as created_by_id',
      person('po.created_by').as('created_by'),
      'po.issued_at',
      'po.sent_at',
      'po.closed_at',
      'po.created_at',
      'po.updated_at',
      linesOf('po.tenant_id', 'po.id').as('lines'),
    ])
}
export type OrderRow = Awaited<ReturnType<ReturnType<typeof selectOrders>['executeTakeFirstOrThrow']>>

/** Who sees an order: holders of the order permissions at its location, and its approvals' candidates. */
const orderVisible = (user: unknown, locations: unknown) =>
  sql<boolean>`(po.location_id = any(${locations}::int[])
    or ${approvalCandidateOf(user, 'purchase_order', sql.ref('po.tenant_id'), sql.ref('po.id'))})`

export const pageOfOrders = listSql(OrderListQuery, {
  select: selectOrders,
  tenant: 'po.tenant_id',
  id: 'po.id',
  order: { created_at: 'po.created_at', total: 'po.total', number: 'po.number' },
  search: ['po.number', 'v.name'],
  filters: {
    status: 'po.status',
    receipt_status: 'po.receipt_status',
    billing_status: 'po.billing_status',
    vendor: 'po.vendor_id',
    location: 'po.location_id',
    request: 'po.request_id',
    updated_since: (since) => sql<boolean>`po.updated_at >= ${since}`,
  },
  scope: ([user, locations]) => orderVisible(user, locations),
})

export function findOrder(db: Kysely<DB>, tenantId: number, id: number, scope?: readonly [number, number[]]) {
  let q = selectOrders(db).where('po.tenant_id', '=', tenantId).where('po.id', '=', id)
  if (scope !== undefined) q = q.where(orderVisible(scope[0], scope[1]))
  return q.executeTakeFirst()
}

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

/** The next number of this kind for the tenant (`PO-000001`): one row per tenant and kind, bumped in the write. */
export async function nextNumber(db: Kysely<DB>, tenantId: number, kind: string, prefix: string) {
  // Formatted here, so the statement's answer is the number itself (at least six digits, never cut).
  const row = await sql<{ number: string }>`insert into document_numbers as n (tenant_id, kind, last)
    values (${tenantId}, ${kind}, 1)
    on conflict (tenant_id, kind) do update set last = n.last + 1
    returning ${prefix}::text || '-' || lpad(n.last::text, greatest(6, length(n.last::text)), '0') as number`.execute(
    db,
  )
  return row.rows[0]!.number
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

export const revisionsOf = (db: Kysely<DB>, tenantId: number, orderId: number) =>
  db
    .selectFrom('purchase_order_revisions as r')
    .select(['r.version', 'r.changed_at', 'r.changes', person('r.changed_by').as('changed_by')])
    .where('r.tenant_id', '=', tenantId)
    .where('r.order_id', '=', orderId)
    .orderBy('r.version')
    .execute()

/** The request lines among `ids` already on an order that is not cancelled (each is ordered once). */
export async function orderedRequestLines(db: Kysely<DB>, tenantId: number, ids: number[]) {
  if (ids.length === 0) return new Set<number>()
  const rows = await db
    .selectFrom('purchase_order_lines as li')
    .innerJoin('purchase_orders as po', (j) =>
      j.onRef('po.tenant_id', '=', 'li.tenant_id').onRef('po.id', '=', 'li.order_id'),
    )
    .select('li.request_line_id')
    .where('li.tenant_id', '=', tenantId)
    .where('li.request_line_id', 'in', ids)
    .where('po.status', '<>', 'cancelled')
    .execute()
  return new Set(rows.map((r) => r.request_line_id!))
}

/** What an order may refer to: the location (and its currency), its departments, the currency, the vendor. */
export async function references(
  db: Kysely<DB>,
  tenantId: number,
  ids: { location: number; vendor: number; department: number | null; currency: string | undefined },
) {
  const row = await sql<{
    location: number | null
    location_currency: number | null
    vendor: number | null
    vendor_active: boolean | null
    department: number | null
    currency: number | null
  }>`select
      (select id from locations where tenant_id = ${tenantId} and id = ${ids.location}) as location,
      (select currency_id from locations where tenant_id = ${tenantId} and id = ${ids.location}) as location_currency,
      (select id from vendors where tenant_id = ${tenantId} and id = ${ids.vendor}) as vendor,
      (select active from vendors where tenant_id = ${tenantId} and id = ${ids.vendor}) as vendor_active,
      (select id from departments where tenant_id = ${tenantId} and id = ${ids.department}
        and location_id = ${ids.location}) as department,
      (select id from currencies where tenant_id = ${tenantId} and name = ${ids.currency ?? ''}) as currency`.execute(
    db,
  )
  return row.rows[0]!
}

/** The vendor's e-mail addresses (for `send`). */
export async function vendorEmails(db: Kysely<DB>, tenantId: number, vendorId: number) {
  const row = await db
    .selectFrom('vendors')
    .select('emails')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', vendorId)
    .executeTakeFirst()
  return row?.emails ?? []
}

/** The active vendors among `ids`. */
export async function activeVendors(db: Kysely<DB>, tenantId: number, ids: number[]) {
  if (ids.length === 0) return new Set<number>()
  const rows = await db
    .selectFrom('vendors')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', ids)
    .where('active', '=', true)
    .execute()
  return new Set(rows.map((r) => r.id))
}
