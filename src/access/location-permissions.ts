/**
 * Permissions at a location (DECISIONS, "Permissions at a location"). Actions on a location's work
 * (requests, approvals) use the set *at* that location L: everything for a `superuser` (tenant-wide);
 * otherwise the permissions of the roles granted at L, plus those of the profile role when L is one of the
 * user's locations or `all_locations` is true. This module is the one place that rule is written: as a
 * per-user map (for the acting user, and `me.systemaccess_cache`) and as a SQL test over many users (who
 * among a rule's approvers holds `nav_approval` at L).
 */
import * as repo from './permissions.repository.ts'
import type { Kysely } from 'kysely'
import { PERMISSION_KEYS, type DB, type PermissionKey } from '../db/schema.ts'
import { forbidden } from '../core/problem.ts'
import type { Actor } from './actor.ts'

export interface LocationAccess {
  /** A tenant-wide superuser holds everything at every location. */
  superuser: boolean
  /** The permission keys held at each location where the user holds any. */
  at: ReadonlyMap<number, ReadonlySet<PermissionKey>>
}

const EVERYTHING: ReadonlySet<PermissionKey> = new Set(PERMISSION_KEYS)
const NOTHING: ReadonlySet<PermissionKey> = new Set()

/** The (location, key) pairs a user holds at locations: grants at L, and the profile role at their locations. */
export async function locationAccessOf(db: Kysely<DB>, tenantId: number, userId: number, superuser: boolean) {
  const result = await repo.locationPermissionRows(db, tenantId, userId)
  const at = new Map<number, Set<PermissionKey>>()
  for (const row of result) {
    const keys = at.get(row.location_id) ?? new Set<PermissionKey>()
    keys.add(row.key)
    at.set(row.location_id, keys)
  }
  return { superuser, at } satisfies LocationAccess
}

/** The acting user's access at locations; the operator (no user) holds everything everywhere. */
export function actorLocationAccess(db: Kysely<DB>, actor: Actor): Promise<LocationAccess> {
  if (actor.userId === null || actor.permissions.has('superuser'))
    return Promise.resolve({ superuser: true, at: new Map() })
  return locationAccessOf(db, actor.tenantId, actor.userId, false)
}

/** The set at one location. */
export const permissionsAt = (access: LocationAccess, locationId: number): ReadonlySet<PermissionKey> =>
  access.superuser ? EVERYTHING : (access.at.get(locationId) ?? NOTHING)

export const holdsAnyAt = (access: LocationAccess, locationId: number, ...keys: PermissionKey[]): boolean => {
  const held = permissionsAt(access, locationId)
  return keys.some((key) => held.has(key))
}

/** The locations where the user holds one of `keys`; `'all'` for a superuser. */
export function locationsWithAny(access: LocationAccess, ...keys: PermissionKey[]): number[] | 'all' {
  if (access.superuser) return 'all'
  return [...access.at].filter(([, held]) => keys.some((key) => held.has(key))).map(([id]) => id)
}

/** Throws 403 unless the user holds one of `keys` at the location. */
export function requireAnyAt(access: LocationAccess, locationId: number, ...keys: PermissionKey[]): void {
  if (!holdsAnyAt(access, locationId, ...keys))
    throw forbidden(`This action needs the ${keys.join(' or ')} permission at location ${locationId}.`)
}

/** Which of these users (active, of the tenant) hold `key` at the location: one query for any number. */
export async function holdersAt(
  db: Kysely<DB>,
  tenantId: number,
  userIds: readonly number[],
  locationId: number,
  key: PermissionKey,
): Promise<Set<number>> {
  if (userIds.length === 0) return new Set()
  const result = await repo.holderRows(db, tenantId, userIds, locationId, key)
  return new Set(result.map((r) => r.id))
}

/**
 * What the actor may see of requests and approvals, as a list scope (db/list.ts): undefined (everything)
 * for a superuser or the operator; else their user id and the locations where they hold `nav_approval`,
 * `nav_purchase` or `superuser` (see `documentScope` in document-scope.ts).
 */
export async function requestScope(db: Kysely<DB>, actor: Actor): Promise<[number, number[]] | undefined> {
  const access = await actorLocationAccess(db, actor)
  const locations = locationsWithAny(access, 'nav_approval', 'nav_purchase', 'superuser')
  return locations === 'all' ? undefined : [actor.userId!, locations]
}
