/**
 * The documents the approval engine approves, in one explicit list (docs/architecture.md, "How to add a
 * document"): each document module exports its handler, and this registers them all when the app is built —
 * no module registers itself as a side effect of being imported, so a document left out fails here, at start.
 */
import { registerDocuments } from './approvals/documents.service.ts'
import { registerAttachables } from './attachments/documents.ts'
import { billAttachable } from './bills/attachable.ts'
import { expenseReportAttachable, travelRequestAttachable } from './expense-reports/attachable.ts'
import { paymentRequestAttachable } from './payment-requests/attachable.ts'
import { orderAttachable } from './purchase-orders/attachable.ts'
import { receiptAttachable } from './receipts/attachable.ts'
import { requestAttachable } from './requests/attachable.ts'
import { billDocument } from './bills/approval.service.ts'
import { expenseReportDocument } from './expense-reports/approval.service.ts'
import { paymentRequestDocument } from './payment-requests/approval.service.ts'
import { paymentRunDocument } from './payment-runs/approval.service.ts'
import { orderDocument } from './purchase-orders/approval.service.ts'
import { requestDocument } from './requests/approval.service.ts'
import { travelRequestDocument } from './travel-requests/approval.service.ts'

export const DOCUMENTS = [
  requestDocument,
  orderDocument,
  billDocument,
  expenseReportDocument,
  travelRequestDocument,
  paymentRequestDocument,
  paymentRunDocument,
] as const

/** The documents that carry attachments and comments (attachments/documents.ts), in one explicit list too. */
export const ATTACHABLES = [
  requestAttachable,
  orderAttachable,
  receiptAttachable,
  billAttachable,
  expenseReportAttachable,
  travelRequestAttachable,
  paymentRequestAttachable,
] as const

/** Registers every document's approval handler; called by buildApp (and by anything that decides outside it). */
export const registerAllDocuments = () => {
  registerDocuments(DOCUMENTS)
  registerAttachables(ATTACHABLES)
}
