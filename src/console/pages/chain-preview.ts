/**
 * The approval steps a draft request would go through if submitted now (the approvals' chain-preview
 * service: the same planner as the submit), as a box on the request's page.
 */
import type { Actor } from '../../access/actor.ts'
import { previewRequestChain } from '../../approvals/chain-preview.service.ts'
import { Problem } from '../../core/problem.ts'
import type { PurchaseRequest } from '../../requests/schema.ts'
import type { ConsoleDeps } from '../context.ts'
import { chainPreviewBox } from '../views/history.ts'
import type { Html } from '../views/html.ts'

/** The box for a draft; undefined when the request is not a draft (then its approvals are its chain). */
export async function chainPreviewSection(
  deps: ConsoleDeps,
  actor: Actor,
  r: PurchaseRequest,
): Promise<Html | undefined> {
  try {
    return chainPreviewBox(await previewRequestChain(deps.db, actor, r.id), r.currency)
  } catch (error) {
    // Submitted meanwhile: its chain is in its approvals.
    if (error instanceof Problem && error.status === 409) return undefined
    throw error
  }
}
