/** What containment compares (containment.ts): the permissions of roles, and everything a user holds. */
import type { Kysely } from 'kysely'
import type { DB, PermissionKey } from '../db/schema.ts'

/** What is being granted: a role (by name, for messages) and the permissions it carries. */
export interface Grant {
  role: string
  permissions: readonly PermissionKey[]
}

/** Each of these roles of the tenant with its name and permissions; unknown ids are left out. */
export async function rolesAsGrants(db: Kysely<DB>, tenantId: number, roleIds: number[]): Promise<Map<number, Grant>> {
  const ids = [...new Set(roleIds)]
  const result = new Map<number, Grant>()
  if (ids.length === 0) return result
  const rows = await db
    .selectFrom('roles as r')
    .leftJoin('role_permissions as rp', (join) =>
      join.onRef('rp.tenant_id', '=', 'r.tenant_id').onRef('rp.role_id', '=', 'r.id'),
    )
    .leftJoin('permissions as p', 'p.id', 'rp.permission_id')
    .select(['r.id', 'r.name', 'p.key'])
    .where('r.tenant_id', '=', tenantId)
    .where('r.id', 'in', ids)
    .execute()
  for (const row of rows) {
    const grant = result.get(row.id) ?? { role: row.name, permissions: [] }
    if (row.key !== null) (grant.permissions as PermissionKey[]).push(row.key)
    result.set(row.id, grant)
  }
  return result
}

/** Every permission a user holds anywhere: the profile's role and every grant, at a location or not. */
export async function everythingHeldBy(db: Kysely<DB>, tenantId: number, userId: number): Promise<Set<PermissionKey>> {
  const rows = await db
    .selectFrom('permissions as p')
    .innerJoin('role_permissions as rp', 'rp.permission_id', 'p.id')
    .select('p.key')
    .distinct()
    .where('rp.tenant_id', '=', tenantId)
    .where((eb) =>
      eb.or([
        eb(
          'rp.role_id',
          'in',
          eb
            .selectFrom('user_profiles')
            .select('role_id')
            .where('user_id', '=', userId)
            .where('tenant_id', '=', tenantId),
        ),
        eb(
          'rp.role_id',
          'in',
          eb
            .selectFrom('role_grants')
            .select('role_id')
            .where('user_id', '=', userId)
            .where('tenant_id', '=', tenantId),
        ),
      ]),
    )
    .execute()
  return new Set(rows.map((r) => r.key))
}
