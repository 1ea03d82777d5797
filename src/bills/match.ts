/**
 * Matching at submit (DECISIONS, "Matching at submit"): per bill line with a `po_line`, counting this bill and
 * every other submitted, approved or paid bill on that order line (the order line's `billed_quantity`, read
 * with the order's lines locked): `quantity_over_ordered` (billed > ordered), `quantity_over_received`
 * (billed > accepted received, `three_way` only), `price_over_tolerance` (unit price above the order's by
 * more than `price_tolerance_percent`), `line_closed`. Messages say what a person needs to resolve it.
 */
import {
  addDecimal,
  compareDecimal,
  exceedsByPercent,
  fitsQuantity,
  trimDecimal,
  withPercent,
} from '../core/decimal.ts'
import type { BillException, BillLineRow } from './repository.ts'

export interface OrderLineFacts {
  id: number
  description: string
  quantity: string
  unit_price: string
  received_quantity: string
  billed_quantity: string
  closed: boolean
}

export interface MatchSettings {
  match_mode: 'two_way' | 'three_way'
  price_tolerance_percent: string
}

export function matchBill(
  lines: readonly BillLineRow[],
  orderLines: readonly OrderLineFacts[],
  settings: MatchSettings,
): BillException[] {
  const byId = new Map(orderLines.map((l) => [l.id, l]))
  const exceptions: BillException[] = []
  lines.forEach((line, i) => {
    if (line.po_line === null) return
    const po = byId.get(line.po_line)
    if (po === undefined) return
    const name = `Line ${i + 1} (${line.description || po.description || `order line ${po.id}`})`
    const push = (code: BillException['code'], message: string) => exceptions.push({ line: line.id, code, message })
    const quantity = trimDecimal(line.quantity)
    const billed = addDecimal(po.billed_quantity, quantity)
    const earlier =
      compareDecimal(po.billed_quantity, '0') > 0 ? ` (${trimDecimal(po.billed_quantity)} on earlier bills)` : ''
    if (po.closed) push('line_closed', `${name}: order line ${po.id} is closed; nothing more is billed against it.`)
    if (compareDecimal(billed, po.quantity) > 0)
      push('quantity_over_ordered', `${name}: billed ${billed}${earlier}, ordered ${trimDecimal(po.quantity)}.`)
    if (settings.match_mode === 'three_way' && compareDecimal(billed, po.received_quantity) > 0)
      push(
        'quantity_over_received',
        `${name}: billed ${billed}${earlier}, received ${trimDecimal(po.received_quantity)}.`,
      )
    if (exceedsByPercent(line.unit_price, po.unit_price, settings.price_tolerance_percent))
      push(
        'price_over_tolerance',
        `${name}: unit price ${trimDecimal(line.unit_price)}, ordered at ${trimDecimal(po.unit_price)} ` +
          `(at most ${withPercent(po.unit_price, settings.price_tolerance_percent)} with the ` +
          `${trimDecimal(settings.price_tolerance_percent)} % tolerance).`,
      )
  })
  return exceptions
}

/** A bill line that would carry its order line's billed quantity past what the column holds. */
export interface Overbilled {
  /** The line's index in the bill (0-based, as in field names). */
  index: number
  poLine: number
  /** Already billed on the order line by other bills, and what it would be with this one. */
  earlier: string
  billed: string
}

/**
 * The lines whose order line's `billed_quantity` — what other bills have billed plus this line — would not fit
 * its column (`QUANTITY_MAX`). Checked before the counter is written, so submit refuses them with a 409 naming
 * each line rather than failing in the database.
 */
export function overbilled(lines: readonly BillLineRow[], orderLines: readonly OrderLineFacts[]): Overbilled[] {
  const byId = new Map(orderLines.map((l) => [l.id, l]))
  return lines.flatMap((line, index) => {
    const po = line.po_line === null ? undefined : byId.get(line.po_line)
    if (po === undefined) return []
    const billed = addDecimal(po.billed_quantity, line.quantity)
    return fitsQuantity(billed) ? [] : [{ index, poLine: po.id, earlier: trimDecimal(po.billed_quantity), billed }]
  })
}
