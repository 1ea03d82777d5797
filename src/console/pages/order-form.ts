/** The order editor's form as the pages read and fill it: posted fields to an API body, an order to values. */
import { Type } from 'typebox'
import { actorLocationAccess, locationsWithAny } from '../../access/location-permissions.ts'
import { MAX_ORDER_LINES } from '../../purchase-orders/input.schema.ts'
import type { PurchaseOrder } from '../../purchase-orders/schema.ts'
import type { ConsoleDeps, ConsoleSession } from '../context.ts'
import type { Values } from '../views/forms.ts'
import { ORDER_LABELS, ORDER_LINE_FIELDS, type OrderChoices } from '../views/order-form.ts'
import { activeVendors, placeChoices } from './request-shared.ts'
import { idOrText, readLineEditor } from './forms.ts'

/** The editor's form: text fields only; up to MAX_ORDER_LINES lines of six fields, and the order's own. */
export const OrderForm = Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 10000 }), {
  maxProperties: MAX_ORDER_LINES * 6 + 20,
})

const TOP = [...Object.keys(ORDER_LABELS), 'version']
const EDITED = ['description', 'quantity', 'unit_price', 'tax_rate'] as const

/** A posted editor: its values (removed lines dropped, the rest renumbered), and the lines that are not blank. */
export function readOrderForm(body: Readonly<Record<string, string>>) {
  const { values, rows, filled, rowOf } = readLineEditor(body, {
    top: TOP,
    lineFields: ORDER_LINE_FIELDS,
    edited: EDITED,
    maxLines: MAX_ORDER_LINES,
  })
  const lines = filled.map(({ line }) => ({
    ...(/^\d{1,10}$/.test(line.id!) ? { id: Number(line.id) } : {}),
    description: line.description!,
    quantity: line.quantity!,
    unit_price: line.unit_price!,
    tax_rate: line.tax_rate === '' ? '0' : line.tax_rate!,
  }))
  const empty = (name: string) => values[name] === undefined || values[name] === ''
  const input = {
    vendor: idOrText(values.vendor ?? ''),
    location: idOrText(values.location ?? ''),
    department: empty('department') ? null : idOrText(values.department!),
    ...(empty('currency') ? {} : { currency: values.currency }),
    promise_date: empty('promise_date') ? null : values.promise_date,
    notes: values.notes ?? '',
    lines,
  }
  return { values, rows, rowOf, body: input }
}

/** The form's fields with `rows` lines: the names field errors are kept under. */
export const orderFields = (rows: number) => [
  ...TOP,
  ...Array.from({ length: rows }, (_, k) => ORDER_LINE_FIELDS.map((f) => `lines.${k}.${f}`)).flat(),
]

/** An order as its edit form shows it. */
export function valuesOfOrder(o: PurchaseOrder): Values {
  const values: Record<string, string> = {
    vendor: String(o.vendor.id),
    location: String(o.location.id),
    department: o.department === null ? '' : String(o.department.id),
    currency: o.currency,
    promise_date: o.promise_date ?? '',
    notes: o.notes,
    version: String(o.version),
  }
  o.lines.forEach((l, i) => {
    values[`lines.${i}.id`] = String(l.id)
    values[`lines.${i}.description`] = l.description
    values[`lines.${i}.quantity`] = l.quantity
    values[`lines.${i}.unit_price`] = l.unit_price
    values[`lines.${i}.tax_rate`] = l.tax_rate
  })
  return values
}

/** Rows the editor shows: the lines, and one empty one, at least three in all. */
export const orderRowsFor = (lines: number) => Math.min(MAX_ORDER_LINES, Math.max(3, lines + 1))

/**
 * The form's choices: active vendors, locations where the user holds Purchase, departments by location,
 * currencies. An order being edited keeps its own vendor and location on offer, even if no longer offered.
 */
export async function orderChoices(
  deps: ConsoleDeps,
  session: ConsoleSession,
  keep?: PurchaseOrder,
): Promise<OrderChoices> {
  const { db } = deps
  const { actor } = session
  const allowed = locationsWithAny(await actorLocationAccess(db, actor), 'nav_purchase')
  const vendors = await activeVendors(deps, actor)
  if (keep !== undefined && !vendors.some((v) => v.id === keep.vendor.id))
    vendors.push({ id: keep.vendor.id, name: `${keep.vendor.name} (inactive)` })
  const may = (id: number) => allowed === 'all' || allowed.includes(id) || id === keep?.location.id
  return {
    vendor: vendors.map((v) => ({ value: String(v.id), label: v.name })),
    ...(await placeChoices(deps, actor, may)),
  }
}
