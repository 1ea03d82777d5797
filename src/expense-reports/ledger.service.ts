/**
 * What an expense report counts in the commitment ledger (DECISIONS, "Accounts, budgets and the commitment
 * ledger"): once approved, each line is `spent` — its amount in the report's currency at the rate locked at
 * submit, on its account, at the report's location and department, `budget_date` the line's date. A travel
 * request's estimates stay `committed` until an approved expense report names it: that report's approval
 * reverses them (the spend has landed).
 */
import type { Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import { clearLedger, syncLedger, type LedgerLine } from '../ledger/ledger.service.ts'
import type { DB } from '../db/schema.ts'
import * as repo from './repository.ts'

/** The ledger lines of the report as it stands (amounts `spent`). */
export function spentLines(row: repo.ExpenseRow, rate: string): LedgerLine[] {
  return row.lines.map((l) => ({
    line: l.id,
    location: row.location_id,
    department: row.department_id,
    account: l.account_id,
    budget_date: l.date,
    currency: row.currency,
    rate,
    spent: l.converted_amount,
  }))
}

/** The approved report's lines become spent; the travel request it names stops counting as committed. */
export async function reportApproved(tx: Kysely<DB>, actor: Actor, id: number): Promise<void> {
  const row = (await repo.findReport(tx, actor.tenantId, id))!
  const doc = { type: 'expense_report', id, number: row.number }
  await syncLedger(tx, actor.tenantId, doc, spentLines(row, row.rate!), 'approved')
  if (row.travel_request_id !== null) {
    const number = (await repo.travelNumber(tx, actor.tenantId, row.travel_request_id)) ?? ''
    await clearLedger(tx, actor.tenantId, { type: 'travel_request', id: row.travel_request_id, number }, 'approved')
  }
}
