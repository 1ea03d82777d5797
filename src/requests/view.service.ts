/**
 * Request rows → the API shape (with their approval chain), shared by the requests' routes, the approval
 * decisions and the events: one mapping, so an event's object is exactly what GET /api/v3/requests/{id}/
 * returns. What a request looks like does not depend on who reads it; who may read it is decided elsewhere.
 */
import type { Kysely } from 'kysely'
import { approvalsByRequest } from '../approvals/view.service.ts'
import { trimDecimal } from '../core/decimal.ts'
import { budgetWarnings } from '../budgets/check.service.ts'
import type { DB } from '../db/schema.ts'
import * as repo from './repository.ts'
import type { PurchaseRequest } from './schema.ts'

type Approvals = Awaited<ReturnType<typeof approvalsByRequest>>
type Warnings = Awaited<ReturnType<typeof budgetWarnings>>

function toRequest(row: repo.RequestRow, approvals: Approvals, warnings: Warnings): PurchaseRequest {
  return {
    id: row.id,
    uuid: row.uuid,
    status: row.status,
    requester: row.requester,
    location: { id: row.location_id, name: row.location_name },
    department: row.department_id === null ? null : { id: row.department_id, name: row.department_name ?? '' },
    currency: row.currency,
    description: row.description,
    needed_by: row.needed_by,
    lines: row.lines.map((l) => ({ ...l, quantity: trimDecimal(l.quantity), unit_price: trimDecimal(l.unit_price) })),
    total: row.total,
    approvals: approvals.get(row.id) ?? [],
    budget_warnings: warnings.get(row.id) ?? [],
    submitted_at: row.submitted_at === null ? null : row.submitted_at.toISOString(),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  }
}

/** These rows as the API shows them, each with its approvals (one query for all of them). */
export async function toRequests(db: Kysely<DB>, tenantId: number, rows: repo.RequestRow[]) {
  const approvals = await approvalsByRequest(
    db,
    tenantId,
    rows.map((r) => r.id),
  )
  const warnings = await budgetWarnings(
    db,
    tenantId,
    'request',
    rows.map((r) => r.id),
  )
  return rows.map((row) => toRequest(row, approvals, warnings))
}

/** The request as GET /api/v3/requests/{id}/ returns it, read through `db` (a write's transaction). */
export async function requestView(db: Kysely<DB>, tenantId: number, id: number): Promise<PurchaseRequest> {
  const row = await repo.findRequest(db, tenantId, id)
  if (row === undefined) throw new Error(`request ${id} of tenant ${tenantId} vanished inside its transaction`)
  return (await toRequests(db, tenantId, [row]))[0]!
}
