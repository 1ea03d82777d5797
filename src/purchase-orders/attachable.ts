/**
 * An order's attachments and comments (attachments/documents.ts): seen as the order is; `nav_purchase` at its
 * location or an approval candidate acts. An order made from a request lists the request's attachments too.
 */
import { mayAct, type Attachable } from '../attachments/documents.ts'
import { orderScope } from './access.service.ts'
import * as repo from './repository.ts'

export const orderAttachable: Attachable = {
  type: 'purchase_order',
  segment: 'purchase-orders',
  async load(db, actor, id) {
    const row = await repo.findOrder(db, actor.tenantId, id, await orderScope(db, actor))
    if (row === undefined) return null
    const doc = { type: 'purchase_order', id, location_id: row.location_id }
    return {
      location_id: row.location_id,
      can_act: await mayAct(db, actor, doc, 'nav_purchase'),
      uploader_may_delete: row.status === 'draft' || row.status === 'pending_approval',
      console_path: `/console/orders/${id}`,
      label: `purchase order ${row.number}`,
      inherits: row.request_id === null ? [] : [{ type: 'request', id: row.request_id }],
    }
  },
}
