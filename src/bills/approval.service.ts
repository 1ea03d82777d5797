/**
 * Bills as an approval document (approvals/documents.service.ts): approved after the last step → `approved`;
 * rejected by any step → back to `draft` (the comment stays in its approvals) and its lines no longer count
 * as billed on the order.
 */
import type { DocumentHandler } from '../approvals/documents.service.ts'
import { lockOrderLines } from '../purchase-orders/receiving.service.ts'
import { syncBilled } from '../ledger/documents.service.ts'
import { refreshBilled } from './billed.service.ts'
import * as repo from './repository.ts'
import { billView } from './view.service.ts'

export const billDocument: DocumentHandler = {
  type: 'bill',
  kind: 'bill',
  lock: async (tx, tenantId, id) => (await repo.lockBill(tx, tenantId, id)) !== undefined,
  async describe(tx, tenantId, id) {
    const bill = await billView(tx, tenantId, id)
    const label = `bill ${bill.number}`
    return { label, title: `${label} (${bill.location.name})`, path: `/console/bills/${id}` }
  },
  async approved(tx, actor, id) {
    await repo.updateBill(tx, actor.tenantId, id, { status: 'approved' })
    await syncBilled(tx, actor.tenantId, id, null, 'approved')
    return [{ type: 'bill.approved', object: await billView(tx, actor.tenantId, id) }]
  },
  async rejected(tx, actor, id) {
    const row = (await repo.lockBill(tx, actor.tenantId, id))!
    if (row.order_id !== null) await lockOrderLines(tx, actor.tenantId, row.order_id)
    await repo.updateBill(tx, actor.tenantId, id, { status: 'draft' })
    if (row.order_id !== null) await refreshBilled(tx, actor.tenantId, row.order_id)
    await syncBilled(tx, actor.tenantId, id, row.order_id, 'rejected')
    return [{ type: 'bill.rejected', object: await billView(tx, actor.tenantId, id) }]
  },
}
