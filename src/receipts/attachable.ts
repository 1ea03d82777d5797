/** A receipt's attachments and comments (attachments/documents.ts): seen as the receipt is; `nav_receive` at its location acts. */
import { actorLocationAccess } from '../access/location-permissions.ts'
import { mayAct, type Attachable } from '../attachments/documents.ts'
import { receivingScope } from '../purchase-orders/receiving.service.ts'
import * as repo from './repository.ts'

export const receiptAttachable: Attachable = {
  type: 'receipt',
  segment: 'receipts',
  async load(db, actor, id) {
    const locations = receivingScope(actor, await actorLocationAccess(db, actor))?.[1]
    const row = await repo.findReceipt(db, actor.tenantId, id, locations)
    if (row === undefined) return null
    const doc = { type: 'receipt', id, location_id: row.location_id }
    return {
      location_id: row.location_id,
      can_act: await mayAct(db, actor, doc, 'nav_receive'),
      // A receipt has no draft: only a superuser deletes its attachments.
      uploader_may_delete: false,
      console_path: `/console/receipts/${id}`,
      label: `receipt ${row.number}`,
    }
  },
}
