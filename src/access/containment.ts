/**
 * Privilege containment (DECISIONS, "Who may do what"): nobody grants a role or permission they do not hold,
 * and only a `superuser` creates, edits, deactivates, re-activates or promotes a `superuser`. One rule, called
 * by every path that writes users or grants roles — API single and batch create, PUT, DELETE, the console's
 * invite, edit, deactivate, reactivate, re-sent invitation and set-password link, and the per-location grant
 * and role endpoints — so no channel can hand out more
 * than its actor holds. The functions here are pure; `grants.repository.ts` loads what they compare.
 */
import type { Kysely } from 'kysely'
import type { DB, PermissionKey } from '../db/schema.ts'
import { forbidden } from '../core/problem.ts'
import type { Actor } from './actor.ts'
import { everythingHeldBy, rolesAsGrants, type Grant } from './grants.repository.ts'
import { actorLocationAccess, permissionsAt } from './location-permissions.ts'

/** A superuser holds every permission, whatever its role lists. */
const holds = (held: ReadonlySet<PermissionKey>, key: PermissionKey) => held.has('superuser') || held.has(key)

/** The permissions in `granted` that `held` lacks, in a stable order (no duplicates). */
export function missingPermissions(
  held: ReadonlySet<PermissionKey>,
  granted: Iterable<PermissionKey>,
): PermissionKey[] {
  return [...new Set(granted)].filter((key) => !holds(held, key)).sort()
}

/** Throws 403 naming the first missing permission unless the actor holds every permission of every grant. */
export function requireMayGrant(actor: Actor, grants: Iterable<Grant>): void {
  for (const grant of grants) {
    const missing = missingPermissions(actor.permissions, grant.permissions)
    if (missing.length > 0) {
      throw forbidden(
        `Granting the role ${JSON.stringify(grant.role)} needs the ${missing.join(', ')} permission${missing.length > 1 ? 's' : ''}, ` +
          'which you do not hold: nobody grants more than they have.',
      )
    }
  }
}

/**
 * Throws 403 unless the actor holds, at each grant's location, every permission of the role granted there
 * (DECISIONS: "containment is judged where the grant applies"). A superuser (and the operator) holds
 * everything everywhere; anyone else holds at L what `permissionsAt` says — nav_approval held at location 1
 * does not let anyone hand out Approver at location 2.
 */
export function requireMayGrantAt(
  actor: Actor,
  access: Awaited<ReturnType<typeof actorLocationAccess>>,
  grants: Iterable<{ location: number; grant: Grant }>,
): void {
  for (const { location, grant } of grants) {
    const missing = missingPermissions(permissionsAt(access, location), grant.permissions)
    if (missing.length > 0) {
      throw forbidden(
        `Granting the role ${JSON.stringify(grant.role)} at location ${location} needs the ${missing.join(', ')} ` +
          `permission${missing.length > 1 ? 's' : ''} at location ${location}, which you do not hold there: ` +
          'nobody grants more than they have where the grant applies.',
      )
    }
  }
}

export type TargetAction =
  | 'create'
  | 'edit'
  | 'deactivate'
  | 're-activate'
  | 'grant roles to'
  | 're-invite'
  | 'send a set-password link to'
  | 'set the delegation of'

/**
 * Throws 403 unless the actor may act on a user who holds `target` (every permission of the user's profile
 * role and of every grant, at a location or not): only a superuser acts on a superuser.
 */
export function requireMayActOn(actor: Actor, target: ReadonlySet<PermissionKey>, action: TargetAction): void {
  if (target.has('superuser') && !actor.permissions.has('superuser')) {
    throw forbidden(`Only a user with the superuser permission may ${action} a superuser.`)
  }
}

/**
 * The whole rule for one write, loading what it compares, read fresh in the write's transaction: the actor
 * may act on the target user (if any), holds every permission of every role granted tenant-wide
 * (`grantedRoleIds`), and every permission of each role granted at a location at that location
 * (`grantedAt`). Ids the tenant does not have are left to the caller's validation. Call it inside the
 * write's transaction, before writing.
 */
export async function enforceContainment(
  db: Kysely<DB>,
  actor: Actor,
  change: {
    action: TargetAction
    targetUserId?: number
    grantedRoleIds?: number[]
    grantedAt?: readonly { location: number; role: number }[]
  },
): Promise<void> {
  if (change.targetUserId !== undefined) {
    requireMayActOn(actor, await everythingHeldBy(db, actor.tenantId, change.targetUserId), change.action)
  }
  const at = change.grantedAt ?? []
  const roles = await rolesAsGrants(db, actor.tenantId, [...(change.grantedRoleIds ?? []), ...at.map((g) => g.role)])
  requireMayGrant(
    actor,
    (change.grantedRoleIds ?? []).flatMap((id) => roles.get(id) ?? []),
  )
  if (at.length === 0) return
  const access = await actorLocationAccess(db, actor)
  requireMayGrantAt(
    actor,
    access,
    at.flatMap((g) => {
      const grant = roles.get(g.role)
      return grant === undefined ? [] : [{ location: g.location, grant }]
    }),
  )
}
export type { Grant } from './grants.repository.ts'
