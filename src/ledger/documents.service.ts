/**
 * What each line of a request, a purchase order and a bill counts now (DECISIONS, "What counts"), as
 * `LedgerLine`s for planLedger/syncLedger. Each document service calls `plan…`/`sync…` in the transaction that
 * changes the document, after the change, with the action as the reason.
 *
 * - A request: `pending` while it awaits approval; `committed` once approved, each line until an order of it is
 *   issued (or closed); nothing as a draft, rejected or cancelled. Budget date: its submit date (UTC).
 * - An order: awaiting approval, `pending` only what its request did not count (a line with a request line:
 *   the excess of its amount over the request line's, in the same currency; others: all); issued, `committed`
 *   quantity − billed quantity at its unit price per open line (a closed line, a closed order: nothing).
 *   Budget date: its request's, else its issue date.
 * - A bill: `spent` each line from its submit (awaiting approval, approved, paid). Budget date: its order's,
 *   else its invoice date.
 * Net line amounts (quantity × unit price, before tax), in the document's currency.
 */
import type { Kysely } from 'kysely'
import { compareDecimal, lineAmount, parseDecimal, subtractDecimal } from '../core/decimal.ts'
import type { DB } from '../db/schema.ts'
import * as docs from './documents.repository.ts'
import {
  currencyOf,
  planLedger,
  syncLedger,
  todayUtc,
  type LedgerDocument,
  type LedgerLine,
  type LedgerMove,
} from './ledger.service.ts'

interface Planned {
  doc: LedgerDocument
  lines: LedgerLine[]
}

async function requestLedger(tx: Kysely<DB>, tenantId: number, id: number): Promise<Planned | undefined> {
  const r = await docs.requestFacts(tx, tenantId, id)
  if (r === undefined) return undefined
  const cur = await currencyOf(tx, tenantId, r.currency_id)
  const doc = { type: 'request', id, number: `#${id}` }
  if (r.status !== 'pending' && r.status !== 'approved') return { doc, lines: [] }
  const lines = r.lines.map((l): LedgerLine => ({
    line: l.id,
    location: r.location_id,
    department: r.department_id,
    account: l.account_id,
    budget_date: r.submitted_at ?? todayUtc(),
    currency: cur.name,
    rate: cur.rate,
    ...(r.status === 'pending'
      ? { pending: lineAmount(l.quantity, l.unit_price) }
      : { committed: l.ordered ? '0' : lineAmount(l.quantity, l.unit_price) }),
  }))
  return { doc, lines }
}

const positive = (a: string, b: string) => (compareDecimal(a, b) > 0 ? subtractDecimal(a, b) : '0')

async function orderLedger(tx: Kysely<DB>, tenantId: number, id: number): Promise<Planned | undefined> {
  const o = await docs.orderFacts(tx, tenantId, id)
  if (o === undefined) return undefined
  const cur = await currencyOf(tx, tenantId, o.currency_id)
  const doc = { type: 'purchase_order', id, number: o.number }
  if (o.status !== 'pending_approval' && o.status !== 'issued') return { doc, lines: [] }
  const sameCurrency = o.request_currency_id === o.currency_id
  const lines = o.lines.map((l): LedgerLine => {
    const amount = lineAmount(l.quantity, l.unit_price)
    const base = {
      line: l.id,
      location: o.location_id,
      department: o.department_id,
      account: l.account_id,
      budget_date: o.request_date ?? o.issued_at ?? todayUtc(),
      currency: cur.name,
      rate: cur.rate,
      from:
        o.request_id !== null && l.request_line_id !== null
          ? { type: 'request', id: o.request_id, line: l.request_line_id }
          : undefined,
    }
    if (o.status === 'pending_approval') {
      const counted =
        l.request_quantity !== null && l.request_unit_price !== null && sameCurrency
          ? lineAmount(l.request_quantity, l.request_unit_price)
          : '0'
      return { ...base, pending: positive(amount, counted) }
    }
    if (l.closed) return base
    const open = positive(l.quantity, l.billed_quantity)
    return { ...base, committed: parseDecimal(open) === 0n ? '0' : lineAmount(open, l.unit_price) }
  })
  return { doc, lines }
}

async function billLedger(tx: Kysely<DB>, tenantId: number, id: number): Promise<Planned | undefined> {
  const b = await docs.billFacts(tx, tenantId, id)
  if (b === undefined) return undefined
  const cur = await currencyOf(tx, tenantId, b.currency_id)
  const doc = { type: 'bill', id, number: b.number }
  if (b.status !== 'pending_approval' && b.status !== 'approved' && b.status !== 'paid') return { doc, lines: [] }
  const lines = b.lines.map((l): LedgerLine => ({
    line: l.id,
    location: b.location_id,
    department: b.department_id,
    account: l.account_id,
    budget_date: b.order_date ?? b.invoice_date ?? todayUtc(),
    currency: cur.name,
    rate: cur.rate,
    from:
      b.order_id !== null && l.po_line_id !== null
        ? { type: 'purchase_order', id: b.order_id, line: l.po_line_id }
        : undefined,
    spent: lineAmount(l.quantity, l.unit_price),
  }))
  return { doc, lines }
}

const LEDGERS = { request: requestLedger, purchase_order: orderLedger, bill: billLedger }
export type CountedDocument = keyof typeof LEDGERS

/** The moves that would bring the document's entries to what it counts now (nothing written). */
export async function planDocument(
  tx: Kysely<DB>,
  tenantId: number,
  type: CountedDocument,
  id: number,
): Promise<LedgerMove[]> {
  const planned = await LEDGERS[type](tx, tenantId, id)
  return planned === undefined ? [] : planLedger(tx, tenantId, planned.doc, planned.lines)
}

/** Brings the document's entries to what it counts now, with `reason`; returns the moves written. */
export async function syncDocument(
  tx: Kysely<DB>,
  tenantId: number,
  type: CountedDocument,
  id: number,
  reason: string,
): Promise<LedgerMove[]> {
  const planned = await LEDGERS[type](tx, tenantId, id)
  return planned === undefined ? [] : syncLedger(tx, tenantId, planned.doc, planned.lines, reason)
}

/** The request an order came from and the orders a bill's lines name: what moves when they move. */
export const orderOfBill = async (tx: Kysely<DB>, tenantId: number, billId: number) =>
  (await docs.billFacts(tx, tenantId, billId))?.order_id ?? null
export const requestOfOrder = async (tx: Kysely<DB>, tenantId: number, orderId: number) =>
  (await docs.orderFacts(tx, tenantId, orderId))?.request_id ?? null

/** The ledger after a bill's status changed: its lines (spent) and its order's (what is left committed). */
export async function syncBilled(
  tx: Kysely<DB>,
  tenantId: number,
  billId: number,
  orderId: number | null,
  reason: string,
): Promise<void> {
  if (orderId !== null) await syncDocument(tx, tenantId, 'purchase_order', orderId, reason)
  await syncDocument(tx, tenantId, 'bill', billId, reason)
}
