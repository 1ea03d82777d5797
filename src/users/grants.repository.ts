/** SQL for a user's per-location role grants (`role_grants` with a location). */
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'

export interface LocationGrant {
  location: number
  role: number
}

export async function locationGrantsOf(db: Kysely<DB>, tenantId: number, userId: number): Promise<LocationGrant[]> {
  const rows = await db
    .selectFrom('role_grants')
    .select(['location_id', 'role_id'])
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', userId)
    .where('location_id', 'is not', null)
    .orderBy('location_id')
    .orderBy('role_id')
    .execute()
  return rows.map((r) => ({ location: r.location_id!, role: r.role_id }))
}

/** Replaces the user's per-location grants with exactly `grants` (system-wide grants are left alone). */
export async function replaceLocationGrants(
  db: Kysely<DB>,
  tenantId: number,
  userId: number,
  grants: LocationGrant[],
): Promise<void> {
  await db
    .deleteFrom('role_grants')
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', userId)
    .where('location_id', 'is not', null)
    .execute()
  if (grants.length === 0) return
  await db
    .insertInto('role_grants')
    .values(grants.map((g) => ({ tenant_id: tenantId, user_id: userId, location_id: g.location, role_id: g.role })))
    .execute()
}

/** Every role the user holds: the profile's and every grant's. */
export async function rolesHeldBy(db: Kysely<DB>, tenantId: number, userId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('role_grants')
    .select('role_id')
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', userId)
    .union(
      db.selectFrom('user_profiles').select('role_id').where('tenant_id', '=', tenantId).where('user_id', '=', userId),
    )
    .execute()
  return rows.map((r) => r.role_id)
}

/** Which of these ids are the tenant's locations and roles. */
export async function existing(db: Kysely<DB>, tenantId: number, locations: number[], roles: number[]) {
  const [l, r] = await Promise.all([
    locations.length === 0
      ? []
      : db
          .selectFrom('locations')
          .select('id')
          .where('tenant_id', '=', tenantId)
          .where('id', 'in', locations)
          .execute(),
    roles.length === 0
      ? []
      : db.selectFrom('roles').select('id').where('tenant_id', '=', tenantId).where('id', 'in', roles).execute(),
  ])
  return { locations: new Set(l.map((x) => x.id)), roles: new Set(r.map((x) => x.id)) }
}
