/**
 * What a travel request counts in the commitment ledger (DECISIONS): once approved, each estimate is
 * `committed` — its amount (rounded half-up to 2 decimals) in the request's currency at the rate locked at
 * submit, on its account, at the request's location and department, `budget_date` the departure date — until
 * an approved expense report names it (expense-reports/ledger.service.ts reverses it then).
 */
import type { Kysely } from 'kysely'
import { sumDecimals } from '../core/decimal.ts'
import type { DB } from '../db/schema.ts'
import { syncLedger, type LedgerLine } from '../ledger/ledger.service.ts'
import * as repo from './repository.ts'

export const ledgerDocument = (row: repo.TravelRow) => ({ type: 'travel_request', id: row.id, number: row.number })

/** The estimates as committed ledger lines at `rate`. */
export const committedLines = (row: repo.TravelRow, rate: string): LedgerLine[] =>
  row.estimates.map((e) => ({
    line: e.id,
    location: row.location_id,
    department: row.department_id,
    account: e.account_id,
    budget_date: row.departure_date,
    currency: row.currency,
    rate,
    committed: sumDecimals([e.amount]),
  }))

export async function travelApproved(tx: Kysely<DB>, tenantId: number, id: number): Promise<void> {
  const row = (await repo.findTravel(tx, tenantId, id))!
  // An approved expense report that names it already spent it: nothing stays committed.
  if (await repo.expensed(tx, tenantId, id)) return
  await syncLedger(tx, tenantId, ledgerDocument(row), committedLines(row, row.rate!), 'approved')
}
