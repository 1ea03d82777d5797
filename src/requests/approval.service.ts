/**
 * Requests as an approval document (approvals/documents.service.ts): what the end of a request's chain does —
 * approved after its last step, rejected by any one step — and the event each records (the request as
 * GET /api/v3/requests/{id}/ returns it).
 */
import { registerDocument } from '../approvals/documents.service.ts'
import * as repo from './repository.ts'
import { requestView } from './view.service.ts'

registerDocument('request', {
  lock: (tx, tenantId, id) => repo.lockRequest(tx, tenantId, id),
  async approved(tx, actor, id) {
    await repo.setStatus(tx, actor.tenantId, id, 'approved')
    return [{ type: 'request.approved', object: await requestView(tx, actor.tenantId, id) }]
  },
  async rejected(tx, actor, id) {
    await repo.setStatus(tx, actor.tenantId, id, 'rejected')
    return [{ type: 'request.rejected', object: await requestView(tx, actor.tenantId, id) }]
  },
})
