/**
 * Approval records → the API shape, shared by the inbox, the requests' `approvals` and the events: one
 * mapping, so an event's object is exactly what GET /api/v3/approvals/{id}/ returns.
 */
import type { Kysely } from 'kysely'
import type { DB, DocumentType } from '../db/schema.ts'
import * as repo from './repository.ts'
import type { Approval } from './schema.ts'

export const toApproval = (row: repo.ApprovalRow): Approval => ({
  id: row.id,
  request: row.document_type === 'request' ? row.document_id : null,
  document: { type: row.document_type, id: row.document_id },
  kind: row.kind,
  step: row.step,
  status: row.status,
  candidates: row.candidates,
  approver: row.status === 'approved' || row.status === 'rejected' ? row.acted_by : null,
  acted_by: row.acted_by,
  on_behalf_of: row.on_behalf_of,
  comment: row.comment,
  created_at: row.created_at.toISOString(),
  acted_at: row.acted_at === null ? null : row.acted_at.toISOString(),
})

/** The approvals of these documents (of one type), by document id, in the order they were opened. */
export async function approvalsByDocument(db: Kysely<DB>, tenantId: number, type: DocumentType, ids: number[]) {
  const byDocument = new Map<number, Approval[]>()
  for (const row of await repo.approvalsOfDocuments(db, tenantId, type, ids)) {
    const list = byDocument.get(row.document_id) ?? []
    list.push(toApproval(row))
    byDocument.set(row.document_id, list)
  }
  return byDocument
}

/** The approvals of these requests, by request id, in step order (for the requests' `approvals`). */
export const approvalsByRequest = (db: Kysely<DB>, tenantId: number, requestIds: number[]) =>
  approvalsByDocument(db, tenantId, 'request', requestIds)
