/**
 * An order body checked against the tenant's data and turned into columns with exact totals (DECISIONS:
 * amount = quantity × unit_price, tax = amount × tax_rate / 100, each rounded half-up to 2 decimals;
 * subtotal = Σ amounts, tax = Σ taxes, total = subtotal + tax). 400 naming each field that is wrong; at a
 * location that exists the caller must hold `nav_purchase` (403) before anything else is judged.
 */
import type { Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import { requireAnyAt, type LocationAccess } from '../access/location-permissions.ts'
import { lineAmount, parseDecimal, percentOf, sumDecimals } from '../core/decimal.ts'
import { validationFailed, type FieldErrors } from '../core/problem.ts'
import { accountIdOf, lineAccountErrors } from '../accounts/service.ts'
import type { DB } from '../db/schema.ts'
import type * as lineWrites from './lines-repository.ts'
import type * as orderWrites from './write-repository.ts'
import * as references from './references-repository.ts'
import type { OrderInput } from './input.schema.ts'

const idOf = (value: unknown): number | null =>
  value === null || value === undefined ? null : typeof value === 'number' ? value : (value as { id: number }).id

/** What a kept line (named by `id`) carries over: its request line, and its description and tax rate when not sent. */
export type ExistingLines = ReadonlyMap<
  number,
  { request_line: number | null; description: string; tax_rate: string; account?: { id: number } | null }
>

/** Line columns with their amount and tax; `existing` holds the order's own lines by id. */
export function lineValues(
  lines: OrderInput['lines'],
  existing: ExistingLines,
  add: (field: string, message: string) => void,
): lineWrites.LineValues[] {
  return lines.map((l, i) => {
    const tax_rate = l.tax_rate ?? (l.id !== undefined ? existing.get(l.id)?.tax_rate : undefined) ?? '0'
    if (parseDecimal(l.quantity) === 0n) add(`lines.${i}.quantity`, 'must be greater than 0')
    if (parseDecimal(tax_rate) > 100n * 10_000n) add(`lines.${i}.tax_rate`, 'must be at most 100 (percent)')
    if (l.id !== undefined && !existing.has(l.id)) add(`lines.${i}.id`, `no line ${l.id} on this order`)
    const amount = lineAmount(l.quantity, l.unit_price)
    return {
      id: l.id !== undefined && existing.has(l.id) ? l.id : undefined,
      request_line_id: l.id !== undefined ? (existing.get(l.id)?.request_line ?? null) : null,
      description: l.description ?? (l.id !== undefined ? existing.get(l.id)?.description : undefined) ?? '',
      quantity: l.quantity,
      unit_price: l.unit_price,
      tax_rate,
      amount,
      tax: percentOf(amount, tax_rate),
      account_id:
        l.account !== undefined
          ? (accountIdOf(l.account) ?? null)
          : l.id !== undefined
            ? (existing.get(l.id)?.account?.id ?? null)
            : null,
    }
  })
}

export function totalsOf(lines: readonly lineWrites.LineValues[]) {
  const subtotal = sumDecimals(lines.map((l) => l.amount))
  const tax = sumDecimals(lines.map((l) => l.tax))
  return { subtotal, tax, total: sumDecimals([subtotal, tax]) }
}

export async function valuesOf(
  db: Kysely<DB>,
  actor: Actor,
  access: LocationAccess,
  input: OrderInput,
  existing: ExistingLines = new Map(),
): Promise<{ values: orderWrites.OrderValues; lines: lineWrites.LineValues[] }> {
  const location = idOf(input.location)!
  const vendor = idOf(input.vendor)!
  const department = idOf(input.department)
  const refs = await references.references(db, actor.tenantId, {
    location,
    vendor,
    department,
    currency: input.currency,
  })
  if (refs.location !== null) requireAnyAt(access, location, 'nav_purchase')
  const errors: FieldErrors = {}
  const add = (field: string, message: string) => (errors[field] ??= []).push(message)
  if (refs.location === null) add('location', `no location ${location}`)
  else if (department !== null && refs.department === null)
    add('department', `no department ${department} at location ${location}`)
  if (refs.vendor === null) add('vendor', `no vendor ${vendor}`)
  else if (refs.vendor_active === false) add('vendor', `vendor ${vendor} is deactivated`)
  if (input.currency !== undefined && refs.currency === null)
    add('currency', `no currency ${JSON.stringify(input.currency)}`)
  const lines = lineValues(input.lines, existing, add)
  const accountErrors = await lineAccountErrors(
    db,
    actor.tenantId,
    lines.map((l) => l.account_id),
    (i, id) => {
      const kept = lines[i]!.id
      return kept !== undefined && existing.get(kept)?.account?.id === id
    },
  )
  for (const [field, messages] of Object.entries(accountErrors)) for (const m of messages) add(field, m)
  if (Object.keys(errors).length > 0) throw validationFailed(errors)
  return {
    values: {
      vendor_id: vendor,
      location_id: location,
      department_id: department,
      currency_id: refs.currency ?? refs.location_currency!,
      promise_date: input.promise_date ?? null,
      notes: input.notes ?? '',
      ...totalsOf(lines),
    },
    lines,
  }
}
