/** SQL for legal entities. Every query is scoped to one tenant. */
import type { Kysely, SelectQueryBuilder } from 'kysely'
import type { DB } from '../db/schema.ts'
import { pageWithTotal, windowTotal } from '../db/paging.ts'
import { likePattern, type PageRequest } from '../http/list.ts'

export interface LegalEntityFilters {
  active?: boolean | undefined
  search?: string | undefined
}

const ORDER_COLUMNS = { id: 'e.id', name: 'e.name' } as const

function filtered<O>(query: SelectQueryBuilder<DB & { e: DB['legal_entities'] }, 'e', O>, tenantId: number, f: LegalEntityFilters) {
  let q = query.where('e.tenant_id', '=', tenantId)
  if (f.active !== undefined) q = q.where('e.active', '=', f.active)
  if (f.search !== undefined) q = q.where('e.name', 'ilike', likePattern(f.search))
  return q
}

/** Counts the matches (small tables: no kept row count needed); used only for a page past the end. */
export async function countLegalEntities(db: Kysely<DB>, tenantId: number, f: LegalEntityFilters): Promise<number> {
  const row = await filtered(db.selectFrom('legal_entities as e'), tenantId, f)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

const selectLegalEntities = (db: Kysely<DB>) => db.selectFrom('legal_entities as e').select(['e.id', 'e.uuid', 'e.name', 'e.active'])

export type LegalEntityRow = Awaited<ReturnType<ReturnType<typeof selectLegalEntities>['executeTakeFirstOrThrow']>>

/** One page and the exact total in one round trip (db/paging.ts). */
export async function pageOfLegalEntities(db: Kysely<DB>, tenantId: number, f: LegalEntityFilters, page: PageRequest) {
  const column = ORDER_COLUMNS[page.orderBy.field as keyof typeof ORDER_COLUMNS] ?? 'e.id'
  let query = filtered(selectLegalEntities(db).select(windowTotal.as('total_count')), tenantId, f).orderBy(column, page.orderBy.direction)
  // Names are not unique: the id tie-breaker keeps rows from moving between pages.
  if (column !== 'e.id') query = query.orderBy('e.id', page.orderBy.direction)
  return pageWithTotal(await query.limit(page.pageSize).offset(page.offset).execute(), page, () => countLegalEntities(db, tenantId, f))
}
