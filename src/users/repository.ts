/** SQL for users and their profiles. Every query is scoped to one tenant; the caller owns transactions. */
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely'
import type { DB } from '../db/schema.ts'
import { keptTotal, pageWithTotal, windowTotal } from '../db/paging.ts'
import { likePattern, type PageRequest } from '../http/list.ts'

export interface UserFilters {
  is_active?: boolean | undefined
  location?: number | undefined
  pending_invite?: boolean | undefined
  role?: number | undefined
  search?: string | undefined
}

type Json<T> = T
export interface Summary {
  id: number
  name: string
  headquarter: boolean
}
export interface DelegateeJson {
  id: number
  firstName: string
  lastName: string
  email: string
  role: { name: string; type: number }
  profile_image: string
}
export type Counts = Record<'order' | 'expense' | 'travel' | 'bill' | 'payment', number>

const pendingCounts = sql<Json<Counts>>`(
  select json_build_object(
    'order', count(*) filter (where a.kind = 'order'), 'expense', count(*) filter (where a.kind = 'expense'),
    'travel', count(*) filter (where a.kind = 'travel'), 'bill', count(*) filter (where a.kind = 'bill'),
    'payment', count(*) filter (where a.kind = 'payment'))
  from approvals a where a.approver_id = u.id and a.status = 'pending')`

function selectProfiles(db: Kysely<DB>, tenantId: number) {
  const hq = sql<number>`(select min(h.id) from locations h where h.tenant_id = ${tenantId})`
  return db
    .selectFrom('user_profiles as p')
    .innerJoin('users as u', 'u.id', 'p.user_id')
    .innerJoin('roles as r', 'r.id', 'p.role_id')
    .leftJoin('departments as d', 'd.id', 'p.department_id')
    .leftJoin('locations as dl', 'dl.id', 'd.location_id')
    .leftJoin('locations as pl', 'pl.id', 'p.location_id')
    .leftJoin('delegations as del', (join) => join.onRef('del.user_id', '=', 'u.id').on('del.active', '=', true))
    .leftJoin('user_profiles as dp', 'dp.user_id', 'del.delegatee_id')
    .leftJoin('users as du', 'du.id', 'del.delegatee_id')
    .leftJoin('roles as dr', 'dr.id', 'dp.role_id')
    .where('p.tenant_id', '=', tenantId)
    .select([
      'p.id', 'p.user_id', 'p.first_name', 'p.last_name', 'p.phone', 'p.position', 'p.address', 'p.profile_image', 'p.notifications',
      'p.mobile', 'p.chat_user_id', 'p.is_sso_enabled', 'p.last_changed_by', 'p.created_at', 'p.updated_at', 'p.department_id', 'p.role_id',
      'u.email', 'u.is_active', 'u.pending_invite',
      'r.name as role_name', 'r.type as role_type', 'r.tier as role_tier',
      'del.expected_return_date',
      sql<Json<{ id: number; name: string; location: Summary } | null>>`case when d.id is null then null else
        json_build_object('id', d.id, 'name', d.name, 'location', json_build_object('id', dl.id, 'name', dl.name, 'headquarter', dl.id = ${hq})) end`.as('department'),
      sql<Json<Summary | null>>`case when pl.id is null then null else json_build_object('id', pl.id, 'name', pl.name, 'headquarter', pl.id = ${hq}) end`.as('location'),
      sql<Json<DelegateeJson | null>>`case when dp.id is null then null else json_build_object('id', dp.id, 'firstName', dp.first_name,
        'lastName', dp.last_name, 'email', du.email, 'role', json_build_object('name', dr.name, 'type', dr.type), 'profile_image', dp.profile_image) end`.as('delegatee'),
      pendingCounts.as('pending'),
    ])
}
export type ProfileRow = Awaited<ReturnType<ReturnType<typeof selectProfiles>['executeTakeFirstOrThrow']>>

function filtered<O>(q: SelectQueryBuilder<DB & { p: DB['user_profiles']; u: DB['users'] }, 'p' | 'u', O>, f: UserFilters) {
  if (f.is_active !== undefined) q = q.where('u.is_active', '=', f.is_active)
  if (f.pending_invite !== undefined) q = q.where('u.pending_invite', '=', f.pending_invite)
  if (f.role !== undefined) q = q.where('p.role_id', '=', f.role)
  if (f.location !== undefined) {
    const at = f.location
    q = q.where((eb) => eb.or([eb('p.location_id', '=', at), eb.exists(eb.selectFrom('user_locations as ul').select('ul.user_id').whereRef('ul.user_id', '=', 'u.id').where('ul.location_id', '=', at))]))
  }
  if (f.search !== undefined) {
    const pattern = likePattern(f.search)
    q = q.where((eb) => eb.or([eb('p.first_name', 'ilike', pattern), eb('p.last_name', 'ilike', pattern), eb('u.email', 'ilike', pattern), eb(sql`p.first_name || ' ' || p.last_name`, 'ilike', pattern)]))
  }
  return q
}

const ORDER = { id: 'p.id', email: 'u.email', firstName: 'p.first_name', lastName: 'p.last_name' } as const

/** One page and the exact total in one round trip (db/paging.ts). */
export async function pageOfProfiles(db: Kysely<DB>, tenantId: number, f: UserFilters, page: PageRequest): Promise<{ rows: ProfileRow[]; count: number }> {
  const unfiltered = Object.values(f).every((v) => v === undefined)
  const total = unfiltered ? keptTotal(tenantId, 'users') : windowTotal
  const column = ORDER[page.orderBy.field as keyof typeof ORDER] ?? 'p.id'
  let q = filtered(selectProfiles(db, tenantId).select(total.as('total_count')), f).orderBy(column, page.orderBy.direction)
  if (column !== 'p.id') q = q.orderBy('p.id', page.orderBy.direction)
  return pageWithTotal(await q.limit(page.pageSize).offset(page.offset).execute(), page, async () => {
    const counted = await filtered(db.selectFrom('user_profiles as p').innerJoin('users as u', 'u.id', 'p.user_id').where('p.tenant_id', '=', tenantId), f)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow()
    return Number(counted.n)
  })
}

export const findProfile = (db: Kysely<DB>, tenantId: number, profileId: number) =>
  selectProfiles(db, tenantId).where('p.id', '=', profileId).executeTakeFirst()

export const findProfileOfUser = (db: Kysely<DB>, tenantId: number, userId: number) =>
  selectProfiles(db, tenantId).where('p.user_id', '=', userId).executeTakeFirst()

export const profilesOfUsers = (db: Kysely<DB>, tenantId: number, userIds: number[]) =>
  userIds.length === 0 ? Promise.resolve([]) : selectProfiles(db, tenantId).where('p.user_id', 'in', userIds).execute()

/** What a create or update may refer to, loaded once for a whole batch. */
export async function referenceData(db: Kysely<DB>, tenantId: number) {
  const [roles, locations, departments, legalEntities] = await Promise.all([
    db.selectFrom('roles').select(['id', 'type']).where('tenant_id', '=', tenantId).orderBy('type').orderBy('id').execute(),
    db.selectFrom('locations').select('id').where('tenant_id', '=', tenantId).execute(),
    db.selectFrom('departments').select(['id', 'location_id']).where('tenant_id', '=', tenantId).execute(),
    db.selectFrom('legal_entities').select('id').where('tenant_id', '=', tenantId).execute(),
  ])
  return {
    roles: new Set(roles.map((r) => r.id)),
    /** Users created without a role get the tenant's least-privileged role: the lowest type, then the oldest. */
    defaultRole: roles[0]?.id,
    locations: new Set(locations.map((l) => l.id)),
    departmentLocation: new Map(departments.map((d) => [d.id, d.location_id])),
    legalEntities: new Set(legalEntities.map((l) => l.id)),
  }
}
export type ReferenceData = Awaited<ReturnType<typeof referenceData>>

/** Which of these e-mails (lower-cased) already belong to a user of the tenant, other than `exceptUserId`. */
export async function takenEmails(db: Kysely<DB>, tenantId: number, emails: string[], exceptUserId?: number): Promise<Set<string>> {
  if (emails.length === 0) return new Set()
  let q = db.selectFrom('users').select(sql<string>`lower(email)`.as('email')).where('tenant_id', '=', tenantId).where(sql`lower(email)`, 'in', emails)
  if (exceptUserId !== undefined) q = q.where('id', '<>', exceptUserId)
  return new Set((await q.execute()).map((r) => r.email))
}
