/**
 * The one list mechanism below HTTP: a page request read from a list's query parameters, and `fetchPage`,
 * which applies a list's filters, search and order to its query and returns one page with its exact total
 * in one round trip. The total rides on every row, either as `count(*) over ()` (the window is counted
 * before LIMIT, so it is the number of matches) or, for an unfiltered list of a big table, from the
 * trigger-kept `row_counts`. Only a page past the end has no row to carry the total; then it is counted
 * on its own, for the 404's message.
 */
import { sql, type Expression, type Kysely, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely'
import type { DB } from './schema.ts'

export const DEFAULT_PAGE_SIZE = 10
export const MAX_PAGE_SIZE = 100

/** The query parameters every list takes; the rest of a list's query are its filters. */
export interface ListParams {
  page?: number
  page_size?: number
  order_by?: string
  search?: string
  format?: 'json' | 'csv'
}

/** A list's filters: its query parameters less the ones every list takes. */
export type ListFilters<Q> = Omit<Q, keyof ListParams>

export interface PageRequest {
  page: number
  pageSize: number
  offset: number
  orderBy: { field: string; direction: 'asc' | 'desc' }
  search: string | undefined
}

export interface Page<T> {
  rows: T[]
  /** Every match, not just this page's. */
  count: number
  page: PageRequest
}

export function pageRequest(query: ListParams): PageRequest {
  const page = query.page ?? 1
  const pageSize = Math.min(query.page_size ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
  const order = query.order_by ?? 'id'
  const search = query.search?.trim()
  return {
    page,
    pageSize,
    offset: (page - 1) * pageSize,
    orderBy: order.startsWith('-') ? { field: order.slice(1), direction: 'desc' } : { field: order, direction: 'asc' },
    search: search === undefined || search === '' ? undefined : search,
  }
}

const LIST_PARAMS = new Set(['page', 'page_size', 'order_by', 'search', 'format'])

/** A list's query split into the page it asks for and its filters. */
export function splitListQuery<Q extends ListParams>(query: Q): { page: PageRequest; filters: ListFilters<Q> } {
  const filters: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(query)) if (!LIST_PARAMS.has(key)) filters[key] = value
  return { page: pageRequest(query), filters: filters as ListFilters<Q> }
}

/** `%` and `_` typed by the user are literal characters, not wildcards. */
export const likePattern = (search: string): string => `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/** Tables whose rows per tenant are counted by triggers (see the migration's `row_counts`). */
export type CountedTable = 'vendors' | 'locations' | 'users'

/** The kept row count of `table` for the tenant, as an expression: the sum of its slots (no table scan). */
const keptTotal = (tenantId: number, table: CountedTable) =>
  sql<string>`(select coalesce(sum(n), 0) from row_counts where tenant_id = ${tenantId} and table_name = ${table})`

/** A filter: equality on a column, or an expression built from the value. */
export type Filter<V> = string | ((value: V) => Expression<SqlBool>)

/** How one list is read: which columns its tenant, id, order, search and filters use. */
export interface ListSpec<F> {
  /** Qualified columns, e.g. `v.tenant_id`, `v.id`. */
  tenant: string
  id: string
  /** `order_by` field → column (besides `id`). Ties are broken by the id, so pages never overlap. */
  order: Record<string, string>
  /** Columns matched by `search` (case-insensitive substring); an expression for computed text. */
  search: (string | RawBuilder<string>)[]
  /** Every filter the list's query declares, and how it applies. */
  filters: { [K in keyof F]-?: Filter<NonNullable<F[K]>> }
  /** Unfiltered totals come from the kept row count of this table. */
  counted?: CountedTable
}

/** Any list's select; its tables and aliases are the list's own business (columns are named in its spec). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnySelect<O> = SelectQueryBuilder<any, any, O>

/** Restricts `query` to the tenant, the filters that are set and the search. */
export function applyFilters<O, F extends object>(
  query: AnySelect<O>,
  spec: ListSpec<F>,
  tenantId: number,
  filters: F,
  search: string | undefined,
) {
  let q = query.where(sql.ref(spec.tenant), '=', tenantId)
  for (const [name, filter] of Object.entries(spec.filters) as [string, Filter<unknown>][]) {
    const value: unknown = (filters as Record<string, unknown>)[name]
    if (value === undefined) continue
    q = typeof filter === 'string' ? q.where(sql.ref(filter), '=', value) : q.where(filter(value))
  }
  if (search !== undefined) {
    const pattern = likePattern(search)
    const columns = spec.search.map((c) => (typeof c === 'string' ? sql.ref(c) : c))
    q = q.where((eb) => eb.or(columns.map((c) => eb(c, 'ilike', pattern))))
  }
  return q
}

const hasFilters = (filters: object, search: string | undefined) =>
  search !== undefined || Object.values(filters).some((value) => value !== undefined)

/**
 * One page of `query` (the list's select, not yet restricted) and the exact total, in one round trip.
 * `filters` are the list query's filter values; unset ones are left out.
 */
export async function fetchPage<O, F extends object>(
  db: Kysely<DB>,
  query: AnySelect<O>,
  spec: ListSpec<F>,
  tenantId: number,
  filters: F,
  page: PageRequest,
): Promise<Page<O>> {
  const filtered = applyFilters(query, spec, tenantId, filters, page.search)
  const kept = spec.counted !== undefined && !hasFilters(filters, page.search) ? spec.counted : undefined
  const total = kept === undefined ? sql<string>`count(*) over ()` : keptTotal(tenantId, kept)
  const column = page.orderBy.field === 'id' ? undefined : spec.order[page.orderBy.field]
  let q = filtered.select(total.as('total_count'))
  if (column !== undefined) q = q.orderBy(sql.ref(column), page.orderBy.direction)
  const rows = await q
    .orderBy(sql.ref(spec.id), page.orderBy.direction)
    .limit(page.pageSize)
    .offset(page.offset)
    .execute()
  const first = rows[0] as { total_count?: string | number | null } | undefined
  if (first !== undefined) {
    const count = Number(first.total_count ?? 0)
    for (const row of rows) delete (row as { total_count?: unknown }).total_count
    return { rows, count, page }
  }
  if (page.page === 1) return { rows, count: 0, page }
  const counted =
    kept === undefined
      ? await filtered
          .clearSelect()
          .select(sql<string>`count(*)`.as('n'))
          .executeTakeFirst()
      : await db.selectNoFrom(keptTotal(tenantId, kept).as('n')).executeTakeFirst()
  return { rows, count: Number((counted as { n?: string | number | null } | undefined)?.n ?? 0), page }
}
