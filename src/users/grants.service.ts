/**
 * A user's per-location grants (`GET, PUT /api/v3/users/{id}/location-roles/`) and re-activation
 * (`POST /api/v3/users/{id}/activate/`, and the operator's `procurement users activate`): superuser or
 * nav_setting, under containment (access/containment.ts).
 */
import type { Kysely } from 'kysely'
import { requireAny, type Actor } from '../access/actor.ts'
import { enforceContainment } from '../access/containment.ts'
import { audit } from '../audit/service.ts'
import { notFound, validationFailed, type FieldErrors } from '../core/problem.ts'
import type { DB } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import { recordEvent } from '../events/service.ts'
import * as grants from './grants.repository.ts'
import * as repo from './repository.ts'
import type { UserProfile } from './schema.ts'
import { toProfile } from './service.ts'
import * as writes from './write-repository.ts'

const WRITERS = ['superuser', 'nav_setting'] as const
export type LocationGrant = grants.LocationGrant

async function ownerOf(db: Kysely<DB>, actor: Actor, profileId: number): Promise<number> {
  const owner = await writes.userOfProfile(db, actor.tenantId, profileId)
  if (owner === undefined) throw notFound(`No user ${profileId}.`)
  return owner.user_id
}

export async function getLocationRoles(db: Kysely<DB>, actor: Actor, profileId: number): Promise<LocationGrant[]> {
  requireAny(actor, ...WRITERS)
  return grants.locationGrantsOf(db, actor.tenantId, await ownerOf(db, actor, profileId))
}

export async function replaceLocationRoles(
  db: Kysely<DB>,
  actor: Actor,
  profileId: number,
  body: LocationGrant[],
): Promise<LocationGrant[]> {
  requireAny(actor, ...WRITERS)
  return inTransaction(db, async (tx) => {
    const userId = await ownerOf(tx, actor, profileId)
    await writes.lockUser(tx, actor.tenantId, userId)
    const found = await grants.existing(
      tx,
      actor.tenantId,
      body.map((g) => g.location),
      body.map((g) => g.role),
    )
    const errors: FieldErrors = {}
    body.forEach((g, i) => {
      if (!found.locations.has(g.location)) (errors[`${i}.location`] ??= []).push(`no location ${g.location}`)
      if (!found.roles.has(g.role)) (errors[`${i}.role`] ??= []).push(`no role ${g.role}`)
    })
    if (Object.keys(errors).length > 0) throw validationFailed(errors)
    await enforceContainment(tx, actor, {
      action: 'grant roles to',
      targetUserId: userId,
      grantedAt: body,
    })
    const unique = [...new Map(body.map((g) => [`${g.location}:${g.role}`, g])).values()]
    await grants.replaceLocationGrants(tx, actor.tenantId, userId, unique)
    await audit(tx, actor, {
      action: 'user.location_roles',
      resourceType: 'user',
      resourceId: userId,
      changes: { location_roles: unique },
    })
    return grants.locationGrantsOf(tx, actor.tenantId, userId)
  })
}

/** Re-activates a deactivated user (a no-op for an active one); they hold their roles again, so containment applies. */
export async function activateUser(db: Kysely<DB>, actor: Actor, profileId: number): Promise<UserProfile> {
  requireAny(actor, ...WRITERS)
  return inTransaction(db, async (tx) => (await activate(tx, actor, await ownerOf(tx, actor, profileId))).profile)
}

/**
 * Re-activates the tenant's user with this e-mail (the operator's `procurement users activate`); `changed`
 * is false when they were active already.
 */
export async function activateUserByEmail(
  db: Kysely<DB>,
  actor: Actor,
  email: string,
): Promise<{ profile: UserProfile; changed: boolean }> {
  requireAny(actor, ...WRITERS)
  return inTransaction(db, async (tx) => {
    const [user] = await repo.usersByEmail(tx, email, actor.domain)
    if (user === undefined) throw notFound(`No user ${email} in ${actor.domain}.`)
    return activate(tx, actor, user.userId)
  })
}

async function activate(tx: Kysely<DB>, actor: Actor, userId: number) {
  await enforceContainment(tx, actor, {
    action: 're-activate',
    targetUserId: userId,
    grantedRoleIds: await grants.rolesHeldBy(tx, actor.tenantId, userId),
  })
  const changed = await writes.deactivateUser(tx, actor.tenantId, userId, actor.userId, true)
  await audit(tx, actor, {
    action: 'user.activate',
    resourceType: 'user',
    resourceId: userId,
    changes: { is_active: true },
  })
  const profile = toProfile((await repo.findProfileOfUser(tx, actor.tenantId, userId))!)
  if (changed) await recordEvent(tx, actor.tenantId, 'user.updated', profile)
  return { profile, changed }
}
