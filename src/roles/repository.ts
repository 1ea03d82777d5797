/** SQL for roles and their permissions. Every query is scoped to one tenant. */
import { sql, type Kysely } from 'kysely'
import type { DB, PermissionKey } from '../db/schema.ts'

export interface RoleRow {
  id: number
  name: string
  type: number
  tier: 'Basic' | 'Pro'
  permissions: PermissionKey[]
}

export async function findRole(db: Kysely<DB>, tenantId: number, id: number, lock = false) {
  let q = db
    .selectFrom('roles as r')
    .select(['r.id', 'r.name', 'r.type', 'r.tier'])
    .select((eb) =>
      sql<PermissionKey[]>`array(${eb
        .selectFrom('role_permissions as rp')
        .innerJoin('permissions as p', 'p.id', 'rp.permission_id')
        .select('p.key')
        .whereRef('rp.tenant_id', '=', 'r.tenant_id')
        .whereRef('rp.role_id', '=', 'r.id')
        .orderBy(sql`p.key collate "C"`)})`.as('permissions'),
    )
    .where('r.tenant_id', '=', tenantId)
    .where('r.id', '=', id)
  if (lock) q = q.forUpdate('r')
  return (await q.executeTakeFirst()) as RoleRow | undefined
}

export async function nameTaken(db: Kysely<DB>, tenantId: number, name: string, exceptId?: number) {
  let q = db
    .selectFrom('roles')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where(sql`lower(name)`, '=', name.toLowerCase())
  if (exceptId !== undefined) q = q.where('id', '<>', exceptId)
  return (await q.executeTakeFirst()) !== undefined
}

export async function insertRole(
  db: Kysely<DB>,
  tenantId: number,
  values: { name: string; type: number; tier: 'Basic' | 'Pro' },
): Promise<number> {
  const row = await db
    .insertInto('roles')
    .values({ tenant_id: tenantId, ...values })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

export async function updateRole(
  db: Kysely<DB>,
  tenantId: number,
  id: number,
  values: { name: string; type: number; tier: 'Basic' | 'Pro' },
): Promise<void> {
  await db.updateTable('roles').set(values).where('tenant_id', '=', tenantId).where('id', '=', id).execute()
}

/** Replaces the role's permissions with exactly `keys`. */
export async function setPermissions(db: Kysely<DB>, tenantId: number, roleId: number, keys: PermissionKey[]) {
  await db.deleteFrom('role_permissions').where('tenant_id', '=', tenantId).where('role_id', '=', roleId).execute()
  if (keys.length === 0) return
  await db
    .insertInto('role_permissions')
    .columns(['tenant_id', 'role_id', 'permission_id'])
    .expression((eb) =>
      eb
        .selectFrom('permissions')
        .select([sql<number>`${tenantId}::int`.as('tenant_id'), sql<number>`${roleId}::int`.as('role_id'), 'id'])
        .where('key', 'in', keys),
    )
    .execute()
}

/** How many profiles have the role and how many grants name it. */
export async function uses(db: Kysely<DB>, tenantId: number, roleId: number) {
  const row = await sql<{ profiles: string; grants: string }>`select
    (select count(*) from user_profiles where tenant_id = ${tenantId} and role_id = ${roleId}) as profiles,
    (select count(*) from role_grants where tenant_id = ${tenantId} and role_id = ${roleId}) as grants`.execute(db)
  const r = row.rows[0]!
  return { profiles: Number(r.profiles), grants: Number(r.grants) }
}

export async function deleteRole(db: Kysely<DB>, tenantId: number, roleId: number): Promise<void> {
  await db.deleteFrom('role_permissions').where('tenant_id', '=', tenantId).where('role_id', '=', roleId).execute()
  await db.deleteFrom('roles').where('tenant_id', '=', tenantId).where('id', '=', roleId).execute()
}
