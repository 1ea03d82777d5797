/** A request's attachments and comments (attachments/documents.ts): seen as the request is; its requester, a buyer there or an approver acts. */
import { requestScope } from '../access/location-permissions.ts'
import { mayAct, type Attachable } from '../attachments/documents.ts'
import * as repo from './repository.ts'

export const requestAttachable: Attachable = {
  type: 'request',
  segment: 'requests',
  async load(db, actor, id) {
    const scope = await requestScope(db, actor)
    if (scope !== undefined && !(await repo.isVisible(db, actor.tenantId, id, scope[0], scope[1]))) return null
    const row = await repo.findRequest(db, actor.tenantId, id)
    if (row === undefined) return null
    const doc = { type: 'request', id, location_id: row.location_id, owner: row.requester_id }
    return {
      location_id: row.location_id,
      can_act: await mayAct(db, actor, doc, 'nav_purchase'),
      uploader_may_delete: row.status === 'draft' || row.status === 'pending',
      console_path: `/console/requests/${id}`,
      label: `request ${id}`,
    }
  },
}
