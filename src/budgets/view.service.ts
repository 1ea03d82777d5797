/** A budget as GET returns it: its columns and its computed figures (exact, from cents); the names a page shows. */
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'
import { fromCents, numericCents, percentOfCents } from '../ledger/money.ts'
import { baseCurrency } from '../reports/currency.repository.ts'
import type * as repo from './repository.ts'
import { namesOf as repoNames } from './repository.ts'
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

/** The names a console page shows for budgets' ids, and the base currency their amounts are in. */
export interface BudgetNames {
  currency: string
  locations: ReadonlyMap<number, string>
  departments: ReadonlyMap<number, string>
  accounts: ReadonlyMap<number, string>
  owners: ReadonlyMap<number, string>
}

const ids = (values: readonly (number | null)[]) => [...new Set(values.filter((v): v is number => v !== null))]

/** The names of what `budgets` refer to (read once for all of them), and the tenant's base currency. */
export async function budgetNames(db: Kysely<DB>, tenantId: number, budgets: readonly Budget[]): Promise<BudgetNames> {
  const [names, currency] = await Promise.all([
    repoNames(db, tenantId, {
      locations: ids(budgets.map((b) => b.location)),
      departments: ids(budgets.map((b) => b.department)),
      accounts: ids(budgets.map((b) => b.account)),
      owners: ids(budgets.map((b) => b.owner)),
    }),
    baseCurrency(db, tenantId),
  ])
  return { currency, ...names }
}
