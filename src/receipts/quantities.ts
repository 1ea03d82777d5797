/**
 * The quantities rules of receipts, returns and voids (DECISIONS, "A receipt"), on an order's lines as read
 * with the order locked: which lines a receipt may name, and each line's received and rejected quantities
 * afterwards. Every change of received quantity is held to the same rules, whichever way it comes — a
 * receipt, a return, or voiding either: refused (409 naming the line) beyond the over-receipt tolerance,
 * below zero, below what is billed under `three_way`, or past what the quantity columns hold.
 */
import {
  addDecimal,
  compareDecimal,
  exceedsByPercent,
  fitsQuantity,
  parseDecimal,
  subtractDecimal,
  trimDecimal,
  withPercent,
} from '../core/decimal.ts'
import { conflict, validationFailed, type FieldErrors } from '../core/problem.ts'
import type { ReceivingOrder } from '../purchase-orders/receiving.service.ts'
import type { ReceiptRow } from './repository.ts'
import type { ReceiptInput } from './schema.ts'

type OrderLine = ReceivingOrder['lines'][number]
/** The procurement settings the quantity rules apply. */
export interface QuantitySettings {
  over_receipt_tolerance_percent: string
  match_mode: 'two_way' | 'three_way'
}
const QUANTITY_TEXT = 'at most 9999999999999999.9999'

/** What is wrong with a line's received quantity becoming `received` (none, or one sentence). */
function beyondTolerance(line: OrderLine, received: string, settings: QuantitySettings, what: string): string[] {
  const tolerance = settings.over_receipt_tolerance_percent
  if (!fitsQuantity(received))
    return [`line ${line.id}: ${received} received in all is more than a quantity can be (${QUANTITY_TEXT}); ${what}`]
  if (!exceedsByPercent(received, line.quantity, tolerance)) return []
  const before = trimDecimal(line.received_quantity)
  const limit = withPercent(line.quantity, tolerance)
  return [
    `line ${line.id}: ordered ${trimDecimal(line.quantity)}, received ${before}, still open ` +
      `${subtractDecimal(line.quantity, before)} (at most ${subtractDecimal(limit, before)} more with the ` +
      `${tolerance} % tolerance); ${what}`,
  ]
}

/** Under `three_way`, a line may not be left with less received than billed: what a return or void would break. */
function belowBilled(line: OrderLine, received: string, settings: QuantitySettings, what: 'return' | 'void'): string[] {
  if (settings.match_mode !== 'three_way' || compareDecimal(received, line.billed_quantity) >= 0) return []
  const billed = trimDecimal(line.billed_quantity)
  return what === 'void'
    ? [`line ${line.id} would have ${received} received but ${billed} billed`]
    : [`line ${line.id} would have ${received} received after the return but ${billed} billed (three-way matching)`]
}
export interface ReceiptLineValues {
  po_line_id: number
  accepted_quantity: string
  rejected_quantity: string
}
export interface Counters {
  id: number
  received_quantity: string
  rejected_quantity: string
}

/** The receipt's lines as written; 400 naming each line that is not the order's, named twice or empty. */
export function receiptLines(
  input: ReceiptInput,
  type: 'receipt' | 'return',
  order: { number: string; lines: readonly OrderLine[] },
): ReceiptLineValues[] {
  const errors: FieldErrors = {}
  const add = (field: string, message: string) => (errors[field] ??= []).push(message)
  const byId = new Map(order.lines.map((l) => [l.id, l]))
  const seen = new Set<number>()
  const lines = input.lines.map((l, i) => {
    const accepted = l.accepted_quantity ?? '0'
    const rejected = l.rejected_quantity ?? '0'
    if (!byId.has(l.po_line)) add(`lines.${i}.po_line`, `no line ${l.po_line} on purchase order ${order.number}`)
    if (seen.has(l.po_line)) add(`lines.${i}.po_line`, `line ${l.po_line} is named twice`)
    seen.add(l.po_line)
    if (parseDecimal(accepted) === 0n && parseDecimal(rejected) === 0n)
      add(`lines.${i}`, 'accepted_quantity or rejected_quantity must be greater than 0')
    if (type === 'return' && parseDecimal(rejected) !== 0n)
      add(`lines.${i}.rejected_quantity`, 'a return gives back accepted quantity only')
    return { po_line_id: l.po_line, accepted_quantity: accepted, rejected_quantity: rejected }
  })
  if (Object.keys(errors).length > 0) throw validationFailed(errors)
  return lines
}

/** Each named line's counters after the receipt or return; 409 naming every line it would break. */
export function receiptCounters(
  type: 'receipt' | 'return',
  lines: readonly ReceiptLineValues[],
  orderLines: readonly OrderLine[],
  settings: QuantitySettings,
): Counters[] {
  const byId = new Map(orderLines.map((l) => [l.id, l]))
  const problems: string[] = []
  const counters = lines.map((l) => {
    const line = byId.get(l.po_line_id)!
    const received = trimDecimal(line.received_quantity)
    if (line.closed) problems.push(`line ${line.id} is closed`)
    if (type === 'return') {
      if (compareDecimal(l.accepted_quantity, received) > 0)
        problems.push(`line ${line.id}: ${l.accepted_quantity} returned but only ${received} accepted`)
      else problems.push(...belowBilled(line, subtractDecimal(received, l.accepted_quantity), settings, 'return'))
      return {
        id: line.id,
        received_quantity: subtractDecimal(received, l.accepted_quantity),
        rejected_quantity: line.rejected_quantity,
      }
    }
    const total = addDecimal(received, l.accepted_quantity)
    const rejected = addDecimal(line.rejected_quantity, l.rejected_quantity)
    problems.push(...beyondTolerance(line, total, settings, `this receipt accepts ${l.accepted_quantity}`))
    if (!fitsQuantity(rejected))
      problems.push(`line ${line.id}: ${rejected} rejected in all is more than a quantity can be (${QUANTITY_TEXT})`)
    return { id: line.id, received_quantity: total, rejected_quantity: rejected }
  })
  if (problems.length > 0) throw conflict(`The ${type} is refused: ${problems.join('; ')}.`)
  return counters
}

/** Each line's counters after voiding `receipt`; 409 naming every line that would go below zero or billed. */
export function voidCounters(
  receipt: ReceiptRow,
  orderLines: readonly OrderLine[],
  settings: QuantitySettings,
): Counters[] {
  const byId = new Map(orderLines.map((l) => [l.id, l]))
  const problems: string[] = []
  const counters = receipt.lines.map((rl) => {
    const line = byId.get(rl.po_line)!
    const accepted = trimDecimal(rl.accepted_quantity)
    if (receipt.type === 'return') {
      // Voiding a return receives its quantity again: the same tolerance as a receipt.
      const again = addDecimal(line.received_quantity, accepted)
      problems.push(...beyondTolerance(line, again, settings, `voiding the return receives ${accepted} again`))
      return { id: line.id, received_quantity: again, rejected_quantity: line.rejected_quantity }
    }
    if (compareDecimal(line.received_quantity, accepted) < 0)
      problems.push(
        `line ${line.id} has ${trimDecimal(line.received_quantity)} received now (returns since), less than ${accepted}`,
      )
    const received = subtractDecimal(line.received_quantity, accepted)
    problems.push(...belowBilled(line, received, settings, 'void'))
    return {
      id: line.id,
      received_quantity: received,
      rejected_quantity: subtractDecimal(line.rejected_quantity, rl.rejected_quantity),
    }
  })
  if (problems.length > 0) throw conflict(`Receipt ${receipt.number} cannot be voided: ${problems.join('; ')}.`)
  return counters
}
