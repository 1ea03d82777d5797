/** The bill form's data: rows and pre-filled values from an order or a draft, and a posted form read into a body. */
import type { Bill } from '../../bills/schema.ts'
import { subtractDecimal } from '../../core/decimal.ts'
import type { PurchaseOrder } from '../../purchase-orders/schema.ts'
import { ROW_FIELDS, type BillRow } from '../views/bill-form.ts'

export const TOP = ['number', 'invoice_date', 'due_date'] as const

/** The order's lines as rows, and what the form starts with: received minus billed, the order's price and tax. */
export function orderRows(o: PurchaseOrder): BillRow[] {
  return o.lines.map((l) => ({
    po_line: l.id,
    description: l.description,
    ordered: l.quantity,
    received: l.received_quantity,
    billed: l.billed_quantity,
  }))
}
export function prefilled(o: PurchaseOrder): Record<string, string> {
  const values: Record<string, string> = {}
  o.lines.forEach((l, i) => {
    const open = subtractDecimal(l.received_quantity, l.billed_quantity)
    values[`lines.${i}.po_line`] = String(l.id)
    values[`lines.${i}.quantity`] = l.closed || open === '0' ? '' : open
    values[`lines.${i}.unit_price`] = l.unit_price
    values[`lines.${i}.tax_rate`] = l.tax_rate
  })
  return values
}

/** A draft's rows: its order's lines (with the bill's quantities and prices where it bills them), then free lines. */
export function draftRows(b: Bill, o: PurchaseOrder | undefined): { rows: BillRow[]; values: Record<string, string> } {
  const rows = o === undefined ? [] : orderRows(o)
  const values: Record<string, string> = {
    number: b.number,
    invoice_date: b.invoice_date ?? '',
    due_date: b.due_date ?? '',
  }
  rows.forEach((r, i) => {
    const line = b.lines.find((l) => l.po_line === r.po_line)
    const po = o!.lines[i]!
    values[`lines.${i}.po_line`] = String(r.po_line)
    values[`lines.${i}.quantity`] = line?.quantity ?? ''
    values[`lines.${i}.unit_price`] = line?.unit_price ?? po.unit_price
    values[`lines.${i}.tax_rate`] = line?.tax_rate ?? po.tax_rate
  })
  for (const l of b.lines.filter((x) => x.po_line === null || !rows.some((r) => r.po_line === x.po_line))) {
    const i = rows.length
    rows.push({ po_line: null, description: l.description })
    Object.assign(values, {
      [`lines.${i}.po_line`]: '',
      [`lines.${i}.description`]: l.description,
      [`lines.${i}.quantity`]: l.quantity,
      [`lines.${i}.unit_price`]: l.unit_price,
      [`lines.${i}.tax_rate`]: l.tax_rate,
    })
  }
  return { rows, values }
}

/** What a bill's body names besides the form: its order, or (a bill without one) its vendor and location. */
export type Base =
  { purchase_order: number } | { purchase_order: null; vendor: number; location: number; currency: string }

/** A posted form: its values, the API body (lines with a quantity), and which row each sent line came from. */
export function readForm(body: Readonly<Record<string, string>>, rowCount: number, base: Base) {
  const values: Record<string, string> = {}
  for (const name of TOP) values[name] = (body[name] ?? '').trim()
  const rowOf: number[] = []
  const lines: Record<string, unknown>[] = []
  for (let i = 0; i < rowCount; i++) {
    const field = (f: string) => (values[`lines.${i}.${f}`] = (body[`lines.${i}.${f}`] ?? '').trim())
    const [poLine, description, quantity, unitPrice, taxRate] = ROW_FIELDS.map(field)
    if (quantity === '') continue
    rowOf.push(i)
    lines.push({
      po_line: poLine === '' ? null : /^\d{1,10}$/.test(poLine!) ? Number(poLine) : poLine,
      quantity,
      ...(poLine === '' ? { description } : {}),
      ...(unitPrice === '' ? {} : { unit_price: unitPrice }),
      ...(taxRate === '' ? {} : { tax_rate: taxRate }),
    })
  }
  const date = (v: string) => (v === '' ? null : v)
  const input = {
    number: values.number,
    ...base,
    invoice_date: date(values.invoice_date!),
    due_date: date(values.due_date!),
    lines,
  }
  return { values, input, rowOf }
}

export const baseOf = (b: Bill): Base =>
  b.purchase_order === null
    ? { purchase_order: null, vendor: b.vendor.id, location: b.location.id, currency: b.currency }
    : { purchase_order: b.purchase_order }
