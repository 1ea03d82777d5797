/**
 * Expense reports as an approval document (approvals/documents.service.ts): approvals count in
 * `pending_approvals_count.expense`; approved after the last step → `approved` (its lines spent in the
 * ledger); rejected by any step → `rejected`, which the employee may edit and submit again (the earlier
 * approvals and their comments stay). The employee is told of the outcome.
 */
import type { DocumentHandler } from '../approvals/documents.service.ts'
import { reportApproved } from './ledger.service.ts'
import * as repo from './repository.ts'
import { reportView } from './view.service.ts'

export const expenseReportDocument: DocumentHandler = {
  type: 'expense_report',
  kind: 'expense',
  lock: (tx, tenantId, id) => repo.lockForDecision(tx, tenantId, id),
  async describe(tx, tenantId, id) {
    const r = await repo.mailFacts(tx, tenantId, id)
    const label = `expense report ${r.number}`
    const named = `${label}${r.title ? ` “${r.title}”` : ''}`
    const total = `${r.total} ${r.currency}`
    return {
      label,
      title: `${named} (${total}, ${r.location})`,
      path: `/console/expenses/${id}`,
      owner: { email: r.email, wants: r.wants, active: r.active, summary: `${named} (${total})` },
    }
  },
  async approved(tx, actor, id) {
    await repo.updateReport(tx, actor.tenantId, id, { status: 'approved' })
    await reportApproved(tx, actor, id)
    return [{ type: 'expense_report.approved', object: await reportView(tx, actor.tenantId, id) }]
  },
  async rejected(tx, actor, id) {
    await repo.updateReport(tx, actor.tenantId, id, { status: 'rejected' })
    return [{ type: 'expense_report.rejected', object: await reportView(tx, actor.tenantId, id) }]
  },
}
