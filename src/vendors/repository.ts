/** SQL for vendors. Every query is scoped to one tenant. */
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely'
import type { DB, NewVendor, VendorUpdate } from '../db/schema.ts'
import { keptTotal, pageWithTotal, windowTotal } from '../db/paging.ts'
import { likePattern, type PageRequest } from '../http/list.ts'

export interface VendorRef {
  id: number
  name: string
  description: string
  active: boolean
}

export interface VendorFilters {
  active?: boolean | undefined
  type?: number | undefined
  external_id?: string | undefined
  name?: string | undefined
  search?: string | undefined
}

const ORDER_COLUMNS = { id: 'v.id', name: 'v.name', external_id: 'v.external_id', dateModified: 'v.date_modified' } as const

const hasFilters = (f: VendorFilters) => Object.values(f).some((value) => value !== undefined)

function filtered<O>(query: SelectQueryBuilder<DB & { v: DB['vendors'] }, 'v', O>, tenantId: number, f: VendorFilters) {
  let q = query.where('v.tenant_id', '=', tenantId)
  if (f.active !== undefined) q = q.where('v.active', '=', f.active)
  if (f.type !== undefined) q = q.where('v.type', '=', f.type)
  if (f.external_id !== undefined) q = q.where('v.external_id', '=', f.external_id)
  if (f.name !== undefined) q = q.where('v.name', '=', f.name)
  if (f.search !== undefined) q = q.where('v.name', 'ilike', likePattern(f.search))
  return q
}

/** Exact count: unfiltered from the trigger-kept row count (no scan), filtered by counting matches. */
export async function countVendors(db: Kysely<DB>, tenantId: number, f: VendorFilters): Promise<number> {
  if (!hasFilters(f)) {
    const row = await db
      .selectFrom('row_counts')
      .select('n')
      .where('tenant_id', '=', tenantId)
      .where('table_name', '=', 'vendors')
      .executeTakeFirst()
    return Number(row?.n ?? 0)
  }
  const row = await filtered(db.selectFrom('vendors as v'), tenantId, f)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

type LookupTable = 'payment_terms' | 'shipping_terms' | 'payment_methods' | 'shipping_methods'

export function selectVendors(db: Kysely<DB>) {
  return db
    .selectFrom('vendors as v')
    .selectAll('v')
    .select((eb) => {
      const ref = (table: LookupTable, column: `v.${'payment_term_id' | 'shipping_term_id' | 'payment_method_id' | 'shipping_method_id'}`) =>
        eb
          .selectFrom(`${table} as r` as 'payment_terms as r')
          .select(sql<VendorRef>`json_build_object('id', r.id, 'name', r.name, 'description', r.description, 'active', r.active)`.as('ref'))
          .whereRef('r.id', '=', column)
      return [
        ref('payment_terms', 'v.payment_term_id').as('payment_term_ref'),
        ref('shipping_terms', 'v.shipping_term_id').as('shipping_term_ref'),
        ref('payment_methods', 'v.payment_method_id').as('payment_method_ref'),
        ref('shipping_methods', 'v.shipping_method_id').as('shipping_method_ref'),
      ]
    })
}

export type VendorRow = Awaited<ReturnType<ReturnType<typeof selectVendors>['executeTakeFirstOrThrow']>>

/** One page and the exact total in one round trip (db/paging.ts): unfiltered, from the kept row count. */
export async function pageOfVendors(db: Kysely<DB>, tenantId: number, f: VendorFilters, page: PageRequest): Promise<{ rows: VendorRow[]; count: number }> {
  const column = ORDER_COLUMNS[page.orderBy.field as keyof typeof ORDER_COLUMNS] ?? 'v.id'
  const total = hasFilters(f) ? windowTotal : keptTotal(tenantId, 'vendors')
  let query = filtered(selectVendors(db).select(total.as('total_count')), tenantId, f).orderBy(column, page.orderBy.direction)
  if (column !== 'v.id') query = query.orderBy('v.id', page.orderBy.direction)
  return pageWithTotal(await query.limit(page.pageSize).offset(page.offset).execute(), page, () => countVendors(db, tenantId, f))
}

export function findVendor(db: Kysely<DB>, tenantId: number, id: number): Promise<VendorRow | undefined> {
  return selectVendors(db).where('v.tenant_id', '=', tenantId).where('v.id', '=', id).executeTakeFirst()
}

export async function insertVendor(db: Kysely<DB>, values: NewVendor): Promise<number> {
  return (await db.insertInto('vendors').values(values).returning('id').executeTakeFirstOrThrow()).id
}

export async function updateVendor(db: Kysely<DB>, tenantId: number, id: number, values: VendorUpdate): Promise<boolean> {
  const result = await db
    .updateTable('vendors')
    .set({ ...values, date_modified: new Date() })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

/** Which of the referenced rows exist in the tenant (one query per kind actually referenced). */
export async function missingReferences(db: Kysely<DB>, tenantId: number, refs: { field: string; table: LookupTable | 'currencies'; id: number }[]): Promise<string[]> {
  const missing: string[] = []
  for (const ref of refs) {
    const row = await db.selectFrom(ref.table).select('id').where('tenant_id', '=', tenantId).where('id', '=', ref.id).executeTakeFirst()
    if (row === undefined) missing.push(ref.field)
  }
  return missing
}
