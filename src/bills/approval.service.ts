/**
 * Bills as an approval document (approvals/documents.service.ts): approved after the last step → `approved`;
 * rejected by any step → back to `draft` (the comment stays in its approvals) and its lines no longer count
 * as billed on the order.
 */
import { registerDocument } from '../approvals/documents.service.ts'
import { lockOrderLines, refreshBilled } from '../purchase-orders/receiving.service.ts'
import * as repo from './repository.ts'
import { billView } from './view.service.ts'

registerDocument('bill', {
  lock: async (tx, tenantId, id) => (await repo.lockBill(tx, tenantId, id)) !== undefined,
  async approved(tx, actor, id) {
    await repo.updateBill(tx, actor.tenantId, id, { status: 'approved' })
    return [{ type: 'bill.approved', object: await billView(tx, actor.tenantId, id) }]
  },
  async rejected(tx, actor, id) {
    const row = (await repo.lockBill(tx, actor.tenantId, id))!
    if (row.order_id !== null) await lockOrderLines(tx, actor.tenantId, row.order_id)
    await repo.updateBill(tx, actor.tenantId, id, { status: 'draft' })
    if (row.order_id !== null) await refreshBilled(tx, actor.tenantId, row.order_id)
    return [{ type: 'bill.rejected', object: await billView(tx, actor.tenantId, id) }]
  },
})
