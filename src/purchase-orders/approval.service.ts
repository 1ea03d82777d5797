/**
 * Purchase orders as an approval document (approvals/documents.service.ts). A chain runs either for the
 * issue of an order (status `pending_approval`) or for a revision held as `pending_revision`. Approved after
 * the last step: the order is issued, or the revision applied; rejected: the order goes back to `draft`, or
 * the revision is dropped — either way `purchase_order.rejected` records it.
 */
import type { DocumentHandler } from '../approvals/documents.service.ts'
import { syncDocument } from '../ledger/documents.service.ts'
import { markIssued, syncOrdered } from './lifecycle.service.ts'
import * as orderWrites from './write-repository.ts'
import * as repo from './repository.ts'
import { applyRevision } from './revision.service.ts'
import { orderView, type StoredRevision } from './view.service.ts'

export const orderDocument: DocumentHandler = {
  type: 'purchase_order',
  kind: 'order',
  lock: async (tx, tenantId, id) => (await orderWrites.lockOrder(tx, tenantId, id)) !== undefined,
  async describe(tx, tenantId, id) {
    const row = (await repo.findOrder(tx, tenantId, id))!
    const label = `purchase order ${row.number}`
    return { label, title: `${label} (${row.location_name})`, path: `/console/orders/${id}` }
  },
  async approved(tx, actor, id) {
    const row = (await repo.findOrder(tx, actor.tenantId, id))!
    if (row.status === 'pending_approval') {
      await markIssued(tx, actor.tenantId, row)
      await syncOrdered(tx, actor.tenantId, id, 'approved')
      return [{ type: 'purchase_order.issued', object: await orderView(tx, actor.tenantId, id) }]
    }
    const held = row.pending_revision as StoredRevision | null
    if (held === null) return []
    const order = await applyRevision(
      tx,
      actor,
      row,
      held.resolved,
      held.proposed_by,
      { approved_total: held.total, pending_revision: null },
      false,
    )
    await syncDocument(tx, actor.tenantId, 'purchase_order', id, 'approved')
    return [{ type: 'purchase_order.revised', object: order }]
  },
  async rejected(tx, actor, id) {
    const row = (await repo.findOrder(tx, actor.tenantId, id))!
    if (row.status === 'pending_approval') {
      await orderWrites.updateOrder(tx, actor.tenantId, id, { status: 'draft' })
      await syncDocument(tx, actor.tenantId, 'purchase_order', id, 'rejected')
    } else await orderWrites.updateOrder(tx, actor.tenantId, id, { pending_revision: null })
    return [{ type: 'purchase_order.rejected', object: await orderView(tx, actor.tenantId, id) }]
  },
}
