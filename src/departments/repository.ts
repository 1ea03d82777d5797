/** SQL for departments. Every query is scoped to one tenant. */
import type { Kysely, SelectQueryBuilder } from 'kysely'
import type { DB } from '../db/schema.ts'
import { pageWithTotal, windowTotal } from '../db/paging.ts'
import { likePattern, type PageRequest } from '../http/list.ts'

export interface DepartmentFilters {
  location?: number | undefined
  active?: boolean | undefined
  search?: string | undefined
}

const ORDER_COLUMNS = { id: 'd.id', name: 'd.name' } as const

function filtered<O>(query: SelectQueryBuilder<DB & { d: DB['departments'] }, 'd', O>, tenantId: number, f: DepartmentFilters) {
  let q = query.where('d.tenant_id', '=', tenantId)
  if (f.location !== undefined) q = q.where('d.location_id', '=', f.location)
  if (f.active !== undefined) q = q.where('d.active', '=', f.active)
  if (f.search !== undefined) q = q.where('d.name', 'ilike', likePattern(f.search))
  return q
}

/** A few rows per location: counting the matches directly is cheap, no kept row count needed. */
export async function countDepartments(db: Kysely<DB>, tenantId: number, f: DepartmentFilters): Promise<number> {
  const row = await filtered(db.selectFrom('departments as d'), tenantId, f)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** One page and the exact total in one round trip (db/paging.ts). */
export async function pageOfDepartments(db: Kysely<DB>, tenantId: number, f: DepartmentFilters, page: PageRequest) {
  const column = ORDER_COLUMNS[page.orderBy.field as keyof typeof ORDER_COLUMNS] ?? 'd.id'
  let query = filtered(db.selectFrom('departments as d'), tenantId, f)
    // The composite key keeps the join inside the tenant even if a row ever pointed elsewhere.
    .innerJoin('locations as l', (join) => join.onRef('l.id', '=', 'd.location_id').onRef('l.tenant_id', '=', 'd.tenant_id'))
    .select(['d.id', 'd.name', 'd.external_id', 'd.active', 'd.punchout_email', 'l.id as branch_id', 'l.name as branch_name'])
    .select(windowTotal.as('total_count'))
    .select((eb) =>
      // The headquarter is the tenant's first location; the subquery is uncorrelated, so it runs once.
      eb('l.id', '=', eb.selectFrom('locations').select((s) => s.fn.min('id').as('id')).where('tenant_id', '=', tenantId))
        .$castTo<boolean>()
        .as('headquarter'),
    )
    .orderBy(column, page.orderBy.direction)
  // Names repeat across locations (every location has a Finance): the id tie-breaker keeps pages stable.
  if (column !== 'd.id') query = query.orderBy('d.id', page.orderBy.direction)
  return pageWithTotal(await query.limit(page.pageSize).offset(page.offset).execute(), page, () => countDepartments(db, tenantId, f))
}

export type DepartmentRow = Awaited<ReturnType<typeof pageOfDepartments>>['rows'][number]
