/**
 * An expense report's body → its columns and lines, checked against the tenant's data (400 naming each field
 * that is wrong; 403 without `nav_request` at a location that exists). Each line's amount is converted into the
 * report's currency at the rates in force now; submit converts again and locks the rates.
 */
import type { Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import { requireAnyAt, type LocationAccess } from '../access/location-permissions.ts'
import { parseDecimal, sumDecimals } from '../core/decimal.ts'
import { validationFailed, type FieldErrors } from '../core/problem.ts'
import type { DB } from '../db/schema.ts'
import { convert } from './convert.ts'
import { references } from './references.repository.ts'
import * as repo from './repository.ts'
import type { ExpenseReportInput } from './schema.ts'

const idOf = (value: number | { id: number } | null | undefined) =>
  value === null || value === undefined ? null : typeof value === 'number' ? value : value.id

/** The report as it was (for a PUT): its id, its lines' ids and accounts, so kept lines keep them. */
export interface Existing {
  id: number
  lines: readonly { id: number; account_id: number | null }[]
}

export async function reportValues(
  db: Kysely<DB>,
  actor: Actor,
  access: LocationAccess,
  input: ExpenseReportInput,
  existing?: Existing,
): Promise<{ values: repo.ReportValues; lines: repo.LineValues[] }> {
  const location = idOf(input.location)!
  const department = idOf(input.department)
  const accountIds = input.lines.flatMap((l) => {
    const id = idOf(l.account)
    return id === null ? [] : [id]
  })
  const names = [input.currency, ...input.lines.map((l) => l.currency)].filter((c) => c !== undefined)
  const refs = await references(db, actor.tenantId, { location, currencies: names, accounts: accountIds })
  if (refs.location !== undefined) requireAnyAt(access, location, 'nav_request')
  const errors: FieldErrors = {}
  const add = (field: string, message: string) => (errors[field] ??= []).push(message)
  if (refs.location === undefined) add('location', `no location ${location}`)
  else if (department !== null && !refs.departments.has(department))
    add('department', `no department ${department} at location ${location}`)
  const currency = input.currency === undefined ? refs.locationCurrency : refs.currencyByName.get(input.currency)
  if (input.currency !== undefined && currency === undefined)
    add('currency', `no currency ${JSON.stringify(input.currency)}; use a name from GET /api/v2/currencies/`)
  const travel = input.travel_request ?? null
  if (travel !== null && !(await repo.approvedTravelOf(db, actor.tenantId, travel, actor.userId!)))
    add('travel_request', `travel request ${travel} is not an approved travel request of yours`)
  const kept = new Map((existing?.lines ?? []).map((l) => [l.id, l.account_id]))
  const receipts = input.lines.flatMap((l) => (l.receipt == null ? [] : [l.receipt]))
  const attached =
    existing === undefined
      ? new Set<number>()
      : await repo.attachmentsOfReport(db, actor.tenantId, existing.id, receipts)
  const lines: repo.LineValues[] = []
  input.lines.forEach((l, i) => {
    const at = `lines.${i}`
    const lineCurrency = l.currency === undefined ? currency : refs.currencyByName.get(l.currency)
    if (l.currency !== undefined && lineCurrency === undefined)
      add(`${at}.currency`, `no currency ${JSON.stringify(l.currency)}; use a name from GET /api/v2/currencies/`)
    if (parseDecimal(l.amount) === 0n) add(`${at}.amount`, 'must be greater than 0')
    if (l.id !== undefined && !kept.has(l.id))
      add(`${at}.id`, `no line ${l.id} on this report; leave id out for a new line`)
    const account = idOf(l.account)
    if (account !== null) {
      const active = refs.accounts.get(account)
      if (active === undefined) add(`${at}.account`, `no account ${account}`)
      else if (!active && !(l.id !== undefined && kept.get(l.id) === account))
        add(`${at}.account`, `account ${account} is inactive; choose an active account`)
    }
    const receipt = l.receipt ?? null
    if (receipt !== null && !attached.has(receipt))
      add(
        `${at}.receipt`,
        existing === undefined
          ? `attachment ${receipt} is not an attachment of this report; create the report, upload the receipt to it, then name it`
          : `attachment ${receipt} is not an attachment of this report; upload the receipt to this report first`,
      )
    if (lineCurrency === undefined || currency === undefined) return
    lines.push({
      ...(l.id !== undefined && kept.has(l.id) ? { id: l.id } : {}),
      date: l.date,
      merchant: l.merchant ?? '',
      description: l.description ?? '',
      account_id: account,
      amount: l.amount,
      currency_id: lineCurrency.id,
      rate: null,
      converted_amount: convert(l.amount, lineCurrency.rate, currency.rate),
      receipt_id: receipt,
    })
  })
  const ids = input.lines.flatMap((l) => (l.id === undefined ? [] : [l.id]))
  if (new Set(ids).size !== ids.length) add('lines', 'names one line id twice; each line appears once')
  if (Object.keys(errors).length > 0) throw validationFailed(errors)
  return {
    values: {
      location_id: location,
      department_id: department,
      currency_id: currency!.id,
      travel_request_id: travel,
      title: input.title ?? '',
      total: sumDecimals(lines.map((l) => l.converted_amount)),
    },
    lines,
  }
}
