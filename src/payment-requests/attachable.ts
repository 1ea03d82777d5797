/**
 * A payment request's attachments and comments (attachments/documents.ts): seen as the request is; its requester,
 * `nav_request` or `accounts_payable` at its location, or an approval candidate acts.
 */
import { mayAct, type Attachable } from '../attachments/documents.ts'
import * as repo from './repository.ts'
import { accessOf, paymentRequestScope } from './view.service.ts'

export const paymentRequestAttachable: Attachable = {
  type: 'payment_request',
  segment: 'payment-requests',
  async load(db, actor, id) {
    const row = await repo.findPaymentRequest(
      db,
      actor.tenantId,
      id,
      paymentRequestScope(actor, await accessOf(db, actor)),
    )
    if (row === undefined) return null
    const doc = { type: 'payment_request', id, location_id: row.location_id, owner: row.requester_id }
    return {
      location_id: row.location_id,
      can_act: await mayAct(db, actor, doc, 'nav_request', 'accounts_payable'),
      uploader_may_delete: row.status === 'draft' || row.status === 'pending_approval',
      console_path: `/console/payment-requests/${id}`,
      label: `payment request ${row.number}`,
    }
  },
}
