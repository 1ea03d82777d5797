/** SQL for SCIM: people as the identity provider sees them (with their externalId), and its groups. */
import { sql, type Kysely } from 'kysely'
import { emailIs } from '../db/email.ts'
import type { DB } from '../db/schema.ts'
import type { Equality } from './filter.ts'

export interface Paging {
  /** 1-based, as SCIM counts. */
  startIndex: number
  count: number
}

function usersQuery(db: Kysely<DB>, tenantId: number) {
  return db
    .selectFrom('users as u')
    .innerJoin('user_profiles as p', (j) => j.onRef('p.tenant_id', '=', 'u.tenant_id').onRef('p.user_id', '=', 'u.id'))
    .leftJoin('scim_users as s', (j) => j.onRef('s.tenant_id', '=', 'u.tenant_id').onRef('s.user_id', '=', 'u.id'))
    .where('u.tenant_id', '=', tenantId)
}

const USER_COLUMNS = [
  'p.id',
  'u.id as user_id',
  'u.email',
  'u.is_active',
  'p.first_name',
  'p.last_name',
  's.external_id',
  'u.created_at',
  'p.updated_at',
] as const

export type UserRow = Awaited<ReturnType<typeof findUser>> & object

export const findUser = (db: Kysely<DB>, tenantId: number, profileId: number) =>
  usersQuery(db, tenantId).select(USER_COLUMNS).where('p.id', '=', profileId).executeTakeFirst()

export async function listUsers(db: Kysely<DB>, tenantId: number, filter: Equality | undefined, paging: Paging) {
  let query = usersQuery(db, tenantId)
  if (filter !== undefined) {
    query =
      filter.attribute === 'externalId'
        ? query.where('s.external_id', '=', filter.value)
        : query.where(emailIs('u.email', filter.value))
  }
  const [total, rows] = await Promise.all([
    query.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
    query
      .select(USER_COLUMNS)
      .orderBy('p.id')
      .offset(paging.startIndex - 1)
      .limit(paging.count)
      .execute(),
  ])
  return { total: Number(total.n), rows }
}

/** The groups of these users (user id → [{id, display_name}]). */
export async function groupsOfUsers(db: Kysely<DB>, tenantId: number, userIds: number[]) {
  if (userIds.length === 0) return new Map<number, { id: number; display_name: string }[]>()
  const rows = await db
    .selectFrom('scim_group_members as m')
    .innerJoin('scim_groups as g', (j) => j.onRef('g.tenant_id', '=', 'm.tenant_id').onRef('g.id', '=', 'm.group_id'))
    .select(['m.user_id', 'g.id', 'g.display_name'])
    .where('m.tenant_id', '=', tenantId)
    .where('m.user_id', 'in', userIds)
    .orderBy('g.id')
    .execute()
  const byUser = new Map<number, { id: number; display_name: string }[]>()
  for (const r of rows) {
    const list = byUser.get(r.user_id) ?? []
    list.push({ id: r.id, display_name: r.display_name })
    byUser.set(r.user_id, list)
  }
  return byUser
}

export const userByEmail = (db: Kysely<DB>, tenantId: number, email: string) =>
  usersQuery(db, tenantId).select(USER_COLUMNS).where(emailIs('u.email', email)).executeTakeFirst()

export async function setExternalId(db: Kysely<DB>, tenantId: number, userId: number, externalId: string | null) {
  await db
    .insertInto('scim_users')
    .values({ tenant_id: tenantId, user_id: userId, external_id: externalId })
    .onConflict((oc) => oc.columns(['tenant_id', 'user_id']).doUpdateSet({ external_id: externalId }))
    .execute()
}

// Groups

const GROUP_COLUMNS = ['g.id', 'g.display_name', 'g.external_id', 'g.created_at', 'g.updated_at'] as const

export const findGroup = (db: Kysely<DB>, tenantId: number, id: number) =>
  db
    .selectFrom('scim_groups as g')
    .select(GROUP_COLUMNS)
    .where('g.tenant_id', '=', tenantId)
    .where('g.id', '=', id)
    .executeTakeFirst()

export type GroupRow = NonNullable<Awaited<ReturnType<typeof findGroup>>>

export async function listGroups(db: Kysely<DB>, tenantId: number, filter: Equality | undefined, paging: Paging) {
  let query = db.selectFrom('scim_groups as g').where('g.tenant_id', '=', tenantId)
  if (filter !== undefined) {
    query =
      filter.attribute === 'externalId'
        ? query.where('g.external_id', '=', filter.value)
        : query.where(sql`lower(g.display_name)`, '=', filter.value.toLowerCase())
  }
  const [total, rows] = await Promise.all([
    query.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
    query
      .select(GROUP_COLUMNS)
      .orderBy('g.id')
      .offset(paging.startIndex - 1)
      .limit(paging.count)
      .execute(),
  ])
  return { total: Number(total.n), rows }
}

export const groupByName = (db: Kysely<DB>, tenantId: number, name: string) =>
  db
    .selectFrom('scim_groups as g')
    .select(GROUP_COLUMNS)
    .where('g.tenant_id', '=', tenantId)
    .where(sql`lower(g.display_name)`, '=', name.toLowerCase())
    .executeTakeFirst()

/** Members of these groups (group id → [{profile id, e-mail, user id}]). */
export async function membersOf(db: Kysely<DB>, tenantId: number, groupIds: number[]) {
  const byGroup = new Map<number, { id: number; email: string; user_id: number }[]>()
  if (groupIds.length === 0) return byGroup
  const rows = await db
    .selectFrom('scim_group_members as m')
    .innerJoin('users as u', (j) => j.onRef('u.tenant_id', '=', 'm.tenant_id').onRef('u.id', '=', 'm.user_id'))
    .innerJoin('user_profiles as p', (j) =>
      j.onRef('p.tenant_id', '=', 'm.tenant_id').onRef('p.user_id', '=', 'm.user_id'),
    )
    .select(['m.group_id', 'p.id', 'u.email', 'u.id as user_id'])
    .where('m.tenant_id', '=', tenantId)
    .where('m.group_id', 'in', groupIds)
    .orderBy('p.id')
    .execute()
  for (const r of rows) {
    const list = byGroup.get(r.group_id) ?? []
    list.push({ id: r.id, email: r.email, user_id: r.user_id })
    byGroup.set(r.group_id, list)
  }
  return byGroup
}

export const insertGroup = (db: Kysely<DB>, tenantId: number, name: string, externalId: string | null) =>
  db
    .insertInto('scim_groups')
    .values({ tenant_id: tenantId, display_name: name, external_id: externalId })
    .returning(
      GROUP_COLUMNS.map(
        (c) => c.replace('g.', '') as 'id' | 'display_name' | 'external_id' | 'created_at' | 'updated_at',
      ),
    )
    .executeTakeFirstOrThrow()

export async function updateGroup(
  db: Kysely<DB>,
  tenantId: number,
  id: number,
  name: string,
  externalId: string | null,
) {
  await db
    .updateTable('scim_groups')
    .set({ display_name: name, external_id: externalId, updated_at: sql`now()` })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute()
}

export const deleteGroup = (db: Kysely<DB>, tenantId: number, id: number) =>
  db.deleteFrom('scim_groups').where('tenant_id', '=', tenantId).where('id', '=', id).execute()

/** Makes the group's members exactly `userIds`; returns who joined and who left. */
export async function replaceMembers(db: Kysely<DB>, tenantId: number, groupId: number, userIds: number[]) {
  const before = (
    await db
      .selectFrom('scim_group_members')
      .select('user_id')
      .where('tenant_id', '=', tenantId)
      .where('group_id', '=', groupId)
      .execute()
  ).map((r) => r.user_id)
  const wanted = new Set(userIds)
  const left = before.filter((u) => !wanted.has(u))
  const joined = [...wanted].filter((u) => !before.includes(u))
  if (left.length > 0)
    await db
      .deleteFrom('scim_group_members')
      .where('tenant_id', '=', tenantId)
      .where('group_id', '=', groupId)
      .where('user_id', 'in', left)
      .execute()
  if (joined.length > 0)
    await db
      .insertInto('scim_group_members')
      .values(joined.map((u) => ({ tenant_id: tenantId, group_id: groupId, user_id: u })))
      .execute()
  return { joined, left }
}
