/**
 * Requests as an approval document (approvals/documents.service.ts): how messages name a request, what the
 * end of its chain does — approved after its last step, rejected by any one step — and the event each records
 * (the request as GET /api/v3/requests/{id}/ returns it). Its requester is told of the outcome.
 */
import type { DocumentHandler } from '../approvals/documents.service.ts'
import { trimDecimal } from '../core/decimal.ts'
import { syncDocument } from '../ledger/documents.service.ts'
import * as repo from './repository.ts'
import { requestView } from './view.service.ts'

export const requestDocument: DocumentHandler = {
  type: 'request',
  kind: 'order',
  lock: (tx, tenantId, id) => repo.lockRequest(tx, tenantId, id),
  async describe(tx, tenantId, id) {
    const r = await repo.mailFacts(tx, tenantId, id)
    const named = `request #${r.id}${r.description ? ` “${r.description}”` : ''}`
    const total = `${trimDecimal(r.total)} ${r.currency}`
    return {
      label: `request #${r.id}`,
      title: `${named} (${total}, ${r.location})`,
      path: `/console/requests/${r.id}`,
      owner: {
        email: r.requester_email,
        wants: r.requester_wants,
        active: r.requester_active,
        summary: `${named} (${total})`,
      },
    }
  },
  async approved(tx, actor, id) {
    await repo.setStatus(tx, actor.tenantId, id, 'approved')
    await syncDocument(tx, actor.tenantId, 'request', id, 'approved')
    return [{ type: 'request.approved', object: await requestView(tx, actor.tenantId, id) }]
  },
  async rejected(tx, actor, id) {
    await repo.setStatus(tx, actor.tenantId, id, 'rejected')
    await syncDocument(tx, actor.tenantId, 'request', id, 'rejected')
    return [{ type: 'request.rejected', object: await requestView(tx, actor.tenantId, id) }]
  },
}
