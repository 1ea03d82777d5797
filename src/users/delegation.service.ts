/**
 * Out-of-office delegation (`GET, PUT, DELETE /api/v3/users/{id}/delegation/`): a user sets their own, a
 * superuser or nav_setting anyone's. While active — until the end of `expected_return_date` in UTC, or until
 * ended when it has none — the delegatee sees, counts and decides the away user's pending approvals
 * (access/approvers.ts). The delegatee must be an active user of the tenant other than the user.
 */
import type { Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import { enforceContainment } from '../access/containment.ts'
import { audit } from '../audit/service.ts'
import { forbidden, notFound, validationFailed } from '../core/problem.ts'
import type { DB } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import { recordEvent } from '../events/service.ts'
import * as repo from './delegation.repository.ts'
import * as users from './repository.ts'
import type { Delegation, DelegationInput } from './schema.ts'
import { toProfile } from './service.ts'
import * as writes from './write-repository.ts'

/**
 * The user behind the profile, after checking the actor may write their delegation. Setting someone else's
 * delegation hands their approvals to another person, so it is a grant: it needs superuser or nav_setting
 * and obeys containment — only a superuser sets (or ends) a superuser's (access/containment.ts).
 */
async function ownerOf(db: Kysely<DB>, actor: Actor, profileId: number, write: boolean) {
  const owner = await writes.userOfProfile(db, actor.tenantId, profileId)
  if (owner === undefined) throw notFound(`No user ${profileId}.`)
  if (!write || owner.user_id === actor.userId) return owner.user_id
  const manager = actor.permissions.has('superuser') || actor.permissions.has('nav_setting')
  if (!manager)
    throw forbidden("Only superuser or nav_setting may set another user's delegation; you may set your own.")
  await enforceContainment(db, actor, { action: 'set the delegation of', targetUserId: owner.user_id })
  return owner.user_id
}

/** The profile shows the delegation (`approval_delegatee`, `expected_return_date`): a `user.updated` event. */
async function profileChanged(tx: Kysely<DB>, tenantId: number, userId: number): Promise<void> {
  const profile = await users.findProfileOfUser(tx, tenantId, userId)
  if (profile !== undefined) await recordEvent(tx, tenantId, 'user.updated', toProfile(profile))
}

const toDelegation = (row: repo.DelegationRow | undefined): Delegation =>
  row === undefined ? { delegatee: null, expected_return_date: null } : row

export async function getDelegation(db: Kysely<DB>, actor: Actor, profileId: number): Promise<Delegation> {
  const userId = await ownerOf(db, actor, profileId, false)
  return toDelegation(await repo.currentDelegation(db, actor.tenantId, userId))
}

export async function setDelegation(
  db: Kysely<DB>,
  actor: Actor,
  profileId: number,
  input: DelegationInput,
): Promise<Delegation> {
  return inTransaction(db, async (tx) => {
    const userId = await ownerOf(tx, actor, profileId, true)
    await writes.lockUser(tx, actor.tenantId, userId)
    const delegateeId = typeof input.delegatee === 'number' ? input.delegatee : input.delegatee.id
    const delegatee = await writes.userOfProfile(tx, actor.tenantId, delegateeId)
    const errors: Record<string, string[]> = {}
    if (delegatee === undefined) errors.delegatee = [`no user ${delegateeId}`]
    else if (delegatee.user_id === userId) errors.delegatee = ['a user cannot delegate to themselves']
    else if (!(await writes.isActive(tx, actor.tenantId, delegatee.user_id)))
      errors.delegatee = ['must be an active user']
    const until = input.expected_return_date ?? null
    if (until !== null && !(await repo.notPast(tx, until)))
      errors.expected_return_date = ['is in the past: the delegation would be over already']
    if (Object.keys(errors).length > 0) throw validationFailed(errors)
    await repo.endDelegation(tx, actor.tenantId, userId)
    await repo.insertDelegation(tx, actor.tenantId, userId, delegatee!.user_id, until)
    await audit(tx, actor, {
      action: 'user.delegation.set',
      resourceType: 'user',
      resourceId: userId,
      changes: { delegatee: delegateeId, expected_return_date: until },
    })
    await profileChanged(tx, actor.tenantId, userId)
    return toDelegation(await repo.currentDelegation(tx, actor.tenantId, userId))
  })
}

/** The people whose approvals the acting user decides now as their delegatee (none for the operator). */
export const myDelegators = (db: Kysely<DB>, actor: Actor): Promise<NonNullable<Delegation['delegatee']>[]> =>
  actor.userId === null ? Promise.resolve([]) : repo.delegatorsOf(db, actor.tenantId, actor.userId)

export async function endDelegation(db: Kysely<DB>, actor: Actor, profileId: number): Promise<void> {
  await inTransaction(db, async (tx) => {
    const userId = await ownerOf(tx, actor, profileId, true)
    await writes.lockUser(tx, actor.tenantId, userId)
    const ended = await repo.endDelegation(tx, actor.tenantId, userId)
    await audit(tx, actor, { action: 'user.delegation.end', resourceType: 'user', resourceId: userId })
    if (ended) await profileChanged(tx, actor.tenantId, userId)
  })
}
