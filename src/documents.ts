/**
 * The documents the approval engine approves, in one explicit list (docs/architecture.md, "How to add a
 * document"): each document module exports its handler, and this registers them all when the app is built —
 * no module registers itself as a side effect of being imported, so a document left out fails here, at start.
 */
import { registerDocuments } from './approvals/documents.service.ts'
import { billDocument } from './bills/approval.service.ts'
import { orderDocument } from './purchase-orders/approval.service.ts'
import { requestDocument } from './requests/approval.service.ts'

export const DOCUMENTS = [requestDocument, orderDocument, billDocument] as const

/** Registers every document's approval handler; called by buildApp (and by anything that decides outside it). */
export const registerAllDocuments = () => registerDocuments(DOCUMENTS)
