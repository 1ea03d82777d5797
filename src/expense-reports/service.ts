/**
 * Expense reports (DECISIONS, "Expense reports and travel requests"): list, read, make and edit. Anyone with
 * `nav_request` at the location makes their own (the caller is the employee); the employee edits it (PUT)
 * while it is a draft, or after a rejection before submitting it again. Reads are scoped as view.service.ts
 * says (others 404).
 */
import type { Kysely } from 'kysely'
import { actingUser, type Actor } from '../access/actor.ts'
import { requireAnyAt } from '../access/location-permissions.ts'
import { audit } from '../audit/service.ts'
import { requireStatus } from '../core/lifecycle.ts'
import type { Page } from '../core/list-query.ts'
import { badRequest, forbidden, notFound } from '../core/problem.ts'
import type { DB } from '../db/schema.ts'
import { nextNumber } from '../db/numbering.ts'
import { inTransaction } from '../db/transaction.ts'
import { recordEvent } from '../events/service.ts'
import * as repo from './repository.ts'
import type { ExpenseListQuery, ExpenseReport, ExpenseReportInput } from './schema.ts'
import { reportValues } from './values.service.ts'
import { accessOf, reportScope, reportView, toReports, visibleReport } from './view.service.ts'

export async function listReports(db: Kysely<DB>, actor: Actor, query: ExpenseListQuery): Promise<Page<ExpenseReport>> {
  const page = await repo.pageOfReports(db, actor.tenantId, query, reportScope(actor, await accessOf(db, actor)))
  return { ...page, rows: await toReports(db, actor.tenantId, page.rows) }
}

export async function getReport(db: Kysely<DB>, actor: Actor, id: number): Promise<ExpenseReport> {
  const row = await visibleReport(db, actor, await accessOf(db, actor), id)
  return (await toReports(db, actor.tenantId, [row]))[0]!
}

/** The reports of these ids the actor may see (others left out): for the approvals inbox. */
export async function reportsByIds(db: Kysely<DB>, actor: Actor, ids: readonly number[]): Promise<ExpenseReport[]> {
  if (ids.length === 0) return []
  const scope = reportScope(actor, await accessOf(db, actor))
  const rows = await Promise.all([...new Set(ids)].map((id) => repo.findReport(db, actor.tenantId, id, scope)))
  return toReports(
    db,
    actor.tenantId,
    rows.filter((r) => r !== undefined),
  )
}

/** Only the employee acts on their report; others who may see it get 403. */
export function requireEmployee(actor: Actor, row: { employee_id: number; number: string }, action: string) {
  if (row.employee_id !== actor.userId)
    throw forbidden(`Only the employee who made expense report ${row.number} may ${action} it.`)
}

export async function createReport(db: Kysely<DB>, actor: Actor, input: ExpenseReportInput): Promise<ExpenseReport> {
  const userId = actingUser(actor)
  const access = await accessOf(db, actor)
  return inTransaction(db, async (tx) => {
    const { values, lines } = await reportValues(tx, actor, access, input)
    const number = await nextNumber(tx, actor.tenantId, 'expense_report')
    const id = await repo.insertReport(tx, actor.tenantId, number, userId, values)
    await repo.replaceLines(tx, actor.tenantId, id, lines)
    await audit(tx, actor, {
      action: 'expense_report.create',
      resourceType: 'expense_report',
      resourceId: id,
      changes: input,
    })
    const report = await reportView(tx, actor.tenantId, id)
    await recordEvent(tx, actor.tenantId, 'expense_report.created', report)
    return report
  })
}

/** The report locked for an edit: its employee's, a draft or rejected, where they hold `nav_request`. */
async function editableReport(tx: Kysely<DB>, actor: Actor, access: Awaited<ReturnType<typeof accessOf>>, id: number) {
  const row = await visibleReport(tx, actor, access, id, true)
  requireEmployee(actor, row, 'edit')
  requireStatus(
    { subject: `Expense report ${row.number}`, noun: 'expense report' },
    row.status,
    ['draft', 'rejected'],
    'edited',
  )
  requireAnyAt(access, row.location_id, 'nav_request')
  return row
}

/**
 * Replaces a draft or rejected report (the employee; `nav_request` where it is and where it moves to). Lines
 * naming one of its line ids keep them; a receipt must be an attachment of this report.
 */
export async function putReport(
  db: Kysely<DB>,
  actor: Actor,
  id: number,
  input: ExpenseReportInput,
): Promise<ExpenseReport> {
  const access = await accessOf(db, actor)
  return inTransaction(db, async (tx) => {
    const row = await editableReport(tx, actor, access, id)
    const existing = { id, lines: row.lines.map((l) => ({ id: l.id, account_id: l.account_id })) }
    const { values, lines } = await reportValues(tx, actor, access, input, existing)
    await repo.updateReport(tx, actor.tenantId, id, values)
    await repo.replaceLines(tx, actor.tenantId, id, lines)
    await audit(tx, actor, {
      action: 'expense_report.update',
      resourceType: 'expense_report',
      resourceId: id,
      changes: input,
    })
    // No event: editing has no event type (DECISIONS lists the report's events).
    return reportView(tx, actor.tenantId, id)
  })
}

/**
 * Names `receipt` (an attachment of this report) as line `lineId`'s receipt, leaving the rest as it is: what the
 * console's per-line upload does, in one transaction with the report locked (two uploads at once each keep
 * their line). The same rules as a PUT: the employee, while the report is a draft or rejected.
 */
export async function setReceipt(
  db: Kysely<DB>,
  actor: Actor,
  id: number,
  lineId: number,
  receipt: number,
): Promise<ExpenseReport> {
  const access = await accessOf(db, actor)
  return inTransaction(db, async (tx) => {
    const row = await editableReport(tx, actor, access, id)
    if (!(await repo.attachmentsOfReport(tx, actor.tenantId, id, [receipt])).has(receipt))
      throw badRequest(
        `Attachment ${receipt} is not an attachment of expense report ${row.number}; upload it to this report first.`,
      )
    if (!(await repo.setLineReceipt(tx, actor.tenantId, id, lineId, receipt)))
      throw notFound(`Expense report ${row.number} has no line ${lineId}.`)
    await audit(tx, actor, {
      action: 'expense_report.update',
      resourceType: 'expense_report',
      resourceId: id,
      changes: { lines: [{ id: lineId, receipt }] },
    })
    return reportView(tx, actor.tenantId, id)
  })
}
