/**
 * Payment runs as an approval document (approvals/documents.service.ts): approved after the last step →
 * `approved` (its file can be downloaded); rejected by any step → back to `draft` (the comment stays in its
 * approvals; its documents stay held until it is edited or cancelled). Counted in
 * `pending_approvals_count.payment`. Deciding needs nav_approval at every item's location, read at the decision.
 */
import type { DocumentHandler } from '../approvals/documents.service.ts'
import * as repo from './repository.ts'
import { runView } from './view.service.ts'

export const paymentRunDocument: DocumentHandler = {
  type: 'payment_run',
  kind: 'payment',
  lock: async (tx, tenantId, id) => (await repo.lockRun(tx, tenantId, id)) !== undefined,
  // Its approvals record one location (the first item's); a decision needs nav_approval at every item's.
  decisionLocations: (tx, tenantId, id) => repo.itemLocations(tx, tenantId, id),
  async describe(tx, tenantId, id) {
    const run = await runView(tx, tenantId, id)
    const label = `payment run ${run.number}`
    return {
      label,
      title: `${label} (${run.items.length} payments, ${run.total} ${run.currency}, from ${run.bank_account.name})`,
      path: `/console/payment-runs/${id}`,
    }
  },
  async approved(tx, actor, id) {
    await repo.updateRun(tx, actor.tenantId, id, { status: 'approved' })
    return [{ type: 'payment_run.approved', object: await runView(tx, actor.tenantId, id) }]
  },
  async rejected(tx, actor, id) {
    await repo.updateRun(tx, actor.tenantId, id, { status: 'draft' })
    return [{ type: 'payment_run.rejected', object: await runView(tx, actor.tenantId, id) }]
  },
}
