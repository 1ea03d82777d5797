/**
 * SQL that reads purchase orders: an order as one row with its lines, the list, and the revisions. Writes are
 * in write-repository.ts (the order row), lines-repository.ts (its lines) and references-repository.ts (what
 * an order refers to). Every query is scoped to one tenant.
 */
import { sql, type Kysely } from 'kysely'
import { byTenant, personJson } from '../db/joins.ts'
import { documentScope } from '../access/document-scope.ts'
import { listSql } from '../db/list.ts'
import type { DB } from '../db/schema.ts'
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
  account: { id: number; code: string; name: string } | null
}

const person = (user: string) => personJson(sql.ref(user), sql.ref(`${user.slice(0, user.indexOf('.'))}.tenant_id`))

export const linesOf = (tenant: string, order: string) =>
  sql<LineRow[]>`coalesce((select json_agg(json_build_object('id', li.id, 'request_line', li.request_line_id,
    'description', li.description, 'quantity', li.quantity::text, 'unit_price', li.unit_price::text,
    'tax_rate', li.tax_rate::text, 'amount', li.amount::text, 'tax', li.tax::text,
    'received_quantity', li.received_quantity::text, 'rejected_quantity', li.rejected_quantity::text,
    'billed_quantity', li.billed_quantity::text, 'closed', li.closed,
    'account', case when ac.id is null then null else json_build_object('id', ac.id, 'code', ac.code, 'name', ac.name) end)
    order by li.position)
    from purchase_order_lines li left join accounts ac on ac.tenant_id = li.tenant_id and ac.id = li.account_id
    where li.tenant_id = ${sql.ref(tenant)} and li.order_id = ${sql.ref(order)}), '[]')`

function selectOrders(db: Kysely<DB>) {
  return db
    .selectFrom('purchase_orders as po')
    .innerJoin('vendors as v', (j) => j.onRef('v.tenant_id', '=', 'po.tenant_id').onRef('v.id', '=', 'po.vendor_id'))
    .innerJoin('locations as l', byTenant('l', 'po.location_id'))
    .innerJoin('currencies as c', byTenant('c', 'po.currency_id'))
    .leftJoin('departments as d', byTenant('d', 'po.department_id'))
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
const visibility = documentScope('po', 'purchase_order')

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
    updated_since: visibility.updatedSince,
  },
  scope: visibility.scope,
  // Page 1 of a million orders reads ten rows, not every match: totals kept by migration 0017's triggers.
  counted: 'purchase_orders',
  countedFilters: ['status'],
})

export function findOrder(db: Kysely<DB>, tenantId: number, id: number, scope?: readonly [number, number[]]) {
  let q = selectOrders(db).where('po.tenant_id', '=', tenantId).where('po.id', '=', id)
  if (scope !== undefined) q = q.where(visibility.visible(scope[0], scope[1]))
  return q.executeTakeFirst()
}

export const revisionsOf = (db: Kysely<DB>, tenantId: number, orderId: number) =>
  db
    .selectFrom('purchase_order_revisions as r')
    .select(['r.version', 'r.changed_at', 'r.changes', person('r.changed_by').as('changed_by')])
    .where('r.tenant_id', '=', tenantId)
    .where('r.order_id', '=', orderId)
    .orderBy('r.version')
    .execute()
