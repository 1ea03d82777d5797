/**
 * A travel request's body → its columns and estimates, checked against the tenant's data (400 naming each
 * field that is wrong; 403 without `nav_request` at a location that exists).
 */
import type { Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import { requireAnyAt, type LocationAccess } from '../access/location-permissions.ts'
import { sumDecimals } from '../core/decimal.ts'
import { validationFailed, type FieldErrors } from '../core/problem.ts'
import type { DB } from '../db/schema.ts'
import { references } from '../expense-reports/references.repository.ts'
import type * as repo from './repository.ts'
import type { TravelRequestInput } from './schema.ts'

const idOf = (value: number | { id: number } | null | undefined) =>
  value === null || value === undefined ? null : typeof value === 'number' ? value : value.id

export async function travelValues(
  db: Kysely<DB>,
  actor: Actor,
  access: LocationAccess,
  input: TravelRequestInput,
  kept: ReadonlySet<number> = new Set(),
): Promise<{ values: repo.TravelValues; estimates: repo.EstimateValues[] }> {
  const location = idOf(input.location)!
  const department = idOf(input.department)
  const accounts = input.estimates.flatMap((e) => {
    const id = idOf(e.account)
    return id === null ? [] : [id]
  })
  const refs = await references(db, actor.tenantId, {
    location,
    currencies: input.currency === undefined ? [] : [input.currency],
    accounts,
  })
  if (refs.location !== undefined) requireAnyAt(access, location, 'nav_request')
  const errors: FieldErrors = {}
  const add = (field: string, message: string) => (errors[field] ??= []).push(message)
  if (refs.location === undefined) add('location', `no location ${location}`)
  else if (department !== null && !refs.departments.has(department))
    add('department', `no department ${department} at location ${location}`)
  const currency = input.currency === undefined ? refs.locationCurrency : refs.currencyByName.get(input.currency)
  if (input.currency !== undefined && currency === undefined)
    add('currency', `no currency ${JSON.stringify(input.currency)}; use a name from GET /api/v2/currencies/`)
  if (input.return_date < input.departure_date)
    add('return_date', `must be on or after departure_date (${input.departure_date})`)
  input.estimates.forEach((e, i) => {
    const account = idOf(e.account)
    if (account === null) return
    const active = refs.accounts.get(account)
    if (active === undefined) add(`estimates.${i}.account`, `no account ${account}`)
    else if (!active && !kept.has(account))
      add(`estimates.${i}.account`, `account ${account} is inactive; choose an active account`)
  })
  if (Object.keys(errors).length > 0) throw validationFailed(errors)
  const estimates = input.estimates.map((e) => ({
    category: e.category,
    amount: e.amount,
    account_id: idOf(e.account),
  }))
  return {
    values: {
      location_id: location,
      department_id: department,
      currency_id: currency!.id,
      purpose: input.purpose,
      destination: input.destination,
      departure_date: input.departure_date,
      return_date: input.return_date,
      total: sumDecimals(estimates.map((e) => e.amount)),
    },
    estimates,
  }
}
