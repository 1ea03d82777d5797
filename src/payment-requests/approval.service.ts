/**
 * Payment requests as an approval document (approvals/documents.service.ts): approved after the last step →
 * `approved` (payable by a run); rejected by any step → `rejected` (the comment stays in its approvals).
 * Counted in `pending_approvals_count.payment`.
 */
import type { DocumentHandler } from '../approvals/documents.service.ts'
import { syncPaymentRequest } from './ledger.service.ts'
import * as repo from './repository.ts'
import { paymentRequestView } from './view.service.ts'

export const paymentRequestDocument: DocumentHandler = {
  type: 'payment_request',
  kind: 'payment',
  lock: async (tx, tenantId, id) => (await repo.lockPaymentRequest(tx, tenantId, id)) !== undefined,
  async describe(tx, tenantId, id) {
    const request = await paymentRequestView(tx, tenantId, id)
    const label = `payment request ${request.number}`
    return {
      label,
      title: `${label} to ${request.vendor.name} (${request.amount} ${request.currency}, ${request.location.name})`,
      path: `/console/payment-requests/${id}`,
    }
  },
  async approved(tx, actor, id) {
    await repo.updatePaymentRequest(tx, actor.tenantId, id, { status: 'approved' })
    await syncPaymentRequest(tx, actor.tenantId, id, 'approved')
    return [{ type: 'payment_request.approved', object: await paymentRequestView(tx, actor.tenantId, id) }]
  },
  async rejected(tx, actor, id) {
    await repo.updatePaymentRequest(tx, actor.tenantId, id, { status: 'rejected' })
    await syncPaymentRequest(tx, actor.tenantId, id, 'rejected')
    return [{ type: 'payment_request.rejected', object: await paymentRequestView(tx, actor.tenantId, id) }]
  },
}
