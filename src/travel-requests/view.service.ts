/**
 * Travel request rows → the API shape (with their approvals and `expensed_total`): one mapping, so an event's
 * object is exactly what GET /api/v3/travel-requests/{id}/ returns. Who sees one (DECISIONS): its traveller, its
 * approval candidates, `accounts_payable` at its location and `superuser`; anyone else gets 404.
 */
import type { Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import type { LocationAccess } from '../access/location-permissions.ts'
import { approvalsByDocument } from '../approvals/view.service.ts'
import { budgetWarnings } from '../budgets/check.service.ts'
import { sumDecimals, trimDecimal } from '../core/decimal.ts'
import { notFound } from '../core/problem.ts'
import type { DB } from '../db/schema.ts'
import { convert } from '../expense-reports/convert.ts'
import { accountRefs } from '../expense-reports/references.repository.ts'
import { reportScope } from '../expense-reports/view.service.ts'
import * as repo from './repository.ts'
import type { TravelRequest } from './schema.ts'

type Approvals = Awaited<ReturnType<typeof approvalsByDocument>>
type Accounts = Awaited<ReturnType<typeof accountRefs>>
type Warnings = Awaited<ReturnType<typeof budgetWarnings>>

function toTravel(row: repo.TravelRow, approvals: Approvals, accounts: Accounts, warnings: Warnings): TravelRequest {
  return {
    id: row.id,
    number: row.number,
    status: row.status,
    traveller: row.traveller,
    location: { id: row.location_id, name: row.location_name },
    department: row.department_id === null ? null : { id: row.department_id, name: row.department_name ?? '' },
    purpose: row.purpose,
    destination: row.destination,
    departure_date: row.departure_date,
    return_date: row.return_date,
    currency: row.currency,
    estimates: row.estimates.map((e) => ({
      category: e.category,
      amount: trimDecimal(e.amount),
      account: e.account_id === null ? null : (accounts.get(e.account_id) ?? null),
    })),
    total: row.total,
    expensed_total: sumDecimals(row.expensed.map((e) => convert(e.total, e.rate, e.travel_rate))),
    budget_warnings: warnings.get(row.id) ?? [],
    approvals: approvals.get(row.id) ?? [],
    submitted_at: row.submitted_at === null ? null : row.submitted_at.toISOString(),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  }
}

export async function toTravels(db: Kysely<DB>, tenantId: number, rows: repo.TravelRow[]) {
  const approvals = await approvalsByDocument(
    db,
    tenantId,
    'travel_request',
    rows.map((r) => r.id),
  )
  const accounts = await accountRefs(
    db,
    tenantId,
    rows.flatMap((r) => r.estimates.flatMap((e) => (e.account_id === null ? [] : [e.account_id]))),
  )
  const warnings = await budgetWarnings(
    db,
    tenantId,
    'travel_request',
    rows.map((r) => r.id),
  )
  return rows.map((row) => toTravel(row, approvals, accounts, warnings))
}

export async function travelView(db: Kysely<DB>, tenantId: number, id: number): Promise<TravelRequest> {
  const row = await repo.findTravel(db, tenantId, id)
  if (row === undefined) throw new Error(`travel request ${id} of tenant ${tenantId} vanished inside its transaction`)
  return (await toTravels(db, tenantId, [row]))[0]!
}

/** The same readers as expense reports: the caller's user id and their accounts_payable locations. */
export const travelScope = reportScope

/** The travel request row if the actor may see it (locked first when `lock`); 404 otherwise. */
export async function visibleTravel(db: Kysely<DB>, actor: Actor, access: LocationAccess, id: number, lock = false) {
  if (lock && (await repo.lockTravel(db, actor.tenantId, id)) === undefined) throw notFound(`No travel request ${id}.`)
  const row = await repo.findTravel(db, actor.tenantId, id, travelScope(actor, access))
  if (row === undefined) throw notFound(`No travel request ${id}.`)
  return row
}
