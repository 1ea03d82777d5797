/** A bill's attachments and comments (attachments/documents.ts): seen as the bill is; `accounts_payable` at its location or an approval candidate acts. */
import { mayAct, type Attachable } from '../attachments/documents.ts'
import * as repo from './repository.ts'
import { accessOf, billScope } from './view.service.ts'

export const billAttachable: Attachable = {
  type: 'bill',
  segment: 'bills',
  async load(db, actor, id) {
    const row = await repo.findBill(db, actor.tenantId, id, billScope(actor, await accessOf(db, actor)))
    if (row === undefined) return null
    const doc = { type: 'bill', id, location_id: row.location_id }
    return {
      location_id: row.location_id,
      can_act: await mayAct(db, actor, doc, 'accounts_payable'),
      uploader_may_delete: row.status === 'draft' || row.status === 'pending_approval',
      console_path: `/console/bills/${id}`,
      label: `bill ${row.number}`,
    }
  },
}
