/**
 * A bill body checked against the tenant's data and turned into columns with exact totals (as for orders:
 * amount = quantity × unit_price and tax = amount × tax_rate / 100, each rounded half-up to 2 decimals). With
 * a purchase order, vendor, location and currency are the order's and each `po_line` must be one of its lines
 * (unit price, tax rate and description default to the order line's); without, vendor and location are
 * required; the invoice number is checked and keyed (number-key.ts). 400 naming each field that is wrong; at a
 * location that exists the caller must hold `accounts_payable` (403) before anything else is judged.
 */
import { requireStatus } from '../core/lifecycle.ts'
import { accountIdOf, lineAccountErrors } from '../accounts/service.ts'
import type { Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import { requireAnyAt, type LocationAccess } from '../access/location-permissions.ts'
import { lineAmount, parseDecimal, percentOf, sumDecimals } from '../core/decimal.ts'
import { validationFailed, type FieldErrors } from '../core/problem.ts'
import type { DB } from '../db/schema.ts'
import { getOrder } from '../purchase-orders/service.ts'
import { numberFault, numberKey } from './number-key.ts'
import * as repo from './repository.ts'
import type { BillInput } from './schema.ts'

const idOf = (value: unknown): number | undefined =>
  value === null || value === undefined ? undefined : typeof value === 'number' ? value : (value as { id: number }).id

type Order = Awaited<ReturnType<typeof getOrder>>

async function orderOf(db: Kysely<DB>, actor: Actor, id: number): Promise<Order | undefined> {
  try {
    return await getOrder(db, actor, id)
  } catch (error) {
    if ((error as { status?: number }).status === 404) return undefined
    throw error
  }
}

export async function billValues(
  db: Kysely<DB>,
  actor: Actor,
  access: LocationAccess,
  input: BillInput,
): Promise<{ values: repo.BillValues; lines: repo.BillLineValues[] }> {
  const errors: FieldErrors = {}
  const add = (field: string, message: string) => (errors[field] ??= []).push(message)
  const numberProblem = numberFault(input.number)
  if (numberProblem !== undefined) add('number', numberProblem)
  const orderId = input.purchase_order ?? null
  let vendor = idOf(input.vendor)
  let location = idOf(input.location)
  let currency = input.currency
  let order: Order | undefined
  if (orderId !== null) {
    order = await orderOf(db, actor, orderId)
    if (order === undefined) throw validationFailed({ purchase_order: [`no purchase order ${orderId}`] })
    requireAnyAt(access, order.location.id, 'accounts_payable')
    const subject = `Purchase order ${order.number}`
    requireStatus({ subject, noun: 'order' }, order.status, ['issued', 'closed'], 'billed')
    if (vendor !== undefined && vendor !== order.vendor.id)
      add('vendor', `the bill's vendor is its order's (${order.vendor.id}), not ${vendor}`)
    if (location !== undefined && location !== order.location.id)
      add('location', `the bill's location is its order's (${order.location.id}), not ${location}`)
    if (currency !== undefined && currency !== order.currency)
      add('currency', `the bill's currency is its order's (${order.currency}), not ${currency}`)
    vendor = order.vendor.id
    location = order.location.id
    currency = order.currency
  } else {
    if (vendor === undefined) add('vendor', 'required for a bill without a purchase order')
    if (location === undefined) add('location', 'required for a bill without a purchase order')
    if (vendor === undefined || location === undefined) throw validationFailed(errors)
  }
  const refs = await repo.references(db, actor.tenantId, { location: location, vendor: vendor, currency })
  if (refs.location !== null && order === undefined) requireAnyAt(access, location, 'accounts_payable')
  if (refs.location === null) add('location', `no location ${location}`)
  if (refs.vendor === null) add('vendor', `no vendor ${vendor}`)
  if (currency !== undefined && refs.currency === null) add('currency', `no currency ${JSON.stringify(currency)}`)
  const poLines = new Map((order?.lines ?? []).map((l) => [l.id, l]))
  const seen = new Set<number>()
  const lines = input.lines.map((l, i): repo.BillLineValues => {
    const poLineId = l.po_line ?? null
    const poLine = poLineId === null ? undefined : poLines.get(poLineId)
    if (poLineId !== null && order === undefined)
      add(`lines.${i}.po_line`, 'a bill without a purchase order has free lines only')
    else if (poLineId !== null && poLine === undefined)
      add(`lines.${i}.po_line`, `no line ${poLineId} on purchase order ${order!.number}`)
    if (poLineId !== null && seen.has(poLineId)) add(`lines.${i}.po_line`, `line ${poLineId} is named twice`)
    if (poLineId !== null) seen.add(poLineId)
    if (parseDecimal(l.quantity) === 0n) add(`lines.${i}.quantity`, 'must be greater than 0')
    const unit_price = l.unit_price ?? poLine?.unit_price
    if (unit_price === undefined) add(`lines.${i}.unit_price`, 'required on a free line')
    const tax_rate = l.tax_rate ?? poLine?.tax_rate ?? '0'
    if (parseDecimal(tax_rate) > 100n * 10_000n) add(`lines.${i}.tax_rate`, 'must be at most 100 (percent)')
    const amount = lineAmount(l.quantity, unit_price ?? '0')
    return {
      po_line_id: poLineId,
      description: l.description ?? poLine?.description ?? '',
      quantity: l.quantity,
      unit_price: unit_price ?? '0',
      tax_rate,
      amount,
      tax: percentOf(amount, tax_rate),
      // The order line's account unless the body names another (DECISIONS).
      account_id: l.account !== undefined ? (accountIdOf(l.account) ?? null) : (poLine?.account?.id ?? null),
    }
  })
  const named = input.lines.map((l, i) => (l.account !== undefined ? lines[i]!.account_id : null))
  const accountErrors = await lineAccountErrors(db, actor.tenantId, named)
  for (const [field, messages] of Object.entries(accountErrors)) for (const m of messages) add(field, m)
  if (Object.keys(errors).length > 0) throw validationFailed(errors)
  const subtotal = sumDecimals(lines.map((l) => l.amount))
  const tax = sumDecimals(lines.map((l) => l.tax))
  return {
    values: {
      number: input.number.trim(),
      number_key: numberKey(input.number),
      vendor_id: vendor,
      location_id: location,
      currency_id: refs.currency ?? refs.location_currency!,
      order_id: orderId,
      invoice_date: input.invoice_date ?? null,
      due_date: input.due_date ?? null,
      subtotal,
      tax,
      total: sumDecimals([subtotal, tax]),
    },
    lines,
  }
}
