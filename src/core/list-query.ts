/**
 * What a list's query string may say, declared once: `listQuery(order, filters)` is the TypeBox schema that
 * validates the query, types the handler and documents the parameters (OpenAPI), and its static type is what
 * the SQL binding (db/list.ts) must cover in full: one `order_by` column per order field, one condition per
 * filter. The parameters every list takes are `LIST_PARAMS`; the rest of a query are its filters.
 */
import { Type, type Static, type TLiteral, type TObject, type TProperties, type TUnion } from 'typebox'

export const DEFAULT_PAGE_SIZE = 10
export const MAX_PAGE_SIZE = 100

/** The parameters every list takes, besides its own `order_by` fields and filters. */
const LIST_PARAMS = {
  // Any page a client can name is a page: past the last it is a 404 (DECISIONS), not a 400.
  page: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'Page number, from 1 (past the last: 404).' }),
  ),
  page_size: Type.Optional(
    Type.Integer({
      minimum: 1,
      description: `Items per page (default ${DEFAULT_PAGE_SIZE}; above ${MAX_PAGE_SIZE} is read as ${MAX_PAGE_SIZE}).`,
    }),
  ),
  search: Type.Optional(Type.String({ maxLength: 200, description: 'Case-insensitive substring match.' })),
  format: Type.Optional(
    Type.Union([Type.Literal('json'), Type.Literal('csv')], { description: 'csv returns the page as text/csv.' }),
  ),
}
/** The query of a short list with a fixed order and nothing to search or filter (an order's revisions). */
export const PagingQuery = Type.Object(
  { page: LIST_PARAMS.page, page_size: LIST_PARAMS.page_size },
  { additionalProperties: false },
)

/** One page of rows already read whole (a short list), as a list's `Page`. */
export function pageOfAll<T>(rows: readonly T[], query: Static<typeof PagingQuery>): Page<T> {
  const page = pageRequest(query)
  return { rows: rows.slice(page.offset, page.offset + page.pageSize), count: rows.length, page }
}

const COMMON = new Set<string>([...Object.keys(LIST_PARAMS), 'order_by'])

/** The parameters every list takes, as a handler sees them (`order_by` is one of the list's own fields). */
export type ListParams = Static<TObject<typeof LIST_PARAMS>> & { order_by?: string }

/** The query schema of a list: paging, ordering by one of `order` (prefix `-` for descending), search, `filters`. */
export function listQuery<const O extends string, F extends TProperties>(order: readonly O[], filters: F) {
  const orders = order.flatMap((field) => [Type.Literal(field), Type.Literal(`-${field}`)])
  // TypeBox types a union of an array (not a tuple) as never; it is one of these literals.
  const orderBy = Type.Union(orders, { description: 'Sort field; prefix - for descending.' }) as TUnion<
    [TLiteral<O>, TLiteral<`-${O}`>]
  >
  return Type.Object(
    {
      ...LIST_PARAMS,
      order_by: Type.Optional(orderBy),
      ...filters,
    },
    { additionalProperties: false },
  )
}

/** The fields a list's query may order by (without the `-`), and `id`, which every list orders by last. */
export type OrderField<Q> = Q extends { order_by?: infer V } ? Exclude<NonNullable<V>, `-${string}`> : never
/** A list query's filters: its parameters less the ones every list takes. */
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

/** The filters that are set in a list's query, by name (the common parameters left out), values as SQL takes them. */
export function filtersOf(query: object): [string, unknown][] {
  return Object.entries(query)
    .filter(([name, value]) => !COMMON.has(name) && value !== undefined)
    .map(([name, value]) => [name, name === 'updated_since' ? sinceInstant(String(value)) : value])
}

/** A date alone, as `updated_since` may be given (ISO 8601). */
export const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/
/** The format of `updated_since`: an instant with a time zone, or a date alone (registered in http/validation.ts). */
export const DATE_OR_DATE_TIME = 'date-or-date-time'
/** An `updated_since` as the instant it means: a date alone is that day's 00:00 UTC (not the database's zone). */
export const sinceInstant = (value: string): string => (DATE_ONLY.test(value) ? `${value}T00:00:00Z` : value)

/** The `updated_since` filter of the lists whose items record when they changed. */
export const UpdatedSince = Type.Optional(
  Type.String({
    format: DATE_OR_DATE_TIME,
    description:
      'Only items changed at or after this instant: ISO 8601 with a time zone (2026-01-31T09:30:00Z), or a date alone (2026-01-31, read as 00:00 UTC).',
  }),
)
