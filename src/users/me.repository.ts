/** SQL for the current user's account: tenant, role grants with permissions, department. */
import { sql, type Kysely } from 'kysely'
import { delegationActive } from '../access/approvers.ts'
import type { DB } from '../db/schema.ts'

export const tenantOf = (db: Kysely<DB>, tenantId: number) =>
  db
    .selectFrom('tenants')
    .select(['domain', 'name', 'active'])
    // Single sign-on is on for everyone of the tenant while it has a configuration (profiles' is_sso_enabled).
    .select(sql<boolean>`exists (select 1 from sso_configs s where s.tenant_id = ${tenantId})`.as('sso'))
    .where('id', '=', tenantId)
    .executeTakeFirstOrThrow()

/** Every location of the tenant, by id (a superuser holds everything at each). */
export const locationIdsOf = async (db: Kysely<DB>, tenantId: number): Promise<number[]> =>
  (await db.selectFrom('locations').select('id').where('tenant_id', '=', tenantId).orderBy('id').execute()).map(
    (r) => r.id,
  )

export interface GrantRow {
  location_id: number | null
  role_id: number
  role_name: string
  permissions: { id: number; name: string; description: string }[]
}

/**
 * The roles in force per location, as DECISIONS ("Permissions at a location") defines the set at L: the
 * roles granted at L, plus the profile role when L is one of the user's locations (or `all_locations`).
 * `location_id` null is the tenant-wide set: the profile role and the grants without a location.
 */
export async function grantsOf(db: Kysely<DB>, tenantId: number, userId: number): Promise<GrantRow[]> {
  const result = await sql<GrantRow>`
    with granted as (
      select location_id, role_id from role_grants where tenant_id = ${tenantId} and user_id = ${userId}
      union
      select null, role_id from user_profiles where tenant_id = ${tenantId} and user_id = ${userId}
      union
      select l.id, up.role_id from user_profiles up join locations l on l.tenant_id = up.tenant_id
        and (up.all_locations or exists (select 1 from user_locations ul
          where ul.tenant_id = up.tenant_id and ul.user_id = up.user_id and ul.location_id = l.id))
        where up.tenant_id = ${tenantId} and up.user_id = ${userId})
    select g.location_id, r.id as role_id, r.name as role_name,
      coalesce((select json_agg(json_build_object('id', p.id, 'name', p.key, 'description', p.description) order by p.id)
        from role_permissions rp join permissions p on p.id = rp.permission_id
        where rp.tenant_id = r.tenant_id and rp.role_id = r.id), '[]') as permissions
    from granted g join roles r on r.tenant_id = ${tenantId} and r.id = g.role_id
    order by g.location_id nulls first, r.id`.execute(db)
  return result.rows
}

export async function isDelegatee(db: Kysely<DB>, tenantId: number, userId: number): Promise<boolean> {
  const row = await db
    .selectFrom('delegations as d')
    .select('d.id')
    .where('d.tenant_id', '=', tenantId)
    .where('d.delegatee_id', '=', userId)
    .where(delegationActive('d'))
    .executeTakeFirst()
  return row !== undefined
}

/** The department and the location it belongs to. */
export const departmentOf = (db: Kysely<DB>, tenantId: number, departmentId: number) =>
  db
    .selectFrom('departments')
    .select(['name', 'external_id', 'active', 'location_id'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', departmentId)
    .executeTakeFirst()

export async function approvalEmails(db: Kysely<DB>, tenantId: number, userId: number): Promise<boolean> {
  const row = await db
    .selectFrom('users')
    .select('approval_emails')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', userId)
    .executeTakeFirst()
  return row?.approval_emails ?? false
}

export const setApprovalEmails = (db: Kysely<DB>, tenantId: number, userId: number, on: boolean) =>
  db
    .updateTable('users')
    .set({ approval_emails: on })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', userId)
    .execute()
