/** SQL for approval rules. Every query is scoped to one tenant; approvers are stored as user ids. */
import { sql, type Kysely } from 'kysely'
import { listSql } from '../db/list.ts'
import { byTenant } from '../db/joins.ts'
import type { DB, DocumentType } from '../db/schema.ts'
import { ApprovalRuleListQuery, type Person } from './schema.ts'

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
        join user_profiles p on p.tenant_id = ar.tenant_id and p.user_id = x.u order by x.n)`.as('approvers'),
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

export const locationName = async (db: Kysely<DB>, tenantId: number, id: number) =>
  (
    await db
      .selectFrom('locations')
      .select('name')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst()
  )?.name

/** The tenant's location ids, ascending. */
export const locationIds = async (db: Kysely<DB>, tenantId: number) =>
  (await db.selectFrom('locations').select('id').where('tenant_id', '=', tenantId).orderBy('id').execute()).map(
    (r) => r.id,
  )

/** The currency's rate (units of it per one unit of the base currency), as text; undefined when it is not there. */
export const currencyRate = async (db: Kysely<DB>, tenantId: number, id: number) =>
  (
    await db
      .selectFrom('currencies')
      .select(sql<string>`rate::text`.as('rate'))
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst()
  )?.rate

export const currencyByName = (db: Kysely<DB>, tenantId: number, name: string) =>
  db
    .selectFrom('currencies')
    .select(['id', sql<string>`rate::text`.as('rate')])
    .where('tenant_id', '=', tenantId)
    .where('name', '=', name)
    .executeTakeFirst()

export const userOfProfile = async (db: Kysely<DB>, tenantId: number, profileId: number) =>
  (
    await db
      .selectFrom('user_profiles')
      .select('user_id')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', profileId)
      .executeTakeFirstOrThrow()
  ).user_id

/** These users (user ids) as requests and approvals show people: profile id, names, e-mail. */
export async function people(db: Kysely<DB>, tenantId: number, userIds: readonly number[]) {
  if (userIds.length === 0) return new Map<number, Person>()
  const rows = await db
    .selectFrom('user_profiles as p')
    .innerJoin('users as u', byTenant('u', 'p.user_id'))
    .select(['u.id as user_id', 'p.id', 'p.first_name', 'p.last_name', 'u.email'])
    .where('p.tenant_id', '=', tenantId)
    .where('u.id', 'in', [...userIds])
    .execute()
  return new Map(rows.map(({ user_id, ...person }) => [user_id, person]))
}

/** How messages name these users (user ids): "First Last (user 7)", by the profile id the API shows. */
export async function userNames(db: Kysely<DB>, tenantId: number, userIds: readonly number[]) {
  if (userIds.length === 0) return new Map<number, string>()
  const rows = await db
    .selectFrom('user_profiles as p')
    .innerJoin('users as u', byTenant('u', 'p.user_id'))
    .select(['u.id', 'p.id as profile_id', 'p.first_name', 'p.last_name', 'u.email'])
    .where('u.tenant_id', '=', tenantId)
    .where('u.id', 'in', [...userIds])
    .execute()
  return new Map(
    rows.map((r) => {
      const name = `${r.first_name} ${r.last_name}`.trim() || r.email
      return [r.id, `${name} (user ${r.profile_id})`]
    }),
  )
}

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
