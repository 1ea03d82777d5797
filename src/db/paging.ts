/**
 * One page and its exact total in one round trip: the page query selects the total on every row, either
 * as `count(*) over ()` (the window is counted before LIMIT, so it is the number of matches) or, for an
 * unfiltered list of a big table, from the trigger-kept `row_counts`. Only a page past the end has no row
 * to carry the total; then `countAll` runs, for the 404's message.
 */
import { sql } from 'kysely'
import type { PageRequest } from '../http/list.ts'

export const windowTotal = sql<string>`count(*) over ()`

/** The kept row count of `table` for the tenant (tables with count triggers: vendors, locations, users). */
export const keptTotal = (tenantId: number, table: 'vendors' | 'locations' | 'users') =>
  sql<string>`(select n from row_counts where tenant_id = ${tenantId} and table_name = ${table})`

export async function pageWithTotal<R extends { total_count: string | number | null }>(
  rows: R[],
  page: PageRequest,
  countAll: () => Promise<number>,
): Promise<{ rows: R[]; count: number }> {
  if (rows[0] !== undefined) return { rows, count: Number(rows[0].total_count ?? 0) }
  return { rows, count: page.page === 1 ? 0 : await countAll() }
}
