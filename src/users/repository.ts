/** SQL for users and their profiles. Every query is scoped to one tenant; the caller owns transactions. */
import { sql, type Kysely } from 'kysely'
import type { Static } from 'typebox'
import { delegationActive, pendingCount } from '../access/approvers.ts'
import { emailIn, emailIs, emailKeyOf } from '../db/email.ts'
import { listSql } from '../db/list.ts'
import { byTenant } from '../db/joins.ts'
import type { ApprovalKind, DB } from '../db/schema.ts'
import type { LocationSummary } from '../lookups/schema.ts'
import { UserListQuery, type Delegatee, type DepartmentSummary, type PendingApprovals } from './schema.ts'

type Summary = Static<typeof LocationSummary>
type Department = Static<typeof DepartmentSummary>
type Counts = Static<typeof PendingApprovals>

/** Whether the profile row's user is away: the row already joins their delegation in force (`del`). */
const rowAway = sql<boolean>`(${sql.ref('del.user_id')} is not null)`

/**
 * A profile row's pending order approvals, live (access/approvers.ts), away-ness a test of the row's join, not
 * another probe. Exported for the benchmark, which takes it out of the page statement for its "no counts" floor.
 */
export const profilePendingOrders = pendingCount(sql.ref('u.id'), sql.ref('u.tenant_id'), 'order', rowAway)

const pendingOf = (kind: ApprovalKind) => pendingCount(sql.ref('u.id'), sql.ref('u.tenant_id'), kind, rowAway)

/**
 * Pending approvals per kind: orders (requests and purchase orders), expense reports, travel requests, bills,
 * and payments (payment requests and payment runs) — each document's handler names its kind.
 */
const pendingCounts = sql<Counts>`json_build_object('order', ${profilePendingOrders},
  'expense', ${pendingOf('expense')}, 'travel', ${pendingOf('travel')}, 'bill', ${pendingOf('bill')},
  'payment', ${pendingOf('payment')})`

function selectProfiles(db: Kysely<DB>, tenantId: number) {
  const hq = sql<number>`(select min(h.id) from locations h where h.tenant_id = ${tenantId})`
  return db
    .selectFrom('user_profiles as p')
    .innerJoin('users as u', byTenant('u', 'p.user_id'))
    .innerJoin('roles as r', byTenant('r', 'p.role_id'))
    .leftJoin('departments as d', byTenant('d', 'p.department_id'))
    .leftJoin('locations as dl', byTenant('dl', 'd.location_id'))
    .leftJoin('locations as pl', byTenant('pl', 'p.location_id'))
    .leftJoin('delegations as del', (join) =>
      join.onRef('del.tenant_id', '=', 'u.tenant_id').onRef('del.user_id', '=', 'u.id').on(delegationActive('del')),
    )
    .leftJoin('user_profiles as dp', byTenant('dp', 'del.delegatee_id', 'user_id'))
    .leftJoin('users as du', byTenant('du', 'del.delegatee_id'))
    .leftJoin('roles as dr', byTenant('dr', 'dp.role_id'))
    .select([
      'p.id',
      'p.user_id',
      'p.first_name',
      'p.last_name',
      'p.phone',
      'p.position',
      'p.address',
      'p.profile_image',
      'p.notifications',
      'p.mobile',
      'p.chat_user_id',
      'p.is_sso_enabled',
      'p.last_changed_by',
      'p.created_at',
      'p.updated_at',
      'p.department_id',
      'p.role_id',
      'u.email',
      'u.is_active',
      'u.pending_invite',
      'r.name as role_name',
      'r.type as role_type',
      'r.tier as role_tier',
      'del.expected_return_date',
      sql<Department | null>`case when d.id is null then null else
        json_build_object('id', d.id, 'name', d.name, 'location', json_build_object('id', dl.id, 'name', dl.name, 'headquarter', dl.id = ${hq})) end`.as(
        'department',
      ),
      sql<Summary | null>`case when pl.id is null then null else json_build_object('id', pl.id, 'name', pl.name, 'headquarter', pl.id = ${hq}) end`.as(
        'location',
      ),
      sql<Static<
        typeof Delegatee
      > | null>`case when dp.id is null then null else json_build_object('id', dp.id, 'firstName', dp.first_name,
        'lastName', dp.last_name, 'email', du.email, 'role', json_build_object('name', dr.name, 'type', dr.type), 'profile_image', dp.profile_image) end`.as(
        'delegatee',
      ),
      pendingCounts.as('pending'),
    ])
}
export type ProfileRow = Awaited<ReturnType<ReturnType<typeof selectProfiles>['executeTakeFirstOrThrow']>>

/** One page and its exact total in one round trip; unfiltered, the total is the kept row count. */
export const pageOfProfiles = listSql(UserListQuery, {
  select: selectProfiles,
  tenant: 'p.tenant_id',
  id: 'p.id',
  order: { email: 'u.email', firstName: 'p.first_name', lastName: 'p.last_name' },
  search: ['p.first_name', 'p.last_name', 'u.email', sql<string>`p.first_name || ' ' || p.last_name`],
  filters: {
    is_active: 'u.is_active',
    pending_invite: 'u.pending_invite',
    role: 'p.role_id',
    location: (at: number) =>
      sql<boolean>`(p.location_id = ${at} or exists (select 1 from user_locations ul
        where ul.tenant_id = u.tenant_id and ul.user_id = u.id and ul.location_id = ${at}))`,
    updated_since: (since) => sql<boolean>`greatest(u.updated_at, p.updated_at) >= ${since}`,
  },
  counted: 'users',
})

export const findProfile = (db: Kysely<DB>, tenantId: number, profileId: number) =>
  selectProfiles(db, tenantId).where('p.tenant_id', '=', tenantId).where('p.id', '=', profileId).executeTakeFirst()

export const findProfileOfUser = (db: Kysely<DB>, tenantId: number, userId: number) =>
  selectProfiles(db, tenantId).where('p.tenant_id', '=', tenantId).where('p.user_id', '=', userId).executeTakeFirst()

export const profilesOfUsers = (db: Kysely<DB>, tenantId: number, userIds: number[]) =>
  userIds.length === 0
    ? Promise.resolve([])
    : selectProfiles(db, tenantId).where('p.tenant_id', '=', tenantId).where('p.user_id', 'in', userIds).execute()

/** What a create or update may refer to, loaded once for a whole batch. */
export async function referenceData(db: Kysely<DB>, tenantId: number) {
  const [roles, locations, departments, legalEntities] = await Promise.all([
    db
      .selectFrom('roles')
      .select(['id', 'type'])
      .where('tenant_id', '=', tenantId)
      .orderBy('type')
      .orderBy('id')
      .execute(),
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

/** Which of these e-mails already belong to a user of the tenant, other than `exceptUserId`: their keys (db/email.ts). */
export async function takenEmails(
  db: Kysely<DB>,
  tenantId: number,
  emails: string[],
  exceptUserId?: number,
): Promise<Set<string>> {
  if (emails.length === 0) return new Set()
  let q = db
    .selectFrom('users')
    .select(emailKeyOf('email').as('email'))
    .where('tenant_id', '=', tenantId)
    .where(emailIn('email', emails))
  if (exceptUserId !== undefined) q = q.where('id', '<>', exceptUserId)
  return new Set((await q.execute()).map((r) => r.email))
}

/** Users with this e-mail (db/email.ts) in every tenant, or in the one named: the operator's look-up. */
export function usersByEmail(db: Kysely<DB>, email: string, domain?: string) {
  let query = db
    .selectFrom('users as u')
    .innerJoin('tenants as t', 't.id', 'u.tenant_id')
    .select(['u.id as userId', 'u.tenant_id as tenantId', 't.domain', 'u.is_active'])
    .where(emailIs('u.email', email))
  if (domain !== undefined) query = query.where('t.domain', '=', domain)
  return query.execute()
}

/** The ids of the user's legal entities (an edit that does not change them keeps them). */
export const legalEntitiesOf = async (db: Kysely<DB>, tenantId: number, userId: number) =>
  (
    await db
      .selectFrom('user_legal_entities')
      .select('legal_entity_id')
      .where('tenant_id', '=', tenantId)
      .where('user_id', '=', userId)
      .orderBy('legal_entity_id')
      .execute()
  ).map((r) => r.legal_entity_id)

/** The users (ids) of these profiles of the tenant, by profile id; profiles of another tenant are left out. */
export async function usersOfProfiles(db: Kysely<DB>, tenantId: number, profileIds: number[]) {
  if (profileIds.length === 0) return new Map<number, number>()
  const rows = await db
    .selectFrom('user_profiles')
    .select(['id', 'user_id'])
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', profileIds)
    .execute()
  return new Map(rows.map((r) => [r.id, r.user_id]))
}
