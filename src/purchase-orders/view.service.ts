/**
 * Order rows → the API shape (with their approvals), shared by the routes, the approval decisions and the
 * events: one mapping, so an event's object is exactly what GET /api/v3/purchase-orders/{id}/ returns.
 */
import type { Kysely } from 'kysely'
import { approvalsByDocument } from '../approvals/view.service.ts'
import { trimDecimal } from '../core/decimal.ts'
import { budgetWarnings } from '../budgets/check.service.ts'
import type { DB } from '../db/schema.ts'
import type * as lineWrites from './lines-repository.ts'
import type * as orderWrites from './write-repository.ts'
import * as repo from './repository.ts'
import type { PurchaseOrder } from './schema.ts'

/** A revision held for approval, as stored: what PUT sent, what it resolves to, and its first approval. */
export interface StoredRevision {
  body: unknown
  total: string
  proposed_by: number
  proposed_at: string
  first_approval: number
  resolved: { values: orderWrites.OrderValues; lines: lineWrites.LineValues[] }
}

type Approvals = Awaited<ReturnType<typeof approvalsByDocument>>
type Warnings = Awaited<ReturnType<typeof budgetWarnings>>
const iso = (d: Date | null) => (d === null ? null : d.toISOString())

function toOrder(row: repo.OrderRow, approvals: Approvals, warnings: Warnings): PurchaseOrder {
  const all = approvals.get(row.id) ?? []
  const pending = row.pending_revision as StoredRevision | null
  return {
    id: row.id,
    number: row.number,
    status: row.status,
    receipt_status: row.receipt_status,
    billing_status: row.billing_status,
    version: row.version,
    vendor: { id: row.vendor_id, name: row.vendor_name },
    location: { id: row.location_id, name: row.location_name },
    department: row.department_id === null ? null : { id: row.department_id, name: row.department_name ?? '' },
    request: row.request_id,
    currency: row.currency,
    ship_to: row.ship_to as PurchaseOrder['ship_to'],
    bill_to: row.bill_to as PurchaseOrder['bill_to'],
    promise_date: row.promise_date,
    notes: row.notes,
    lines: row.lines.map((l) => ({
      id: l.id,
      request_line: l.request_line,
      description: l.description,
      quantity: trimDecimal(l.quantity),
      unit_price: trimDecimal(l.unit_price),
      tax_rate: trimDecimal(l.tax_rate),
      amount: l.amount,
      received_quantity: trimDecimal(l.received_quantity),
      rejected_quantity: trimDecimal(l.rejected_quantity),
      billed_quantity: trimDecimal(l.billed_quantity),
      closed: l.closed,
      account: l.account ?? null,
    })),
    subtotal: row.subtotal,
    tax: row.tax,
    total: row.total,
    approvals: all,
    budget_warnings: warnings.get(row.id) ?? [],
    pending_revision:
      pending === null
        ? null
        : {
            body: pending.body,
            total: pending.total,
            proposed_by: pending.proposed_by,
            proposed_at: pending.proposed_at,
            approvals: all.filter((a) => a.id >= pending.first_approval),
          },
    created_by: row.created_by,
    issued_at: iso(row.issued_at),
    sent_at: iso(row.sent_at),
    closed_at: iso(row.closed_at),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  }
}

/** These rows as the API shows them, each with its approvals (one query for all of them). */
export async function toOrders(db: Kysely<DB>, tenantId: number, rows: repo.OrderRow[]) {
  const approvals = await approvalsByDocument(
    db,
    tenantId,
    'purchase_order',
    rows.map((r) => r.id),
  )
  const warnings = await budgetWarnings(
    db,
    tenantId,
    'purchase_order',
    rows.map((r) => r.id),
  )
  return rows.map((row) => toOrder(row, approvals, warnings))
}

/** The order as GET returns it, read through `db` (a write's transaction). */
export async function orderView(db: Kysely<DB>, tenantId: number, id: number): Promise<PurchaseOrder> {
  const row = await repo.findOrder(db, tenantId, id)
  if (row === undefined) throw new Error(`purchase order ${id} of tenant ${tenantId} vanished inside its transaction`)
  return (await toOrders(db, tenantId, [row]))[0]!
}

/** The order's ETag: its version (a revision of an issued order needs it in `If-Match`). */
export const etagOf = (order: { version: number }) => `"${order.version}"`
