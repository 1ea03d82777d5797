/**
 * What a payment request counts in the commitment ledger (docs/budgets.md, "For document modules"): one line,
 * its amount — `pending` while it awaits approval, `spent` once approved (and paid), nothing as a draft,
 * rejected or cancelled. Budget date: its submit date (UTC). Written in the transaction that changes it.
 */
import type { Kysely } from 'kysely'
import { dateUtc, currencyOf, planLedger, syncLedger, type LedgerLine } from '../ledger/ledger.service.ts'
import type { DB } from '../db/schema.ts'
import * as repo from './repository.ts'

async function linesOf(tx: Kysely<DB>, tenantId: number, id: number) {
  const row = (await repo.findPaymentRequest(tx, tenantId, id))!
  const doc = { type: 'payment_request', id, number: row.number }
  const counts =
    row.status === 'pending_approval'
      ? { pending: row.amount }
      : row.status === 'approved' || row.status === 'paid'
        ? { spent: row.amount }
        : undefined
  if (counts === undefined) return { doc, lines: [] as LedgerLine[] }
  const currency = await currencyOf(tx, tenantId, row.currency_id)
  const line: LedgerLine = {
    line: id,
    location: row.location_id,
    department: row.department_id,
    account: row.account_id,
    budget_date: dateUtc(row.submitted_at),
    currency: currency.name,
    rate: currency.rate,
    ...counts,
  }
  return { doc, lines: [line] }
}

/** The moves the request's current status makes (nothing written): for the budget check at submit. */
export async function planPaymentRequest(tx: Kysely<DB>, tenantId: number, id: number) {
  const { doc, lines } = await linesOf(tx, tenantId, id)
  return planLedger(tx, tenantId, doc, lines)
}

/** Writes what the request's current status counts; `reason` is the action (approved, rejected, cancelled). */
export async function syncPaymentRequest(tx: Kysely<DB>, tenantId: number, id: number, reason: string) {
  const { doc, lines } = await linesOf(tx, tenantId, id)
  await syncLedger(tx, tenantId, doc, lines, reason)
}
