/**
 * Expense reports' and travel requests' attachments and comments (attachments/documents.ts): receipts are
 * attachments of their report. Seen as the document is; its employee or traveller, `accounts_payable` at its
 * location and its approval candidates act; an uploader deletes their own while the document is a draft,
 * awaiting approval, or rejected (being edited to be submitted again).
 */
import type { Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import { mayAct, type Attachable } from '../attachments/documents.ts'
import type { DB } from '../db/schema.ts'
import { findTravel } from '../travel-requests/repository.ts'
import { travelScope } from '../travel-requests/view.service.ts'
import * as repo from './repository.ts'
import { accessOf, reportScope } from './view.service.ts'

const EDITABLE = ['draft', 'pending_approval', 'rejected']

async function load(db: Kysely<DB>, actor: Actor, type: 'expense_report' | 'travel_request', id: number) {
  const access = await accessOf(db, actor)
  const row =
    type === 'expense_report'
      ? await repo.findReport(db, actor.tenantId, id, reportScope(actor, access))
      : await findTravel(db, actor.tenantId, id, travelScope(actor, access))
  if (row === undefined) return null
  const owner = 'employee_id' in row ? row.employee_id : row.traveller_id
  const doc = { type, id, location_id: row.location_id, owner }
  return {
    location_id: row.location_id,
    can_act: await mayAct(db, actor, doc, 'accounts_payable'),
    uploader_may_delete: EDITABLE.includes(row.status),
    console_path: type === 'expense_report' ? `/console/expenses/${id}` : `/console/travel/${id}`,
    label: type === 'expense_report' ? `expense report ${row.number}` : `travel request ${row.number}`,
  }
}

export const expenseReportAttachable: Attachable = {
  type: 'expense_report',
  segment: 'expense-reports',
  load: (db, actor, id) => load(db, actor, 'expense_report', id),
}

export const travelRequestAttachable: Attachable = {
  type: 'travel_request',
  segment: 'travel-requests',
  load: (db, actor, id) => load(db, actor, 'travel_request', id),
}
