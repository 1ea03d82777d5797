/**
 * Spend this month against the budgets, for the console's home page: the spend report of this UTC month and
 * the budgets report over it, for a reader of reports; undefined for anyone without `nav_report`.
 * Home (console/pages/home.ts) shows it with `spendThisMonthCard` (console/views/reports.ts).
 */
import type { Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import type { DB } from '../db/schema.ts'
import { monthName } from './definitions.ts'
import { addAmounts } from './money.ts'
import { readsReports, runReport } from './service.ts'

export async function spendThisMonth(db: Kysely<DB>, actor: Actor, now = new Date()) {
  if (!(await readsReports(db, actor))) return undefined
  const month = now.toISOString().slice(0, 7)
  const from = `${month}-01`
  const to = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0)).toISOString().slice(0, 10)
  const spend = await runReport(db, actor, 'spend', { from, to, group_by: 'month' })
  const budgets = await runReport(db, actor, 'budgets', { from, to })
  return {
    month: monthName(month),
    spent: (spend.totals.amount as string | undefined) ?? '0.00',
    currency: spend.currency,
    budgets: budgets.rows.map((r) => {
      const b = r.budget as { id: number; name: string }
      return {
        id: b.id,
        name: b.name,
        amount: r.amount as string,
        committed: addAmounts([r.pending as string, r.committed as string]),
        spent: r.spent as string,
        used_percent: r.used_percent as string | null,
        available: r.available as string,
      }
    }),
  }
}
