/**
 * An expense report's status machine (DECISIONS): draft → submit → pending_approval → approved | rejected (the
 * employee edits it and submits it again; the earlier approvals stay) ; approved → reimburse → reimbursed;
 * cancel from draft or pending_approval by the employee. Any other transition → 409 naming the current status.
 *
 * Submit converts every line into the report's currency at the rates in force now and stores those rates with
 * the lines and the report: the amounts never change after. A line above `receipt_required_over` (procurement
 * settings) without a receipt that is an attachment of this report → 409 naming the lines.
 */
import type { Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import { requireAnyAt } from '../access/location-permissions.ts'
import { planChain } from '../approvals/chain.service.ts'
import type { MailBase } from '../approvals/notify.service.ts'
import { cancelChain, startChain } from '../approvals/service.ts'
import { audit } from '../audit/service.ts'
import { checkBudgets, recordBudgetOutcome, withBudgetSteps } from '../budgets/check.service.ts'
import { compareDecimal, sumDecimals } from '../core/decimal.ts'
import { requireStatus } from '../core/lifecycle.ts'
import { conflict } from '../core/problem.ts'
import type { DB } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import { recordEvent } from '../events/service.ts'
import { planLedger } from '../ledger/ledger.service.ts'
import { procurementSettings } from '../procurement-settings/service.ts'
import { convert } from './convert.ts'
import { reportApproved, spentLines } from './ledger.service.ts'
import { ratesOf } from './references.repository.ts'
import * as repo from './repository.ts'
import type { ExpenseReport, ReimburseInput } from './schema.ts'
import { requireEmployee } from './service.ts'
import type { ExpenseStatus } from './tables.ts'
import { accessOf, reportView, visibleReport } from './view.service.ts'

const requireReportStatus = (row: repo.ExpenseRow, allowed: readonly ExpenseStatus[], action: string) =>
  requireStatus({ subject: `Expense report ${row.number}`, noun: 'expense report' }, row.status, allowed, action)

const lineName = (l: repo.ExpenseLineRow, i: number) =>
  `line ${i + 1} (${[l.date, l.merchant || l.description].filter((s) => s !== '').join(', ')})`

/** Converts the lines at today's rates and locks them; returns the locked lines' amounts in the report currency. */
async function lockRates(tx: Kysely<DB>, tenantId: number, row: repo.ExpenseRow) {
  const travelCurrency =
    row.travel_request_id === null ? undefined : await repo.travelCurrency(tx, tenantId, row.travel_request_id)
  const rates = await ratesOf(tx, tenantId, [
    row.currency_id,
    ...row.lines.map((l) => l.currency_id),
    ...(travelCurrency === undefined ? [] : [travelCurrency]),
  ])
  const reportRate = rates.get(row.currency_id)!
  const converted: string[] = []
  for (const l of row.lines) {
    const rate = rates.get(l.currency_id)!
    const amount = convert(l.amount, rate, reportRate)
    converted.push(amount)
    await repo.lockLine(tx, tenantId, l.id, rate, amount)
  }
  await repo.updateReport(tx, tenantId, row.id, {
    rate: reportRate,
    travel_rate: travelCurrency === undefined ? null : rates.get(travelCurrency)!,
    total: sumDecimals(converted),
  })
  return converted
}

/** 409 naming every line above the threshold without a receipt attached to this report. */
async function requireReceipts(tx: Kysely<DB>, tenantId: number, row: repo.ExpenseRow, converted: string[]) {
  const threshold = (await procurementSettings(tx, tenantId)).receipt_required_over
  const named = row.lines.flatMap((l) => (l.receipt === null ? [] : [l.receipt]))
  const attached = await repo.attachmentsOfReport(tx, tenantId, row.id, named)
  const missing = row.lines.flatMap((l, i) =>
    compareDecimal(converted[i]!, threshold) > 0 && (l.receipt === null || !attached.has(l.receipt))
      ? [lineName(l, i)]
      : [],
  )
  if (missing.length > 0)
    throw conflict(
      `Expense report ${row.number} needs a receipt on ${missing.join(', ')}: each line above ${threshold} ` +
        `${row.currency} needs one. Upload each receipt to the report, name it as the line's receipt, then submit ` +
        'again.',
    )
}

/** `base`: where the links of the approval e-mail start (none without it). */
export async function submitReport(db: Kysely<DB>, actor: Actor, id: number, base?: MailBase): Promise<ExpenseReport> {
  const access = await accessOf(db, actor)
  return inTransaction(db, async (tx) => {
    const row = await visibleReport(tx, actor, access, id, true)
    requireEmployee(actor, row, 'submit')
    requireReportStatus(row, ['draft', 'rejected'], 'submitted')
    requireAnyAt(access, row.location_id, 'nav_request')
    const converted = await lockRates(tx, actor.tenantId, row)
    await requireReceipts(tx, actor.tenantId, row, converted)
    const total = sumDecimals(converted)
    // The budgets' check of what approval will spend: its lines as locked now (DECISIONS, "Checks").
    const locked = (await repo.findReport(tx, actor.tenantId, id))!
    const doc = { type: 'expense_report', id, number: row.number }
    const moves = await planLedger(tx, actor.tenantId, doc, spentLines(locked, locked.rate!))
    const budgets = await checkBudgets(tx, actor.tenantId, moves, {
      submitterId: row.employee_id,
      noun: 'expense report',
    })
    const rules = await planChain(tx, actor.tenantId, {
      document: 'expense_report',
      locationId: row.location_id,
      total,
      currencyId: row.currency_id,
      requesterId: row.employee_id,
    })
    const chain = withBudgetSteps(budgets.steps, rules)
    await repo.updateReport(tx, actor.tenantId, id, {
      status: chain.length === 0 ? 'approved' : 'pending_approval',
      submitted_at: new Date(),
    })
    if (chain.length > 0)
      await startChain(
        tx,
        actor,
        { type: 'expense_report', id, locationId: row.location_id, submitterId: row.employee_id },
        chain,
        base,
      )
    else await reportApproved(tx, actor, id)
    await recordBudgetOutcome(tx, actor.tenantId, { type: 'expense_report', id }, budgets)
    await audit(tx, actor, { action: 'expense_report.submit', resourceType: 'expense_report', resourceId: id })
    const report = await reportView(tx, actor.tenantId, id)
    await recordEvent(tx, actor.tenantId, 'expense_report.submitted', report)
    if (chain.length === 0) await recordEvent(tx, actor.tenantId, 'expense_report.approved', report)
    else await recordEvent(tx, actor.tenantId, 'approval.created', report.approvals.at(-1)!)
    return report
  })
}

export async function cancelReport(db: Kysely<DB>, actor: Actor, id: number): Promise<ExpenseReport> {
  const access = await accessOf(db, actor)
  return inTransaction(db, async (tx) => {
    const row = await visibleReport(tx, actor, access, id, true)
    requireEmployee(actor, row, 'cancel')
    requireReportStatus(row, ['draft', 'pending_approval'], 'cancelled')
    await repo.updateReport(tx, actor.tenantId, id, { status: 'cancelled' })
    await cancelChain(tx, actor, 'expense_report', id)
    await audit(tx, actor, { action: 'expense_report.cancel', resourceType: 'expense_report', resourceId: id })
    const report = await reportView(tx, actor.tenantId, id)
    await recordEvent(tx, actor.tenantId, 'expense_report.cancelled', report)
    return report
  })
}

/** Marks an approved report reimbursed (accounts_payable at its location). */
export async function reimburseReport(
  db: Kysely<DB>,
  actor: Actor,
  id: number,
  input: ReimburseInput,
): Promise<ExpenseReport> {
  const access = await accessOf(db, actor)
  return inTransaction(db, async (tx) => {
    const row = await visibleReport(tx, actor, access, id, true)
    requireAnyAt(access, row.location_id, 'accounts_payable')
    requireReportStatus(row, ['approved'], 'reimbursed')
    await repo.updateReport(tx, actor.tenantId, id, {
      status: 'reimbursed',
      reimbursed_at: input.reimbursed_at ?? new Date(),
      payment_reference: input.payment_reference ?? null,
    })
    await audit(tx, actor, {
      action: 'expense_report.reimburse',
      resourceType: 'expense_report',
      resourceId: id,
      changes: input,
    })
    const report = await reportView(tx, actor.tenantId, id)
    await recordEvent(tx, actor.tenantId, 'expense_report.reimbursed', report)
    return report
  })
}
