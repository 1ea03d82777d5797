/** A budget as GET returns it: its columns and its computed figures (exact, from cents). */
import { fromCents, numericCents, percentOfCents } from '../ledger/money.ts'
import type * as repo from './repository.ts'
import type { Budget } from './schema.ts'

export function toBudget(row: repo.BudgetRow): Budget {
  const f = row.figures
  const pending = numericCents(f.pending)
  const committed = numericCents(f.committed)
  const spent = numericCents(f.spent)
  const amount = numericCents(row.amount)
  const used = pending + committed + spent
  return {
    id: row.id,
    name: row.name,
    location: row.location_id,
    department: row.department_id,
    account: row.account_id,
    period_start: row.period_start,
    period_end: row.period_end,
    amount: fromCents(amount),
    action: row.action,
    owner: row.owner_profile,
    active: row.active,
    pending: fromCents(pending),
    committed: fromCents(committed),
    spent: fromCents(spent),
    available: fromCents(amount - used),
    used_percent: percentOfCents(used, amount),
  }
}

/** What is still available of the budget, in cents. */
export const availableCents = (row: repo.BudgetRow): bigint =>
  numericCents(row.amount) -
  numericCents(row.figures.pending) -
  numericCents(row.figures.committed) -
  numericCents(row.figures.spent)
