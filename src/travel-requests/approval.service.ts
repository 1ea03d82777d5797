/**
 * Travel requests as an approval document (approvals/documents.service.ts): approvals count in
 * `pending_approvals_count.travel`; approved after the last step → `approved` (its estimates committed in the
 * ledger); rejected by any step → `rejected`, which the traveller may edit and submit again. The traveller is
 * told of the outcome.
 */
import type { DocumentHandler } from '../approvals/documents.service.ts'
import { travelApproved } from './ledger.service.ts'
import * as repo from './repository.ts'
import { travelView } from './view.service.ts'

export const travelRequestDocument: DocumentHandler = {
  type: 'travel_request',
  kind: 'travel',
  lock: async (tx, tenantId, id) => (await repo.lockTravel(tx, tenantId, id)) !== undefined,
  async describe(tx, tenantId, id) {
    const t = await repo.mailFacts(tx, tenantId, id)
    const label = `travel request ${t.number}`
    const named = `${label}${t.destination ? ` to ${t.destination}` : ''}`
    const total = `${t.total} ${t.currency}`
    return {
      label,
      title: `${named} (${total}, ${t.location})`,
      path: `/console/travel/${id}`,
      owner: { email: t.email, wants: t.wants, active: t.active, summary: `${named} (${total})` },
    }
  },
  async approved(tx, actor, id) {
    await repo.updateTravel(tx, actor.tenantId, id, { status: 'approved' })
    await travelApproved(tx, actor.tenantId, id)
    return [{ type: 'travel_request.approved', object: await travelView(tx, actor.tenantId, id) }]
  },
  async rejected(tx, actor, id) {
    await repo.updateTravel(tx, actor.tenantId, id, { status: 'rejected' })
    return [{ type: 'travel_request.rejected', object: await travelView(tx, actor.tenantId, id) }]
  },
}
