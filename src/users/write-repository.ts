/** SQL that creates and changes users: a whole batch in a handful of multi-row statements. */
import { sql, type Kysely } from 'kysely'
import { permissionsOfUser } from '../access/permissions.ts'
import { emailKey } from '../db/email.ts'
import type { DB } from '../db/schema.ts'

/** A user to create, whichever request form it came from. */
export interface NewUser {
  email: string
  firstName: string
  lastName: string
  phone: string
  position: string
  profileImage: string
  ssoEnabled: boolean
  roleId: number
  allLocations: boolean
  locations: { id: number; allDepartments: boolean; departments: number[] }[]
  homeDepartment: number | null
  homeLocation: number | null
  legalEntities: number[]
  invite: boolean
}

/**
 * A statement may carry at most 65,535 parameters; rows go in slices well under that (a 1,000-user batch
 * with many locations each can reach hundreds of thousands of rows).
 */
async function insertInSlices<T>(rows: T[], insert: (slice: T[]) => Promise<unknown>, size = 1000): Promise<void> {
  for (let i = 0; i < rows.length; i += size) await insert(rows.slice(i, i + size))
}

/** Inserts users with their profiles, system role grant, location access and legal entities; returns user ids in order. */
export async function insertUsers(
  db: Kysely<DB>,
  tenantId: number,
  users: NewUser[],
  changedBy: number | null,
): Promise<number[]> {
  const inserted = await db
    .insertInto('users')
    .values(users.map((u) => ({ tenant_id: tenantId, email: u.email, pending_invite: u.invite })))
    .returning(['id', 'email'])
    .execute()
  const idByEmail = new Map(inserted.map((r) => [emailKey(r.email), r.id]))
  const ids = users.map((u) => idByEmail.get(emailKey(u.email))!)
  await db
    .insertInto('user_profiles')
    .values(
      users.map((u, i) => ({
        tenant_id: tenantId,
        user_id: ids[i]!,
        first_name: u.firstName,
        last_name: u.lastName,
        phone: u.phone,
        position: u.position,
        profile_image: u.profileImage,
        is_sso_enabled: u.ssoEnabled,
        role_id: u.roleId,
        location_id: u.homeLocation,
        department_id: u.homeDepartment,
        all_locations: u.allLocations,
        last_changed_by: changedBy,
      })),
    )
    .execute()
  await db
    .insertInto('role_grants')
    .values(users.map((u, i) => ({ tenant_id: tenantId, user_id: ids[i]!, location_id: null, role_id: u.roleId })))
    .execute()
  const access = users.flatMap((u, i) =>
    u.locations.map((l) => ({
      tenant_id: tenantId,
      user_id: ids[i]!,
      location_id: l.id,
      all_departments: l.allDepartments,
    })),
  )
  await insertInSlices(access, (slice) => db.insertInto('user_locations').values(slice).execute())
  const departments = users.flatMap((u, i) =>
    u.locations.flatMap((l) =>
      l.departments.map((d) => ({ tenant_id: tenantId, user_id: ids[i]!, location_id: l.id, department_id: d })),
    ),
  )
  await insertInSlices(departments, (slice) => db.insertInto('user_location_departments').values(slice).execute())
  await replaceLegalEntities(
    db,
    tenantId,
    ids,
    users.map((u) => u.legalEntities),
  )
  return ids
}

/** Sets each user's legal entities to exactly the given ids. */
export async function replaceLegalEntities(
  db: Kysely<DB>,
  tenantId: number,
  userIds: number[],
  entities: number[][],
): Promise<void> {
  await db.deleteFrom('user_legal_entities').where('tenant_id', '=', tenantId).where('user_id', 'in', userIds).execute()
  const rows = userIds.flatMap((user_id, i) =>
    [...new Set(entities[i] ?? [])].map((legal_entity_id) => ({ tenant_id: tenantId, user_id, legal_entity_id })),
  )
  await insertInSlices(rows, (slice) => db.insertInto('user_legal_entities').values(slice).execute())
}

export interface ProfileChanges {
  email: string
  firstName: string
  lastName: string
  location: number | null
  department: number | null
  position: string
  phone: string
  profileImage: string
  ssoEnabled: boolean
  /** The profile's role; undefined keeps it. */
  roleId?: number | undefined
}

export async function updateUser(
  db: Kysely<DB>,
  tenantId: number,
  userId: number,
  c: ProfileChanges,
  changedBy: number | null,
): Promise<void> {
  const now = new Date()
  if (c.roleId !== undefined) await replaceRoleGrant(db, tenantId, userId, c.roleId)
  await db
    .updateTable('users')
    .set({ email: c.email, updated_at: now })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', userId)
    .execute()
  await db
    .updateTable('user_profiles')
    .set({
      first_name: c.firstName,
      last_name: c.lastName,
      location_id: c.location,
      department_id: c.department,
      position: c.position,
      phone: c.phone,
      profile_image: c.profileImage,
      is_sso_enabled: c.ssoEnabled,
      ...(c.roleId === undefined ? {} : { role_id: c.roleId }),
      last_changed_by: changedBy,
      updated_at: now,
    })
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', userId)
    .execute()
}

/**
 * A new profile role replaces the tenant-wide grant of the old one (DECISIONS, "Authority is read fresh"): a
 * user holds exactly their profile role and their grants, so a demoted Administrator keeps nothing. Call it
 * before the profile's role changes; a role that does not change leaves the grants as they are.
 */
async function replaceRoleGrant(db: Kysely<DB>, tenantId: number, userId: number, roleId: number): Promise<void> {
  const current = await db
    .selectFrom('user_profiles')
    .select('role_id')
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', userId)
    .executeTakeFirst()
  if (current === undefined || current.role_id === roleId) return
  await db
    .deleteFrom('role_grants')
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', userId)
    .where('location_id', 'is', null)
    .where('role_id', '=', current.role_id)
    .execute()
  await db
    .insertInto('role_grants')
    .values({ tenant_id: tenantId, user_id: userId, location_id: null, role_id: roleId })
    .onConflict((oc) => oc.doNothing())
    .execute()
}

/** Deactivates (or, `active`, re-activates) a user; returns false when nothing changed (no such user, or already so). */
export async function deactivateUser(
  db: Kysely<DB>,
  tenantId: number,
  userId: number,
  changedBy: number | null,
  active = false,
): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ is_active: active, updated_at: new Date() })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', userId)
    .where('is_active', '=', !active)
    .executeTakeFirst()
  if (result.numUpdatedRows === 0n) return false
  await db
    .updateTable('user_profiles')
    .set({ last_changed_by: changedBy })
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', userId)
    .execute()
  return true
}

/**
 * Locks the user's row until the transaction ends: writes of the same user's delegation or grants then run
 * one after the other, so identical writes at the same instant all succeed with the same result instead of
 * racing on a unique key.
 */
export async function lockUser(db: Kysely<DB>, tenantId: number, userId: number): Promise<void> {
  await db
    .selectFrom('users')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', userId)
    .forUpdate()
    .execute()
}

/**
 * The tenant's active users who hold `superuser` tenant-wide (as a session or token would: access/permissions.ts),
 * locked until the transaction ends, in id order. Two transactions that each deactivate one of the last two
 * then run one after the other, and the second sees that its target is the last one left.
 */
export async function lockActiveSuperusers(db: Kysely<DB>, tenantId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('users as u')
    .select('u.id')
    .where('u.tenant_id', '=', tenantId)
    .where('u.is_active', '=', true)
    .where(sql<boolean>`'superuser' = any(${permissionsOfUser})`)
    .orderBy('u.id')
    .forUpdate()
    .execute()
  return rows.map((r) => r.id)
}

/** The user behind a profile id, in the tenant. */
export const userOfProfile = (db: Kysely<DB>, tenantId: number, profileId: number) =>
  db
    .selectFrom('user_profiles')
    .select('user_id')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', profileId)
    .executeTakeFirst()

export const isActive = async (db: Kysely<DB>, tenantId: number, userId: number) =>
  (
    await db
      .selectFrom('users')
      .select('is_active')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', userId)
      .executeTakeFirst()
  )?.is_active === true
