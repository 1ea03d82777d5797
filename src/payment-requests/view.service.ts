/**
 * Payment request rows → the API shape (with their approvals): one mapping, so an event's object is exactly
 * what GET /api/v3/payment-requests/{id}/ returns.
 */
import type { Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import { actorLocationAccess, locationsWithAny, type LocationAccess } from '../access/location-permissions.ts'
import { approvalsByDocument } from '../approvals/view.service.ts'
import { budgetWarnings } from '../budgets/check.service.ts'
import { notFound } from '../core/problem.ts'
import type { DB } from '../db/schema.ts'
import * as repo from './repository.ts'
import type { PaymentRequest } from './schema.ts'

type Approvals = Awaited<ReturnType<typeof approvalsByDocument>>

function toPaymentRequest(row: repo.PaymentRequestRow, approvals: Approvals, warnings: object[]): PaymentRequest {
  return {
    id: row.id,
    number: row.number,
    status: row.status,
    requester: row.requester,
    location: { id: row.location_id, name: row.location_name },
    department:
      row.department_id === null || row.department_name === null
        ? null
        : { id: row.department_id, name: row.department_name },
    vendor: { id: row.vendor_id, name: row.vendor_name },
    currency: row.currency,
    amount: row.amount,
    amount_paid: row.amount_paid,
    account: row.account_id,
    due_date: row.due_date,
    invoice_number: row.invoice_number,
    reason: row.reason,
    budget_warnings: warnings,
    approvals: approvals.get(row.id) ?? [],
    submitted_at: row.submitted_at === null ? null : row.submitted_at.toISOString(),
    paid_at: row.paid_at === null ? null : row.paid_at.toISOString(),
    payment_reference: row.payment_reference,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  }
}

export async function toPaymentRequests(db: Kysely<DB>, tenantId: number, rows: repo.PaymentRequestRow[]) {
  const ids = rows.map((r) => r.id)
  const [approvals, warnings] = await Promise.all([
    approvalsByDocument(db, tenantId, 'payment_request', ids),
    budgetWarnings(db, tenantId, 'payment_request', ids),
  ])
  return rows.map((row) => toPaymentRequest(row, approvals, (warnings.get(row.id) ?? []) as object[]))
}

export async function paymentRequestView(db: Kysely<DB>, tenantId: number, id: number): Promise<PaymentRequest> {
  const row = await repo.findPaymentRequest(db, tenantId, id)
  if (row === undefined) throw new Error(`payment request ${id} of tenant ${tenantId} vanished inside its transaction`)
  return (await toPaymentRequests(db, tenantId, [row]))[0]!
}

/**
 * Who sees payment requests: accounts_payable (who pays them), nav_request (who makes them) and superuser at
 * the location, the requester and the approval candidates.
 */
export function paymentRequestScope(actor: Actor, access: LocationAccess): [number, number[]] | undefined {
  const locations = locationsWithAny(access, 'accounts_payable', 'nav_request', 'superuser')
  return locations === 'all' ? undefined : [actor.userId!, locations]
}

/** The row if the actor may see it (locked first when `lock`); 404 otherwise. */
export async function visiblePaymentRequest(
  db: Kysely<DB>,
  actor: Actor,
  access: LocationAccess,
  id: number,
  lock = false,
) {
  if (lock && (await repo.lockPaymentRequest(db, actor.tenantId, id)) === undefined)
    throw notFound(`No payment request ${id}.`)
  const row = await repo.findPaymentRequest(db, actor.tenantId, id, paymentRequestScope(actor, access))
  if (row === undefined) throw notFound(`No payment request ${id}.`)
  return row
}

export const accessOf = (db: Kysely<DB>, actor: Actor) => actorLocationAccess(db, actor)
