/**
 * Approval records → the API shape, shared by the inbox, the requests' `approvals` and the events: one
 * mapping, so an event's object is exactly what GET /api/v3/approvals/{id}/ returns.
 */
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'
import * as repo from './repository.ts'
import type { Approval } from './schema.ts'

export const toApproval = (row: repo.ApprovalRow): Approval => ({
  id: row.id,
  request: row.request_id,
  kind: 'order',
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

/** The approvals of these requests, by request id, in step order (for the requests' `approvals`). */
export async function approvalsByRequest(db: Kysely<DB>, tenantId: number, requestIds: number[]) {
  const byRequest = new Map<number, Approval[]>()
  for (const row of await repo.approvalsOfRequests(db, tenantId, requestIds)) {
    const list = byRequest.get(row.request_id) ?? []
    list.push(toApproval(row))
    byRequest.set(row.request_id, list)
  }
  return byRequest
}
