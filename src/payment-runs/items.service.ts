/**
 * A run's items, checked (DECISIONS): each names an approved bill or payment request that the maker may pay —
 * accounts_payable at its location (else 403 naming the item) — and is refused with a 409 naming it when its
 * vendor's bank account is not `verified`, its document is not open, its currency is not the run's, its amount
 * exceeds what is open, or another open run already holds it. The documents' rows are locked in id order (bills,
 * then payment requests) before anything is read of them, so two runs claiming the same bill at the same instant
 * take turns: the second sees the first's items and is refused.
 */
import type { Kysely } from 'kysely'
import { holdsAnyAt, type LocationAccess } from '../access/location-permissions.ts'
import { vendorAccountsOf as vendorAccounts } from '../bank-accounts/vendor.service.ts'
import { compareDecimal, subtractDecimal, sumDecimals } from '../core/decimal.ts'
import { forbidden, Problem, validationFailed, type FieldErrors } from '../core/problem.ts'
import type { DB } from '../db/schema.ts'
import * as repo from './repository.ts'
import type { PaymentRunItemInput } from './schema.ts'

const TWO_DECIMALS = /^\d{1,16}(\.\d{1,2})?$/
const NAMES = { bill: 'bill', payment_request: 'payment request' } as const

export interface CheckedItems {
  items: repo.ItemValues[]
  total: string
  /** The locations of the items' documents, ascending. */
  locations: number[]
}

/** What is still open of a document: its total less what runs have paid. */
export const openOf = (doc: repo.PayableRow) => subtractDecimal(doc.total, doc.amount_paid)
const money = (text: string) => sumDecimals([text])

/** Locks and reads the documents the items name: bills, then payment requests, each in id order. */
export async function lockDocuments(
  tx: Kysely<DB>,
  tenantId: number,
  items: readonly { document: { type: 'bill' | 'payment_request'; id: number } }[],
) {
  const ids = (type: string) => [...new Set(items.filter((i) => i.document.type === type).map((i) => i.document.id))]
  const bills = await repo.payableBills(tx, tenantId, ids('bill'), true)
  const requests = await repo.payableRequests(tx, tenantId, ids('payment_request'), true)
  return (type: 'bill' | 'payment_request', id: number) => (type === 'bill' ? bills.get(id) : requests.get(id))
}

/** The sentence naming an item: `item 3 (bill INV-7)`. */
export const itemName = (index: number, type: 'bill' | 'payment_request', number: string) =>
  `item ${index + 1} (${NAMES[type]} ${number})`

/** Checks the run's items inside the caller's transaction (after the documents are locked). */
export async function checkItems(
  tx: Kysely<DB>,
  tenantId: number,
  access: LocationAccess,
  input: readonly PaymentRunItemInput[],
  run: { currencyId: number; currency: string; except: number },
): Promise<CheckedItems> {
  const bad: FieldErrors = {}
  const seen = new Map<string, number>()
  input.forEach((item, i) => {
    const key = `${item.document.type}:${item.document.id}`
    const first = seen.get(key)
    if (first !== undefined)
      bad[`items.${i}.document`] = [
        `names ${NAMES[item.document.type]} ${item.document.id} again (item ${first + 1} already pays it)`,
      ]
    else seen.set(key, i)
    if (item.amount !== undefined) {
      if (!TWO_DECIMALS.test(item.amount))
        bad[`items.${i}.amount`] = ['must be a decimal number like 1500.00 (up to 2 decimals)']
      else if (/^[0.]+$/.test(item.amount)) bad[`items.${i}.amount`] = ['must be greater than 0']
    }
  })
  const doc = await lockDocuments(tx, tenantId, input)
  input.forEach((item, i) => {
    if (doc(item.document.type, item.document.id) === undefined)
      bad[`items.${i}.document`] = [`no ${NAMES[item.document.type]} ${item.document.id}`]
  })
  if (Object.keys(bad).length > 0) throw validationFailed(bad)

  const docs = input.map((item) => doc(item.document.type, item.document.id)!)
  const notHeld = input
    .map((item, i) => ({ item, i, d: docs[i]! }))
    .filter(({ d }) => !holdsAnyAt(access, d.location_id, 'accounts_payable'))
  if (notHeld.length > 0)
    throw forbidden(
      `A payment run needs accounts_payable at every item's location: ${notHeld
        .map(({ item, i, d }) => `${itemName(i, item.document.type, d.number)} is at location ${d.location_id}`)
        .join('; ')}. Take those items out, or ask an administrator for accounts_payable there.`,
    )

  const accounts = await vendorAccounts(
    tx,
    tenantId,
    docs.map((d) => d.vendor_id),
  )
  const held = await repo.openRunsHolding(
    tx,
    tenantId,
    {
      bills: input.filter((i) => i.document.type === 'bill').map((i) => i.document.id),
      requests: input.filter((i) => i.document.type === 'payment_request').map((i) => i.document.id),
    },
    run.except,
  )
  const conflicts: FieldErrors = {}
  const items: repo.ItemValues[] = []
  input.forEach((item, i) => {
    const d = docs[i]!
    const name = itemName(i, item.document.type, d.number)
    const problems: string[] = []
    const account = accounts.get(d.vendor_id)
    if (account === undefined)
      problems.push(`${name}: vendor ${d.vendor_name} has no bank account; enter it and have a second person verify it`)
    else if (account.status !== 'verified')
      problems.push(
        `${name}: the bank account of vendor ${d.vendor_name} is not verified; someone other than who changed it must verify it`,
      )
    if (d.status !== 'approved')
      problems.push(
        `${name} is ${d.status}; only an approved ${NAMES[item.document.type]} that is not paid can be paid`,
      )
    if (d.currency_id !== run.currencyId)
      problems.push(
        `${name} is in ${d.currency}, the run (its bank account) in ${run.currency}; a run pays one currency`,
      )
    const open = money(openOf(d))
    const amount = item.amount === undefined ? open : money(item.amount)
    if (compareDecimal(amount, open) > 0)
      problems.push(`${name}: ${amount} is more than the ${open} ${d.currency} still open`)
    const other = held.get(`${item.document.type}:${item.document.id}`)
    if (other !== undefined) problems.push(`${name} is already in payment run ${other.number} (${other.status})`)
    if (problems.length > 0) conflicts[`items.${i}`] = problems
    items.push({
      bill_id: item.document.type === 'bill' ? d.id : null,
      payment_request_id: item.document.type === 'payment_request' ? d.id : null,
      amount,
      reference: (item.reference ?? '').trim() || d.invoice_number || d.number,
    })
  })
  if (Object.keys(conflicts).length > 0) {
    const all = Object.values(conflicts).flat()
    const shown = all.slice(0, 5).join('; ') + (all.length > 5 ? `; and ${all.length - 5} more (see errors)` : '')
    throw new Problem(409, 'Conflict', `The payment run cannot hold these items: ${shown}.`, { errors: conflicts })
  }
  return {
    items,
    total: sumDecimals(items.map((i) => i.amount)),
    locations: [...new Set(docs.map((d) => d.location_id))].sort((a, b) => a - b),
  }
}
