/**
 * A list's SQL, bound to its query schema (core/list-query.ts): `listSql(query, spec)` returns the function
 * that reads one page and its exact total in one round trip. The spec must name a column for every `order_by`
 * field and a condition for every filter the schema declares — the compiler checks both against the schema —
 * and its columns are checked against the list's own select.
 *
 * The total rides on every row, either as `count(*) over ()` (the window is counted before LIMIT, so it is the
 * number of matches) or, for an unfiltered list of a big table (or one filtered by a kept filter alone), from
 * the trigger-kept `row_counts`. Only a
 * page past the end has no row to carry the total; then it is counted on its own, for the 404's message.
 *
 * Each shape of the page query (which filters are set, search or not, the order) is built and compiled once
 * per database handle; later requests of that shape only put in their own values (db/compiled.ts).
 */
import {
  sql,
  type Expression,
  type Kysely,
  type RawBuilder,
  type SelectQueryBuilder,
  type SqlBool,
  type StringReference,
} from 'kysely'
import {
  filtersOf,
  pageRequest,
  type ListFilters,
  type OrderField,
  type Page,
  type PageRequest,
} from '../core/list-query.ts'
import type { Static, TSchema } from 'typebox'
import { compiledByShape } from './compiled.ts'
import type { DB } from './schema.ts'

/** `%` and `_` typed by the user are literal characters, not wildcards. */
export const likePattern = (search: string): string => `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/** Tables whose rows per tenant are counted by triggers (see the migration's `row_counts`). */
export type CountedTable = 'vendors' | 'locations' | 'users' | 'purchase_orders'

/**
 * The kept row count of `table` for the tenant, as an expression: the sum of its slots (no table scan). With
 * `filter`, the count of the rows whose column `filter.name` is `filter.value`, kept under the name
 * `<table>.<name>:<value>` (migration 0017).
 */
const keptTotal = (tenantId: number, table: CountedTable, filter?: { name: string; value: unknown }) =>
  sql<string>`(select coalesce(sum(n), 0) from row_counts where tenant_id = ${tenantId} and table_name = ${
    filter === undefined ? table : sql`${`${table}.${filter.name}:`} || ${filter.value}::text`
  })`

/** A filter: equality on a column of the list's select, or a condition built from the value. */
export type Filter<D, TB extends keyof D, V> = StringReference<D, TB> | ((value: V) => Expression<SqlBool>)

/** How one list is read. `Q` is the list's query (the schema's static type); `D`/`TB` its select's tables. */
export interface ListSpec<Q, D, TB extends keyof D, O> {
  /** The rows: joins and columns, not yet restricted. `tenantId` may be used inside (e.g. in a subquery). */
  select: (db: Kysely<DB>, tenantId: number) => SelectQueryBuilder<D, TB, O>
  tenant: StringReference<D, TB>
  id: StringReference<D, TB>
  /** A column for each `order_by` field but `id`; ties are broken by the id, so pages never overlap. */
  order: { [K in Exclude<OrderField<Q>, 'id'> & string]: StringReference<D, TB> }
  /** Matched by `search` (case-insensitive substring); an expression for computed text. */
  search: readonly (StringReference<D, TB> | RawBuilder<string>)[]
  /** A condition for each filter the query declares. */
  filters: { [K in keyof ListFilters<Q>]-?: Filter<D, TB, NonNullable<ListFilters<Q>[K]>> }
  /** Unfiltered totals come from the kept row count of this table. */
  counted?: CountedTable
  /** Filters whose totals are kept too (one of them set, and nothing else): `<table>.<filter>:<value>`. */
  countedFilters?: readonly (keyof ListFilters<Q> & string)[]
  /**
   * What the caller may see, when the list is not the same for everyone: a condition over `values` (the
   * caller's, passed with each read as its `scope`; stand-ins when compiled, so only pass them on).
   */
  scope?: (values: readonly unknown[]) => Expression<SqlBool>
}

type Row<O> = O & { total_count: string | number | null }
type Order = PageRequest['orderBy']

/** The function that reads a page of the list `spec` describes, for a tenant and a query of `schema`. */
export function listSql<S extends TSchema, D, TB extends keyof D, O>(
  schema: S,
  spec: ListSpec<Static<S>, D, TB, O>,
): (db: Kysely<DB>, tenantId: number, query: Static<S>, scope?: readonly unknown[]) => Promise<Page<O>> {
  const conditions = spec.filters as Record<string, Filter<D, TB, unknown>>
  const orderColumns = spec.order as Record<string, StringReference<D, TB> | undefined>
  void schema // the schema's static type is what the spec is checked against
  const searchable = spec.search.length > 0

  /** The list restricted to the tenant, the set filters and the search (values may be stand-ins). */
  const filtered = (
    db: Kysely<DB>,
    tenantId: number,
    set: [string, unknown][],
    search: string | undefined,
    scope: readonly unknown[] | undefined,
  ) => {
    let q = spec.select(db, tenantId).where(sql.ref(spec.tenant), '=', tenantId)
    if (scope !== undefined) q = q.where(spec.scope!(scope))
    for (const [name, value] of set) {
      const condition = conditions[name]!
      q = typeof condition === 'function' ? q.where(condition(value)) : q.where(sql.ref(condition), '=', value)
    }
    if (search !== undefined) {
      // A list with nothing to search in matches no search at all (and then uses no pattern).
      const columns = spec.search.map((c) => (typeof c === 'string' ? sql.ref(c) : c))
      q =
        columns.length === 0
          ? q.where(sql<boolean>`false`)
          : q.where((eb) => eb.or(columns.map((c) => eb(c, 'ilike', search))))
    }
    return q
  }

  /** Arguments: the tenant, the page's limit and offset, the search pattern if any, the set filters' values. */
  const pageQuery = compiledByShape(
    (db: Kysely<DB>, shape: { set: string[]; search: boolean; kept: boolean; order: Order; scope: number }, args) => {
      const [tenantId, limit, offset, ...rest] = args as [number, number, number, ...unknown[]]
      const pattern = !shape.search ? undefined : searchable ? (rest.shift() as string) : ''
      const set = shape.set.map((name, i): [string, unknown] => [name, rest[i]])
      const scope = shape.scope > 0 ? rest.slice(set.length) : undefined
      const filter = set[0] === undefined ? undefined : { name: set[0][0], value: set[0][1] }
      const total = shape.kept ? keptTotal(tenantId, spec.counted!, filter) : sql<string>`count(*) over ()`
      let q = filtered(db, tenantId, set, pattern, scope).select(total.as('total_count'))
      const column = shape.order.field === 'id' ? undefined : orderColumns[shape.order.field]
      if (column !== undefined) q = q.orderBy(sql.ref(column), shape.order.direction)
      return q.orderBy(sql.ref(spec.id), shape.order.direction).limit(limit).offset(offset)
    },
  )

  return async (db, tenantId, query, scope) => {
    if (scope !== undefined && (spec.scope === undefined || scope.length === 0))
      throw new Error('listSql: a scope needs the spec to say how to apply it')
    const page = pageRequest(query)
    const set = filtersOf(query)
    const keptFilter = set.length === 1 && (spec.countedFilters as readonly string[] | undefined)?.includes(set[0]![0])
    const kept =
      spec.counted !== undefined &&
      (set.length === 0 || keptFilter === true) &&
      page.search === undefined &&
      scope === undefined
    const shape = {
      set: set.map(([name]) => name),
      search: page.search !== undefined,
      kept,
      order: page.orderBy,
      scope: scope?.length ?? 0,
    }
    const values = set.map(([, value]) => value)
    const pattern = page.search === undefined || !searchable ? [] : [likePattern(page.search)]
    const args = [tenantId, page.pageSize, page.offset, ...pattern, ...values, ...(scope ?? [])]
    const rows = await pageQuery(db, shape, args)
    const first = rows[0] as Row<O> | undefined
    if (first !== undefined) {
      const count = Number(first.total_count ?? 0)
      for (const row of rows) delete (row as Partial<Row<O>>).total_count
      return { rows, count, page }
    }
    if (page.page === 1) return { rows, count: 0, page }
    const counted = kept
      ? await db
          .selectNoFrom(keptTotal(tenantId, spec.counted!, set[0] && { name: set[0][0], value: set[0][1] }).as('n'))
          .executeTakeFirst()
      : await filtered(db, tenantId, set, page.search === undefined ? undefined : (pattern[0] ?? ''), scope)
          .clearSelect()
          .select(sql<string>`count(*)`.as('n'))
          .executeTakeFirst()
    return { rows, count: Number((counted as { n?: string } | undefined)?.n ?? 0), page }
  }
}
