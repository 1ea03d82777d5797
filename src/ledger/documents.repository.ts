/**
 * What requests, purchase orders and bills count in the ledger, read as they stand in the current transaction:
 * their status, place, currency, dates and lines. Every query is scoped to one tenant.
 */
import { sql, type Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'

export interface RequestFacts {
  id: number
  status: string
  submitted_at: string | null
  location_id: number
  department_id: number | null
  currency_id: number
  lines: { id: number; quantity: string; unit_price: string; account_id: number | null; ordered: boolean }[]
}

export const requestFacts = async (db: Kysely<DB>, tenantId: number, id: number) =>
  (
    await sql<RequestFacts>`
    SELECT r.id, r.status, to_char(r.submitted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS submitted_at,
           r.location_id, r.department_id, r.currency_id,
           coalesce((SELECT json_agg(json_build_object('id', li.id, 'quantity', li.quantity::text,
               'unit_price', li.unit_price::text, 'account_id', li.account_id,
               'ordered', EXISTS (SELECT 1 FROM purchase_order_lines ol
                   JOIN purchase_orders o ON o.tenant_id = ol.tenant_id AND o.id = ol.order_id
                  WHERE ol.tenant_id = li.tenant_id AND ol.request_line_id = li.id
                    AND o.status IN ('issued', 'closed'))) ORDER BY li.position)
             FROM request_lines li WHERE li.tenant_id = r.tenant_id AND li.request_id = r.id), '[]') AS lines
      FROM purchase_requests r WHERE r.tenant_id = ${tenantId} AND r.id = ${id}`.execute(db)
  ).rows[0]

export interface OrderFacts {
  id: number
  number: string
  status: string
  request_id: number | null
  request_date: string | null
  issued_at: string | null
  location_id: number
  department_id: number | null
  currency_id: number
  request_currency_id: number | null
  lines: {
    id: number
    request_line_id: number | null
    quantity: string
    unit_price: string
    billed_quantity: string
    closed: boolean
    account_id: number | null
    request_quantity: string | null
    request_unit_price: string | null
  }[]
}

export const orderFacts = async (db: Kysely<DB>, tenantId: number, id: number) =>
  (
    await sql<OrderFacts>`
    SELECT o.id, o.number, o.status, o.request_id,
           to_char(r.submitted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS request_date,
           to_char(o.issued_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS issued_at,
           o.location_id, o.department_id, o.currency_id, r.currency_id AS request_currency_id,
           coalesce((SELECT json_agg(json_build_object('id', l.id, 'request_line_id', l.request_line_id,
               'quantity', l.quantity::text, 'unit_price', l.unit_price::text,
               'billed_quantity', l.billed_quantity::text, 'closed', l.closed, 'account_id', l.account_id,
               'request_quantity', rl.quantity::text, 'request_unit_price', rl.unit_price::text) ORDER BY l.position)
             FROM purchase_order_lines l
             LEFT JOIN request_lines rl ON rl.tenant_id = l.tenant_id AND rl.id = l.request_line_id
            WHERE l.tenant_id = o.tenant_id AND l.order_id = o.id), '[]') AS lines
      FROM purchase_orders o
      LEFT JOIN purchase_requests r ON r.tenant_id = o.tenant_id AND r.id = o.request_id
     WHERE o.tenant_id = ${tenantId} AND o.id = ${id}`.execute(db)
  ).rows[0]

export interface BillFacts {
  id: number
  number: string
  status: string
  order_id: number | null
  invoice_date: string | null
  order_date: string | null
  location_id: number
  department_id: number | null
  currency_id: number
  lines: { id: number; po_line_id: number | null; quantity: string; unit_price: string; account_id: number | null }[]
}

export const billFacts = async (db: Kysely<DB>, tenantId: number, id: number) =>
  (
    await sql<BillFacts>`
    SELECT b.id, b.number, b.status, b.order_id, to_char(b.invoice_date, 'YYYY-MM-DD') AS invoice_date,
           coalesce(to_char(r.submitted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'),
                    to_char(o.issued_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')) AS order_date,
           b.location_id, o.department_id, b.currency_id,
           coalesce((SELECT json_agg(json_build_object('id', l.id, 'po_line_id', l.po_line_id,
               'quantity', l.quantity::text, 'unit_price', l.unit_price::text, 'account_id', l.account_id)
               ORDER BY l.position)
             FROM bill_lines l WHERE l.tenant_id = b.tenant_id AND l.bill_id = b.id), '[]') AS lines
      FROM bills b
      LEFT JOIN purchase_orders o ON o.tenant_id = b.tenant_id AND o.id = b.order_id
      LEFT JOIN purchase_requests r ON r.tenant_id = o.tenant_id AND r.id = o.request_id
     WHERE b.tenant_id = ${tenantId} AND b.id = ${id}`.execute(db)
  ).rows[0]
