/** SQL for roles. Every query is scoped to one tenant. */
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely'
import type { DB, PermissionKey } from '../db/schema.ts'
import { pageWithTotal, windowTotal } from '../db/paging.ts'
import { likePattern, type PageRequest } from '../http/list.ts'

export interface RoleFilters {
  search?: string | undefined
}

const ORDER_COLUMNS = { id: 'r.id', name: 'r.name' } as const

function filtered<O>(query: SelectQueryBuilder<DB & { r: DB['roles'] }, 'r', O>, tenantId: number, f: RoleFilters) {
  let q = query.where('r.tenant_id', '=', tenantId)
  if (f.search !== undefined) q = q.where('r.name', 'ilike', likePattern(f.search))
  return q
}

/** Counts the matches (small tables: no kept row count needed); used only for a page past the end. */
export async function countRoles(db: Kysely<DB>, tenantId: number, f: RoleFilters): Promise<number> {
  const row = await filtered(db.selectFrom('roles as r'), tenantId, f)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** Each role with its permission keys gathered by an array subquery: one query per page, not one per role. */
const selectRoles = (db: Kysely<DB>) =>
  db
    .selectFrom('roles as r')
    .select(['r.id', 'r.name', 'r.type', 'r.tier'])
    .select((eb) => {
      const keys = eb
        .selectFrom('role_permissions as rp')
        .innerJoin('permissions as p', 'p.id', 'rp.permission_id')
        .select('p.key')
        .whereRef('rp.role_id', '=', 'r.id')
        // Byte order, not the database's collation, so both engines (and JavaScript's sort) agree.
        .orderBy(sql`p.key collate "C"`)
      return sql<PermissionKey[]>`array(${keys})`.as('permissions')
    })

export type RoleRow = Awaited<ReturnType<ReturnType<typeof selectRoles>['executeTakeFirstOrThrow']>>

/** One page and the exact total in one round trip (db/paging.ts). */
export async function pageOfRoles(db: Kysely<DB>, tenantId: number, f: RoleFilters, page: PageRequest) {
  const column = ORDER_COLUMNS[page.orderBy.field as keyof typeof ORDER_COLUMNS] ?? 'r.id'
  let query = filtered(selectRoles(db).select(windowTotal.as('total_count')), tenantId, f).orderBy(column, page.orderBy.direction)
  // Names are unique per tenant (case-insensitively), but the id tie-breaker keeps pages stable regardless.
  if (column !== 'r.id') query = query.orderBy('r.id', page.orderBy.direction)
  return pageWithTotal(await query.limit(page.pageSize).offset(page.offset).execute(), page, () => countRoles(db, tenantId, f))
}
