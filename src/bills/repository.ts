/** SQL for bills and their lines. Every query is scoped to one tenant. */
import { sql, type Kysely } from 'kysely'
import { documentScope } from '../access/document-scope.ts'
import { byTenant, personJson } from '../db/joins.ts'
import { listSql } from '../db/list.ts'
import type { DB } from '../db/schema.ts'
import { BillListQuery } from './schema.ts'

export interface BillLineRow {
  id: number
  po_line: number | null
  description: string
  quantity: string
  unit_price: string
  tax_rate: string
  amount: string
  account: { id: number; code: string; name: string } | null
}
export interface BillException {
  line: number
  code: 'quantity_over_ordered' | 'quantity_over_received' | 'price_over_tolerance' | 'line_closed'
  message: string
}
export type BillStatus = 'draft' | 'pending_approval' | 'approved' | 'paid' | 'cancelled'

function selectBills(db: Kysely<DB>) {
  return db
    .selectFrom('bills as b')
    .innerJoin('vendors as v', byTenant('v', 'b.vendor_id'))
    .innerJoin('locations as l', byTenant('l', 'b.location_id'))
    .innerJoin('currencies as c', byTenant('c', 'b.currency_id'))
    .select([
      'b.id',
      'b.tenant_id',
      'b.number',
      'b.vendor_id',
      'v.name as vendor_name',
      'b.location_id',
      'l.name as location_name',
      'c.name as currency',
      'b.currency_id',
      'b.order_id',
      'b.status',
      'b.match_status',
      'b.exceptions',
      sql<string | null>`to_char(b.invoice_date, 'YYYY-MM-DD')`.as('invoice_date'),
      sql<string | null>`to_char(b.due_date, 'YYYY-MM-DD')`.as('due_date'),
      sql<string>`b.subtotal::text`.as('subtotal'),
      sql<string>`b.tax::text`.as('tax'),
      sql<string>`b.total::text`.as('total'),
      'b.paid_at',
      'b.payment_reference',
      sql<string>`b.amount_paid::text`.as('amount_paid'),
      'b.created_by as created_by_id',
      personJson(sql.ref('b.created_by'), sql.ref('b.tenant_id')).as('created_by'),
      'b.created_at',
      'b.updated_at',
      sql<BillLineRow[]>`coalesce((select json_agg(json_build_object('id', bl.id, 'po_line', bl.po_line_id,
        'description', bl.description, 'quantity', bl.quantity::text, 'unit_price', bl.unit_price::text,
        'tax_rate', bl.tax_rate::text, 'amount', bl.amount::text,
        'account', case when ac.id is null then null else json_build_object('id', ac.id, 'code', ac.code, 'name', ac.name) end)
        order by bl.position)
        from bill_lines bl left join accounts ac on ac.tenant_id = bl.tenant_id and ac.id = bl.account_id
        where bl.tenant_id = b.tenant_id and bl.bill_id = b.id), '[]')`.as('lines'),
    ])
}
export type BillRow = Awaited<ReturnType<ReturnType<typeof selectBills>['executeTakeFirstOrThrow']>>

/** Who sees a bill: holders of the bill permissions at its location, and its approvals' candidates. */
const visibility = documentScope('b', 'bill')

export const pageOfBills = listSql(BillListQuery, {
  select: selectBills,
  tenant: 'b.tenant_id',
  id: 'b.id',
  order: { created_at: 'b.created_at', updated_at: 'b.updated_at' },
  search: ['b.number', 'v.name'],
  filters: {
    status: 'b.status',
    match_status: 'b.match_status',
    vendor: 'b.vendor_id',
    purchase_order: 'b.order_id',
    location: 'b.location_id',
    updated_since: visibility.updatedSince,
  },
  scope: visibility.scope,
})

export function findBill(db: Kysely<DB>, tenantId: number, id: number, scope?: readonly [number, number[]]) {
  let q = selectBills(db).where('b.tenant_id', '=', tenantId).where('b.id', '=', id)
  if (scope !== undefined) q = q.where(visibility.visible(scope[0], scope[1]))
  return q.executeTakeFirst()
}

/** Marks these bills paid (the caller has locked them). */
export async function markPaid(
  db: Kysely<DB>,
  tenantId: number,
  ids: readonly number[],
  paidAt: Date | string,
  paymentReference: string | null,
) {
  if (ids.length === 0) return
  await db
    .updateTable('bills')
    .set({ status: 'paid', paid_at: paidAt, payment_reference: paymentReference, updated_at: new Date() })
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', [...ids])
    .execute()
}

/** The bills of these ids, in one read (for the events of many bills written at once). */
export const findBills = (db: Kysely<DB>, tenantId: number, ids: readonly number[]) =>
  ids.length === 0
    ? Promise.resolve([])
    : selectBills(db)
        .where('b.tenant_id', '=', tenantId)
        .where('b.id', 'in', [...ids])
        .orderBy('b.id')
        .execute()

export const lockBill = (db: Kysely<DB>, tenantId: number, id: number) =>
  db
    .selectFrom('bills')
    .select(['id', 'status', 'order_id'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst()

export interface BillValues {
  number: string
  number_key: string
  vendor_id: number
  location_id: number
  currency_id: number
  order_id: number | null
  invoice_date: string | null
  due_date: string | null
  subtotal: string
  tax: string
  total: string
}
export interface BillLineValues {
  po_line_id: number | null
  description: string
  quantity: string
  unit_price: string
  tax_rate: string
  amount: string
  tax: string
  account_id?: number | null
}

export async function insertBill(db: Kysely<DB>, tenantId: number, v: BillValues, createdBy: number) {
  const row = await db
    .insertInto('bills')
    .values({ tenant_id: tenantId, ...v, created_by: createdBy })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

export async function replaceLines(db: Kysely<DB>, tenantId: number, billId: number, lines: BillLineValues[]) {
  await db.deleteFrom('bill_lines').where('tenant_id', '=', tenantId).where('bill_id', '=', billId).execute()
  await db
    .insertInto('bill_lines')
    .values(lines.map((l, i) => ({ tenant_id: tenantId, bill_id: billId, position: i + 1, ...l })))
    .execute()
}

export async function updateBill(
  db: Kysely<DB>,
  tenantId: number,
  id: number,
  set: Partial<BillValues> & {
    status?: BillStatus
    match_status?: 'not_required' | 'matched' | 'exception'
    exceptions?: string
    paid_at?: Date | string | null
    payment_reference?: string | null
  },
) {
  await db
    .updateTable('bills')
    .set({ ...set, updated_at: new Date() })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute()
}

/**
 * The bill of this vendor whose number has this key (bills/number-key.ts), other than `except`: what a new or
 * edited bill's number meets. The unique index on the key decides races; this names the bill first.
 */
export const sameKey = (db: Kysely<DB>, tenantId: number, vendorId: number, key: string, except = 0) =>
  db
    .selectFrom('bills')
    .select(['id', 'number'])
    .where('tenant_id', '=', tenantId)
    .where('vendor_id', '=', vendorId)
    .where('number_key', '=', key)
    .where('id', '<>', except)
    .executeTakeFirst()

/** What a bill without an order refers to: the location (and its currency), the vendor, the currency. */
export async function references(
  db: Kysely<DB>,
  tenantId: number,
  ids: { location: number; vendor: number; currency: string | undefined },
) {
  const row = await sql<{
    location: number | null
    location_currency: number | null
    vendor: number | null
    currency: number | null
  }>`select
      (select id from locations where tenant_id = ${tenantId} and id = ${ids.location}) as location,
      (select currency_id from locations where tenant_id = ${tenantId} and id = ${ids.location}) as location_currency,
      (select id from vendors where tenant_id = ${tenantId} and id = ${ids.vendor}) as vendor,
      (select id from currencies where tenant_id = ${tenantId} and name = ${ids.currency ?? ''}) as currency`.execute(
    db,
  )
  return row.rows[0]!
}

/** Active users of the tenant (candidates for the accounts-payable step are those holding it at the location). */
export const tenantUsers = async (db: Kysely<DB>, tenantId: number) =>
  (
    await db.selectFrom('users').select('id').where('tenant_id', '=', tenantId).where('is_active', '=', true).execute()
  ).map((r) => r.id)

/**
 * What is billed of each line of the order (DECISIONS: submitted, approved and paid bills count): the lines
 * that any counted bill names, with the sum of its quantities.
 */
export const billedByLine = (db: Kysely<DB>, tenantId: number, orderId: number) =>
  db
    .selectFrom('bill_lines as bl')
    .innerJoin('bills as b', byTenant('b', 'bl.bill_id'))
    .select(['bl.po_line_id as id', sql<string>`sum(bl.quantity)::text`.as('billed_quantity')])
    .where('bl.tenant_id', '=', tenantId)
    .where('b.order_id', '=', orderId)
    .where('b.status', 'in', ['pending_approval', 'approved', 'paid'])
    .where('bl.po_line_id', 'is not', null)
    .groupBy('bl.po_line_id')
    .$narrowType<{ id: number }>()
    .execute()
