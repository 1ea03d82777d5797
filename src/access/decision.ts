/**
 * The authority to decide an approval, read fresh at the moment of the decision (DECISIONS, "Authority is
 * read fresh, at the place it is used"). Being a candidate — fixed when the request was submitted — or the
 * delegatee of an away candidate says who *may be asked*; it does not decide alone. At the decision, the one
 * deciding must hold `nav_approval` at the document's location now, and a delegatee decides only for an away
 * candidate who still holds it there: a withdrawn grant ends both at once. The API and the console decide
 * through the same service, which calls this inside the deciding transaction, after locking the document.
 */
import * as repo from './permissions.repository.ts'
import type { Kysely } from 'kysely'
import { forbidden } from '../core/problem.ts'
import type { DB, PermissionKey } from '../db/schema.ts'
import { actingUser, type Actor } from './actor.ts'
import { holdersAt } from './location-permissions.ts'

/** The permission deciding an approval needs, at the document's location, unless its step names another. */
export const DECIDING_PERMISSION: PermissionKey = 'nav_approval'

/**
 * What the decision is about: the document's location, the approval's candidates (user ids), and the
 * permission its step was planned for (a bill's exceptions step: `accounts_payable`; else `nav_approval`).
 */
export interface DecisionSubject {
  locationId: number
  candidates: readonly number[]
  permission?: PermissionKey | undefined
}

/**
 * Throws 403 unless the acting user may decide now: they hold `nav_approval` at the location, and if they
 * decide as a delegatee (not a candidate themselves), the away candidate they decide for holds it there too. Whether they are a candidate or delegatee at all, and never the requester, the decision's own
 * conditional UPDATE still checks; this adds what a fixed candidate list cannot know.
 */
export async function requireMayDecide(db: Kysely<DB>, actor: Actor, subject: DecisionSubject): Promise<void> {
  const userId = actingUser(actor)
  const { locationId, candidates } = subject
  const permission = subject.permission ?? DECIDING_PERMISSION
  const holders = await holdersAt(db, actor.tenantId, [userId, ...candidates], locationId, permission)
  if (!holders.has(userId))
    throw forbidden(
      `Deciding this approval needs the ${permission} permission at location ${locationId}, which you do not hold there now.`,
    )
  if (candidates.includes(userId)) return
  const delegators = await repo.awayCandidatesDelegatingTo(db, actor.tenantId, userId, candidates)
  // The decision is recorded on behalf of the lowest-numbered of them (approvals/repository.ts): that one
  // must still hold the permission — a refusal, never a decision on behalf of someone who lost it.
  if (delegators.length > 0 && !holders.has(Math.min(...delegators)))
    throw forbidden(
      `The away candidate you decide for no longer holds the ${permission} permission at location ${locationId}.`,
    )
}
