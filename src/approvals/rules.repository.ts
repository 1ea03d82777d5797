/** SQL for approval rules. Every query is scoped to one tenant; approvers are stored as user ids. */
import { sql, type Kysely } from 'kysely'
import { listSql } from '../db/list.ts'
import type { DB, DocumentType } from '../db/schema.ts'
import { ApprovalRuleListQuery } from './schema.ts'

/** Rules with their approvers as profile ids (the ids of /api/v3/users/{id}/), in the order given. */
function selectRules(db: Kysely<DB>) {
  return db.selectFrom('approval_rules as ar').select([
    'ar.id',
    'ar.location_id',
    'ar.step',
    'ar.active',
    'ar.document',
    'ar.approvers as approver_users',
    sql<string>`ar.min_total::text`.as('min_total'),
    sql<number[]>`array(select p.id from unnest(ar.approvers) with ordinality as x(u, n)
        join user_profiles p on p.user_id = x.u order by x.n)`.as('approvers'),
  ])
}
export type RuleRow = Awaited<ReturnType<ReturnType<typeof selectRules>['executeTakeFirstOrThrow']>>

export const pageOfRules = listSql(ApprovalRuleListQuery, {
  select: selectRules,
  tenant: 'ar.tenant_id',
  id: 'ar.id',
  order: { step: 'ar.step' },
  search: [],
  filters: {
    location: 'ar.location_id',
    active: 'ar.active',
    document: 'ar.document',
    updated_since: (since) => sql<boolean>`ar.updated_at >= ${since}`,
  },
})

export const findRule = (db: Kysely<DB>, tenantId: number, id: number) =>
  selectRules(db).where('ar.tenant_id', '=', tenantId).where('ar.id', '=', id).executeTakeFirst()

/** The active rules for a document of this type at `locationId` with this total, by step. */
export const matchingRules = (
  db: Kysely<DB>,
  tenantId: number,
  document: DocumentType,
  locationId: number,
  total: string,
) =>
  selectRules(db)
    .where('ar.tenant_id', '=', tenantId)
    .where('ar.active', '=', true)
    .where('ar.document', '=', document)
    .where((eb) => eb.or([eb('ar.location_id', 'is', null), eb('ar.location_id', '=', locationId)]))
    .where(sql<boolean>`ar.min_total <= ${total}::numeric`)
    .orderBy('ar.step')
    .orderBy('ar.id')
    .execute()

export const locationExists = async (db: Kysely<DB>, tenantId: number, id: number) =>
  (await db
    .selectFrom('locations')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst()) !== undefined

export interface RuleValues {
  location_id: number | null
  min_total: string
  step: number
  approvers: number[]
  active: boolean
  document: DocumentType
}

export async function insertRule(db: Kysely<DB>, tenantId: number, v: RuleValues) {
  const row = await db
    .insertInto('approval_rules')
    .values({ tenant_id: tenantId, ...v })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

export async function updateRule(db: Kysely<DB>, tenantId: number, id: number, v: RuleValues) {
  const r = await db
    .updateTable('approval_rules')
    .set({ ...v, updated_at: new Date() })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst()
  return r.numUpdatedRows > 0n
}

export async function deleteRule(db: Kysely<DB>, tenantId: number, id: number) {
  const r = await db
    .deleteFrom('approval_rules')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst()
  return r.numDeletedRows > 0n
}
