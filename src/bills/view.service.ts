/**
 * Bill rows → the API shape (with their approvals): one mapping, so an event's object is exactly what
 * GET /api/v3/bills/{id}/ returns.
 */
import type { Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import { actorLocationAccess, locationsWithAny, type LocationAccess } from '../access/location-permissions.ts'
import { approvalsByDocument } from '../approvals/view.service.ts'
import { budgetWarnings } from '../budgets/check.service.ts'
import { trimDecimal } from '../core/decimal.ts'
import { notFound } from '../core/problem.ts'
import type { DB } from '../db/schema.ts'
import * as repo from './repository.ts'
import type { Bill } from './schema.ts'

type Approvals = Awaited<ReturnType<typeof approvalsByDocument>>
type Warnings = Awaited<ReturnType<typeof budgetWarnings>>

function toBill(row: repo.BillRow, approvals: Approvals, warnings: Warnings): Bill {
  return {
    id: row.id,
    number: row.number,
    vendor: { id: row.vendor_id, name: row.vendor_name },
    location: { id: row.location_id, name: row.location_name },
    currency: row.currency,
    purchase_order: row.order_id,
    status: row.status,
    match_status: row.match_status,
    exceptions: row.exceptions as repo.BillException[],
    invoice_date: row.invoice_date,
    due_date: row.due_date,
    lines: row.lines.map((l) => ({
      id: l.id,
      po_line: l.po_line,
      description: l.description,
      quantity: trimDecimal(l.quantity),
      unit_price: trimDecimal(l.unit_price),
      tax_rate: trimDecimal(l.tax_rate),
      amount: l.amount,
      account: l.account ?? null,
    })),
    subtotal: row.subtotal,
    tax: row.tax,
    total: row.total,
    paid_at: row.paid_at === null ? null : row.paid_at.toISOString(),
    payment_reference: row.payment_reference,
    amount_paid: row.amount_paid,
    approvals: approvals.get(row.id) ?? [],
    budget_warnings: warnings.get(row.id) ?? [],
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  }
}

export async function toBills(db: Kysely<DB>, tenantId: number, rows: repo.BillRow[]) {
  const approvals = await approvalsByDocument(
    db,
    tenantId,
    'bill',
    rows.map((r) => r.id),
  )
  const warnings = await budgetWarnings(
    db,
    tenantId,
    'bill',
    rows.map((r) => r.id),
  )
  return rows.map((row) => toBill(row, approvals, warnings))
}

export async function billView(db: Kysely<DB>, tenantId: number, id: number): Promise<Bill> {
  const row = await repo.findBill(db, tenantId, id)
  if (row === undefined) throw new Error(`bill ${id} of tenant ${tenantId} vanished inside its transaction`)
  return (await toBills(db, tenantId, [row]))[0]!
}

/** These bills as GET returns them, in two reads (no scope: inside a write's transaction, for its events). */
export const billViews = async (db: Kysely<DB>, tenantId: number, ids: readonly number[]) =>
  toBills(db, tenantId, await repo.findBills(db, tenantId, ids))

/** Who sees bills: accounts_payable, nav_purchase or superuser at the location, and approval candidates. */
export function billScope(actor: Actor, access: LocationAccess): [number, number[]] | undefined {
  const locations = locationsWithAny(access, 'accounts_payable', 'nav_purchase', 'superuser')
  return locations === 'all' ? undefined : [actor.userId!, locations]
}

/** The bill row if the actor may see it (locked first when `lock`); 404 otherwise. */
export async function visibleBill(db: Kysely<DB>, actor: Actor, access: LocationAccess, id: number, lock = false) {
  if (lock && (await repo.lockBill(db, actor.tenantId, id)) === undefined) throw notFound(`No bill ${id}.`)
  const row = await repo.findBill(db, actor.tenantId, id, billScope(actor, access))
  if (row === undefined) throw notFound(`No bill ${id}.`)
  return row
}

export const accessOf = (db: Kysely<DB>, actor: Actor) => actorLocationAccess(db, actor)
