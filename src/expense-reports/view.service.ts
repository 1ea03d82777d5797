/**
 * Expense report rows → the API shape (with their approvals): one mapping, so an event's object is exactly what
 * GET /api/v3/expense-reports/{id}/ returns. Who sees a report (DECISIONS): its employee, its approval
 * candidates, `accounts_payable` at its location and `superuser`; anyone else gets 404.
 */
import type { Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import { actorLocationAccess, locationsWithAny, type LocationAccess } from '../access/location-permissions.ts'
import { approvalsByDocument } from '../approvals/view.service.ts'
import { budgetWarnings } from '../budgets/check.service.ts'
import { trimDecimal } from '../core/decimal.ts'
import { notFound } from '../core/problem.ts'
import type { DB } from '../db/schema.ts'
import { accountRefs } from './references.repository.ts'
import * as repo from './repository.ts'
import type { ExpenseReport } from './schema.ts'

type Approvals = Awaited<ReturnType<typeof approvalsByDocument>>
type Accounts = Awaited<ReturnType<typeof accountRefs>>
type Warnings = Awaited<ReturnType<typeof budgetWarnings>>

function toReport(row: repo.ExpenseRow, approvals: Approvals, accounts: Accounts, warnings: Warnings): ExpenseReport {
  return {
    id: row.id,
    number: row.number,
    status: row.status,
    employee: row.employee,
    location: { id: row.location_id, name: row.location_name },
    department: row.department_id === null ? null : { id: row.department_id, name: row.department_name ?? '' },
    currency: row.currency,
    travel_request: row.travel_request_id,
    title: row.title,
    lines: row.lines.map((l) => ({
      id: l.id,
      date: l.date,
      merchant: l.merchant,
      description: l.description,
      account: l.account_id === null ? null : (accounts.get(l.account_id) ?? null),
      amount: trimDecimal(l.amount),
      currency: l.currency,
      converted_amount: l.converted_amount,
      receipt: l.receipt,
    })),
    total: row.total,
    budget_warnings: warnings.get(row.id) ?? [],
    approvals: approvals.get(row.id) ?? [],
    reimbursed_at: row.reimbursed_at === null ? null : row.reimbursed_at.toISOString(),
    payment_reference: row.payment_reference,
    submitted_at: row.submitted_at === null ? null : row.submitted_at.toISOString(),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  }
}

export async function toReports(db: Kysely<DB>, tenantId: number, rows: repo.ExpenseRow[]) {
  const ids = rows.map((r) => r.id)
  const approvals = await approvalsByDocument(db, tenantId, 'expense_report', ids)
  const accounts = await accountRefs(
    db,
    tenantId,
    rows.flatMap((r) => r.lines.flatMap((l) => (l.account_id === null ? [] : [l.account_id]))),
  )
  const warnings = await budgetWarnings(db, tenantId, 'expense_report', ids)
  return rows.map((row) => toReport(row, approvals, accounts, warnings))
}

export async function reportView(db: Kysely<DB>, tenantId: number, id: number): Promise<ExpenseReport> {
  const row = await repo.findReport(db, tenantId, id)
  if (row === undefined) throw new Error(`expense report ${id} of tenant ${tenantId} vanished inside its transaction`)
  return (await toReports(db, tenantId, [row]))[0]!
}

/** The scope of the lists: the caller's user id and the locations where they hold accounts_payable (superuser: none). */
export function reportScope(actor: Actor, access: LocationAccess): [number, number[]] | undefined {
  const locations = locationsWithAny(access, 'accounts_payable', 'superuser')
  return locations === 'all' ? undefined : [actor.userId!, locations]
}

/** The report row if the actor may see it (locked first when `lock`); 404 otherwise. */
export async function visibleReport(db: Kysely<DB>, actor: Actor, access: LocationAccess, id: number, lock = false) {
  if (lock && (await repo.lockReport(db, actor.tenantId, id)) === undefined) throw notFound(`No expense report ${id}.`)
  const row = await repo.findReport(db, actor.tenantId, id, reportScope(actor, access))
  if (row === undefined) throw notFound(`No expense report ${id}.`)
  return row
}

export const accessOf = (db: Kysely<DB>, actor: Actor) => actorLocationAccess(db, actor)
