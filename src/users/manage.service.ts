/**
 * What an administrator does to one user beyond the API's PUT and DELETE, for the console: read a user with
 * their state (invited, active, deactivated), edit some fields while the rest stay as they are, re-send an
 * invitation, and send a new set-password link. Edits go through `updateUser` (the API's PUT), so its rules
 * — references, containment, audit, the `user.updated` event — are the same; the two links obey
 * containment as every other write to a user does: nobody sends a superuser's link but a superuser.
 */
import type { Kysely } from 'kysely'
import { requireAny, type Actor } from '../access/actor.ts'
import { enforceContainment } from '../access/containment.ts'
import { audit } from '../audit/service.ts'
import type { Page } from '../core/list-query.ts'
import { conflict, notFound } from '../core/problem.ts'
import type { DB } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import { queueSetPasswordLink, reissueInvitation } from '../invitations/service.ts'
import * as repo from './repository.ts'
import type { SingleUser, UserListQuery, UserProfile } from './schema.ts'
import { toProfile, updateUser } from './service.ts'

const WRITERS = ['superuser', 'nav_setting'] as const

/** A profile and whether the user has yet to accept their invitation (set a password through its link). */
export type UserWithState = UserProfile & { pending_invite: boolean }

const withState = (row: repo.ProfileRow): UserWithState => ({ ...toProfile(row), pending_invite: row.pending_invite })

export async function listUsersWithState(
  db: Kysely<DB>,
  actor: Actor,
  query: UserListQuery,
): Promise<Page<UserWithState>> {
  const result = await repo.pageOfProfiles(db, actor.tenantId, query)
  return { ...result, rows: result.rows.map(withState) }
}

export async function getUserWithState(db: Kysely<DB>, actor: Actor, profileId: number): Promise<UserWithState> {
  const row = await repo.findProfile(db, actor.tenantId, profileId)
  if (row === undefined) throw notFound(`No user ${profileId}.`)
  return withState(row)
}

/** The fields the console edits; `role_id` omitted (or unchanged) keeps the role and grants nothing. */
export type UserEdit = Pick<SingleUser, 'firstName' | 'lastName' | 'location' | 'department' | 'phone' | 'position'> & {
  role_id?: number
  /** A new e-mail (SCIM renames people); omitted keeps it. */
  email?: string
}

/**
 * Changes these fields and keeps every other one (e-mail, picture, SSO, legal entities) as it is, through the
 * API's PUT. The role counts as granted only when it changes: renaming a Buyer needs no Purchase permission.
 */
export async function editUser(db: Kysely<DB>, actor: Actor, profileId: number, edit: UserEdit): Promise<UserProfile> {
  requireAny(actor, ...WRITERS)
  const row = await repo.findProfile(db, actor.tenantId, profileId)
  if (row === undefined) throw notFound(`No user ${profileId}.`)
  const { role_id, ...fields } = edit
  const body: SingleUser = {
    email: row.email,
    profile_image: row.profile_image,
    is_sso_enabled: row.is_sso_enabled,
    legal_entities: await repo.legalEntitiesOf(db, actor.tenantId, row.user_id),
    ...fields,
    ...(role_id === undefined || role_id === row.role_id ? {} : { role_id }),
  }
  return updateUser(db, actor, profileId, body)
}

async function targetOf(tx: Kysely<DB>, actor: Actor, profileId: number) {
  const row = await repo.findProfile(tx, actor.tenantId, profileId)
  if (row === undefined) throw notFound(`No user ${profileId}.`)
  return row
}

/** A new invitation e-mail for a user who has not accepted yet; the earlier invitation links stop working. */
export async function resendInvitation(db: Kysely<DB>, actor: Actor, profileId: number, base: string): Promise<string> {
  requireAny(actor, ...WRITERS)
  return inTransaction(db, async (tx) => {
    const user = await targetOf(tx, actor, profileId)
    if (!user.is_active) throw conflict(`${user.email} is deactivated; re-activate the user first.`)
    if (!user.pending_invite)
      throw conflict(`${user.email} has already accepted the invitation; send a new set-password link instead.`)
    await enforceContainment(tx, actor, { action: 're-invite', targetUserId: user.user_id })
    await reissueInvitation(tx, actor.tenantId, { userId: user.user_id, email: user.email }, base)
    await audit(tx, actor, { action: 'user.reinvite', resourceType: 'user', resourceId: user.user_id })
    return user.email
  })
}

/** A new one-time set-password link, e-mailed to an active user who has accepted their invitation. */
export async function sendSetPasswordLink(
  db: Kysely<DB>,
  actor: Actor,
  profileId: number,
  base: string,
): Promise<string> {
  requireAny(actor, ...WRITERS)
  return inTransaction(db, async (tx) => {
    const user = await targetOf(tx, actor, profileId)
    if (!user.is_active) throw conflict(`${user.email} is deactivated; re-activate the user first.`)
    if (user.pending_invite)
      throw conflict(`${user.email} has not accepted the invitation yet; re-send the invitation instead.`)
    await enforceContainment(tx, actor, { action: 'send a set-password link to', targetUserId: user.user_id })
    await queueSetPasswordLink(tx, actor.tenantId, { userId: user.user_id, email: user.email }, base)
    await audit(tx, actor, { action: 'user.reset_password', resourceType: 'user', resourceId: user.user_id })
    return user.email
  })
}
