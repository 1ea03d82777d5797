/** SQL of permissions by location (location-permissions.ts): what a user holds where, and who holds a key there. */
import { sql, type Kysely } from 'kysely'
import type { DB, PermissionKey } from '../db/schema.ts'
import { delegationActive } from './approvers.ts'

/** The (location, key) pairs a user holds at locations: grants at L, and the profile role at their locations. */
export async function locationPermissionRows(db: Kysely<DB>, tenantId: number, userId: number) {
  const result = await sql<{ location_id: number; key: PermissionKey }>`
    select g.location_id, p.key from role_grants g
      join role_permissions rp on rp.tenant_id = g.tenant_id and rp.role_id = g.role_id
      join permissions p on p.id = rp.permission_id
      where g.tenant_id = ${tenantId} and g.user_id = ${userId} and g.location_id is not null
    union
    select l.id, p.key from user_profiles up
      join role_permissions rp on rp.tenant_id = up.tenant_id and rp.role_id = up.role_id
      join permissions p on p.id = rp.permission_id
      join locations l on l.tenant_id = up.tenant_id and (up.all_locations or exists (select 1 from user_locations ul
        where ul.tenant_id = up.tenant_id and ul.user_id = up.user_id and ul.location_id = l.id))
      where up.tenant_id = ${tenantId} and up.user_id = ${userId}`.execute(db)
  return result.rows
}

/** Which of these users (active, of the tenant) hold `key` at the location, or are superusers. */
export async function holderRows(
  db: Kysely<DB>,
  tenantId: number,
  userIds: readonly number[],
  locationId: number,
  key: PermissionKey,
) {
  const roleHas = (role: ReturnType<typeof sql.ref>, k: PermissionKey) =>
    sql`exists (select 1 from role_permissions rp join permissions p on p.id = rp.permission_id
      where rp.tenant_id = ${tenantId} and rp.role_id = ${role} and p.key = ${k})`
  const result = await sql<{ id: number }>`
    select u.id from users u join user_profiles up on up.tenant_id = u.tenant_id and up.user_id = u.id
    where u.tenant_id = ${tenantId} and u.is_active and u.id = any(${[...userIds]}::int[]) and (
      ${roleHas(sql.ref('up.role_id'), 'superuser')}
      or exists (select 1 from role_grants g where g.tenant_id = u.tenant_id and g.user_id = u.id and g.location_id is null
        and ${roleHas(sql.ref('g.role_id'), 'superuser')})
      or exists (select 1 from role_grants g where g.tenant_id = u.tenant_id and g.user_id = u.id
        and g.location_id = ${locationId} and ${roleHas(sql.ref('g.role_id'), key)})
      or (${roleHas(sql.ref('up.role_id'), key)} and (up.all_locations or exists (select 1 from user_locations ul
        where ul.tenant_id = u.tenant_id and ul.user_id = u.id and ul.location_id = ${locationId}))))`.execute(db)
  return result.rows
}

/** Which of `candidates` are away now with a delegation to `delegatee`. */
export async function awayCandidatesDelegatingTo(
  db: Kysely<DB>,
  tenantId: number,
  delegatee: number,
  candidates: readonly number[],
): Promise<number[]> {
  if (candidates.length === 0) return []
  const result = await sql<{ user_id: number }>`
    select d.user_id from delegations d
    where d.tenant_id = ${tenantId} and d.delegatee_id = ${delegatee} and d.user_id = any(${[...candidates]}::int[])
      and ${delegationActive('d')}`.execute(db)
  return result.rows.map((r) => r.user_id)
}
