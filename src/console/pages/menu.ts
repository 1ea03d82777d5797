/**
 * What the menu of a signed-in page shows beyond the tenant-wide permissions (views/layout.ts): the keys the
 * user holds at some location, `delegatee`, `candidate` (an approval waits for them, or a probe below says
 * they may become a candidate), `budget_owner` (they own a budget: Budgets), and the count of approvals waiting beside Approvals. Read once per request.
 */
import type { Actor } from '../../access/actor.ts'
import { ownsBudget } from '../../budgets/repository.ts'
import type { ConsoleDeps } from '../context.ts'
import { pendingByKind } from '../home.repository.ts'
import { menuCounts, menuKeys, type MenuKey } from '../views/layout.ts'
import { menuKeysOf } from './request-shared.ts'

/**
 * Whether someone may become an approval candidate for another reason than a permission: a module adds one
 * probe here, and its people see Approvals. Budgets: an owner decides the extra step of a document that takes
 * their budget below zero (DECISIONS: Approvals is in the menu of "a budget owner").
 */
export const CANDIDATE_PROBES: ((deps: ConsoleDeps, actor: Actor) => Promise<boolean>)[] = [
  (deps, actor) => ownerOf(deps, actor),
]

/**
 * Whether the actor owns a budget, read at most once per request (the Approvals probe and the Budgets entry
 * both ask).
 */
const owners = new WeakMap<Actor, Promise<boolean>>()
function ownerOf(deps: ConsoleDeps, actor: Actor): Promise<boolean> {
  const userId = actor.userId
  if (userId === null) return Promise.resolve(false)
  let known = owners.get(actor)
  if (known === undefined) {
    known = ownsBudget(deps.db, actor.tenantId, userId)
    owners.set(actor, known)
  }
  return known
}

/** The approvals waiting for `actor` now, per kind (all zero for the operator, who has no user). */
export const pendingOf = (deps: ConsoleDeps, actor: Actor) =>
  actor.userId === null ? undefined : pendingByKind(deps.db, actor.tenantId, actor.userId)

/** Reads and sets the menu's keys and counts for this request's actor. */
export async function prepareMenu(deps: ConsoleDeps, actor: Actor): Promise<void> {
  const [held, pending, owner] = await Promise.all([
    menuKeysOf(deps, actor),
    pendingOf(deps, actor),
    ownerOf(deps, actor),
  ])
  const keys = new Set<MenuKey>(held)
  if (owner) keys.add('budget_owner')
  const waiting = pending === undefined ? 0 : Object.values(pending).reduce((a, b) => a + b, 0)
  if (waiting > 0) keys.add('candidate')
  else
    for (const probe of CANDIDATE_PROBES)
      if (await probe(deps, actor)) {
        keys.add('candidate')
        break
      }
  menuKeys.set(actor, keys)
  menuCounts.set(actor, { approvals: waiting })
}
