/** SQL for currencies. Every query is scoped to one tenant. */
import type { Kysely, SelectQueryBuilder } from 'kysely'
import type { DB } from '../db/schema.ts'
import { pageWithTotal, windowTotal } from '../db/paging.ts'
import { likePattern, type PageRequest } from '../http/list.ts'

export interface CurrencyFilters {
  active?: boolean | undefined
  base?: boolean | undefined
  name?: string | undefined
  search?: string | undefined
}

const ORDER_COLUMNS = { id: 'c.id', name: 'c.name' } as const

function filtered<O>(query: SelectQueryBuilder<DB & { c: DB['currencies'] }, 'c', O>, tenantId: number, f: CurrencyFilters) {
  let q = query.where('c.tenant_id', '=', tenantId)
  if (f.active !== undefined) q = q.where('c.active', '=', f.active)
  if (f.base !== undefined) q = q.where('c.base', '=', f.base)
  if (f.name !== undefined) q = q.where('c.name', '=', f.name)
  if (f.search !== undefined) {
    const pattern = likePattern(f.search)
    q = q.where((eb) => eb.or([eb('c.name', 'ilike', pattern), eb('c.description', 'ilike', pattern)]))
  }
  return q
}

/** Counts the matches (small tables: no kept row count needed); used only for a page past the end. */
export async function countCurrencies(db: Kysely<DB>, tenantId: number, f: CurrencyFilters): Promise<number> {
  const row = await filtered(db.selectFrom('currencies as c'), tenantId, f)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

const selectCurrencies = (db: Kysely<DB>) => db.selectFrom('currencies as c').select(['c.id', 'c.name', 'c.description', 'c.rate', 'c.base', 'c.active'])

export type CurrencyRow = Awaited<ReturnType<ReturnType<typeof selectCurrencies>['executeTakeFirstOrThrow']>>

/** One page and the exact total in one round trip (db/paging.ts). */
export async function pageOfCurrencies(db: Kysely<DB>, tenantId: number, f: CurrencyFilters, page: PageRequest) {
  const column = ORDER_COLUMNS[page.orderBy.field as keyof typeof ORDER_COLUMNS] ?? 'c.id'
  let query = filtered(selectCurrencies(db).select(windowTotal.as('total_count')), tenantId, f).orderBy(column, page.orderBy.direction)
  // Names are unique per tenant today, but the id tie-breaker keeps pages stable whatever the data.
  if (column !== 'c.id') query = query.orderBy('c.id', page.orderBy.direction)
  return pageWithTotal(await query.limit(page.pageSize).offset(page.offset).execute(), page, () => countCurrencies(db, tenantId, f))
}
