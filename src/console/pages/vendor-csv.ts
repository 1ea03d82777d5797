/**
 * Vendors as CSV cells a person reads and types: currency codes, look-up names ("Net 30") and type names
 * rather than ids. The export writes them; the import reads them back (ids still accepted, names matched
 * case-insensitively within the tenant) and strips the `'` the export puts before a cell starting with
 * = + - @ tab or CR, so an export imports unchanged.
 */
import type { Kysely } from 'kysely'
import type { Actor } from '../../access/actor.ts'
import { MAX_PAGE_SIZE } from '../../core/list-query.ts'
import type { DB } from '../../db/schema.ts'
import { listCurrencies, listVendorLookups } from '../../lookups/service.ts'
import type { Vendor } from '../../vendors/schema.ts'
import { listVendors } from '../../vendors/service.ts'
import type { ConsoleDeps } from '../context.ts'
import type { Values } from '../views/forms.ts'
import { VENDOR_LABELS, VENDOR_TYPES, type VendorChoices } from '../views/vendors.ts'

type Named = readonly { id: number; name: string }[]
/** The tenant's currencies and vendor look-ups, each as ids with their names. */
export interface VendorNames {
  currency: Named
  payment_term_ref: Named
  shipping_term_ref: Named
  payment_method_ref: Named
  shipping_method_ref: Named
}
const LOOKUPS = [
  'currency',
  'payment_term_ref',
  'shipping_term_ref',
  'payment_method_ref',
  'shipping_method_ref',
] as const
const WHAT: Record<(typeof LOOKUPS)[number], string> = {
  currency: 'currency code',
  payment_term_ref: 'payment term',
  shipping_term_ref: 'shipping term',
  payment_method_ref: 'payment method',
  shipping_method_ref: 'shipping method',
}

/** Every currency and vendor look-up of the actor's tenant (all pages). */
export async function vendorNames(db: Kysely<DB>, actor: Actor): Promise<VendorNames> {
  const all = async (read: (page: number) => Promise<{ rows: Named; count: number }>) => {
    const rows: { id: number; name: string }[] = []
    for (let page = 1; ; page += 1) {
      const result = await read(page)
      rows.push(...result.rows.map((r) => ({ id: r.id, name: r.name })))
      if (result.rows.length < MAX_PAGE_SIZE || rows.length >= result.count) return rows
    }
  }
  const query = (page: number) => ({ page, page_size: MAX_PAGE_SIZE, order_by: 'name' }) as const
  const lookup = (table: Parameters<typeof listVendorLookups>[1]) =>
    all((page) => listVendorLookups(db, table, actor, query(page)))
  return {
    currency: await all((page) => listCurrencies(db, actor, query(page))),
    payment_term_ref: await lookup('payment_terms'),
    shipping_term_ref: await lookup('shipping_terms'),
    payment_method_ref: await lookup('payment_methods'),
    shipping_method_ref: await lookup('shipping_methods'),
  }
}

/** The same names as a form's choices (value: the id). */
export const choicesOf = (names: VendorNames): VendorChoices => {
  const options = (key: (typeof LOOKUPS)[number]) => names[key].map((r) => ({ value: String(r.id), label: r.name }))
  return {
    currency: options('currency'),
    payment_term_ref: options('payment_term_ref'),
    shipping_term_ref: options('shipping_term_ref'),
    payment_method_ref: options('payment_method_ref'),
    shipping_method_ref: options('shipping_method_ref'),
  }
}

/** Every vendor the list matches (not one page), in the list.s order. */
export async function allVendors(deps: ConsoleDeps, actor: Actor, search?: string): Promise<Vendor[]> {
  const rows: Vendor[] = []
  for (let page = 1; ; page += 1) {
    const result = await listVendors(deps.db, deps.lookups, actor, {
      page,
      page_size: MAX_PAGE_SIZE,
      ...(search === undefined ? {} : { search }),
    })
    rows.push(...result.rows)
    if (result.rows.length < MAX_PAGE_SIZE || rows.length >= result.count) return rows
  }
}

/** A vendor as one CSV row of the import's columns: codes and names, no ids, no JSON. */
export function vendorCsvRow(v: Vendor, names: VendorNames): Record<string, string> {
  const nameOf = (key: (typeof LOOKUPS)[number], ref: { id: number } | number | null) => {
    if (ref === null) return ''
    const id = typeof ref === 'number' ? ref : ref.id
    return names[key].find((r) => r.id === id)?.name ?? String(id)
  }
  const row: Record<string, string> = {}
  const fields: Record<string, unknown> = v
  for (const column of Object.keys(VENDOR_LABELS)) {
    const value = fields[column]
    row[column] = typeof value === 'string' || typeof value === 'number' ? String(value) : ''
  }
  row.type = VENDOR_TYPES.find((t) => t.value === String(v.type))?.label ?? String(v.type)
  row.email = v.email.join(', ')
  for (const key of LOOKUPS) row[key] = nameOf(key, v[key])
  return row
}

/** The cell as typed: without the `'` the export adds before = + - @ tab or CR. */
export const unprefixed = (cell: string): string => (/^'[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell)

/**
 * The row's names made ids (case-insensitive, within the tenant; ids and blanks pass through), and a
 * sentence for each name that is not the tenant's, naming the line, the column and the value.
 */
export function resolveNames(
  values: Values,
  names: VendorNames,
  line: number,
): { values: Values; errors: Record<string, string[]> } {
  const out: Record<string, string | undefined> = { ...values }
  const errors: Record<string, string[]> = {}
  const find = (options: readonly { value: string; label: string }[], text: string) =>
    options.find((o) => o.label.toLowerCase() === text.toLowerCase())?.value
  const say = (column: string, text: string, what: string) =>
    (errors[column] = [
      `Line ${line}, column "${column}": "${text}" is not ${what} of this tenant; use one of its names or ids.`,
    ])
  const type = (values.type ?? '').trim()
  if (type !== '' && !/^\d+$/.test(type)) {
    const found = find(VENDOR_TYPES, type)
    if (found === undefined)
      errors.type = [
        `Line ${line}, column "type": "${type}" is not a vendor type; use one of ${VENDOR_TYPES.map((t) => t.label).join(', ')}.`,
      ]
    else out.type = found
  }
  for (const key of LOOKUPS) {
    const text = (values[key] ?? '').trim()
    if (text === '' || /^\d+$/.test(text)) continue
    const found = find(
      names[key].map((r) => ({ value: String(r.id), label: r.name })),
      text,
    )
    if (found === undefined) say(key, text, `a ${WHAT[key]}`)
    else out[key] = found
  }
  return { values: out, errors }
}
