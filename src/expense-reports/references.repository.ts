/**
 * What an expense report or a travel request refers to, read in one go: the location (and its currency), its
 * departments, the currencies named (with their rates) and the accounts named. Every query is scoped to one tenant.
 */
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'
import '../ledger/tables.ts'

export interface CurrencyRef {
  id: number
  name: string
  rate: string
}

export async function references(
  db: Kysely<DB>,
  tenantId: number,
  ids: { location: number; currencies: string[]; accounts: number[] },
) {
  const location = await db
    .selectFrom('locations')
    .select(['id', 'currency_id'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', ids.location)
    .executeTakeFirst()
  const departments = await db
    .selectFrom('departments')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('location_id', '=', ids.location)
    .execute()
  const currencies = await db
    .selectFrom('currencies')
    .select(['id', 'name', 'rate'])
    .where('tenant_id', '=', tenantId)
    .where((eb) =>
      eb.or([
        eb('name', 'in', ids.currencies.length === 0 ? [''] : ids.currencies),
        eb('id', '=', location?.currency_id ?? 0),
      ]),
    )
    .execute()
  const accounts =
    ids.accounts.length === 0
      ? []
      : await db
          .selectFrom('accounts')
          .select(['id', 'active'])
          .where('tenant_id', '=', tenantId)
          .where('id', 'in', ids.accounts)
          .execute()
  return {
    location,
    departments: new Set(departments.map((d) => d.id)),
    currencyByName: new Map(currencies.map((c): [string, CurrencyRef] => [c.name, c])),
    locationCurrency: currencies.find((c) => c.id === location?.currency_id),
    accounts: new Map(accounts.map((a) => [a.id, a.active])),
  }
}

/** The accounts of these ids as lines show them (`{id, code, name}`). */
export async function accountRefs(db: Kysely<DB>, tenantId: number, ids: number[]) {
  if (ids.length === 0) return new Map<number, { id: number; code: string; name: string }>()
  const rows = await db
    .selectFrom('accounts')
    .select(['id', 'code', 'name'])
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', [...new Set(ids)])
    .execute()
  return new Map(rows.map((r) => [r.id, r]))
}

/** The rate of each of these currencies now (by id). */
export async function ratesOf(db: Kysely<DB>, tenantId: number, ids: number[]) {
  const rows = await db
    .selectFrom('currencies')
    .select(['id', 'rate'])
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', ids.length === 0 ? [0] : [...new Set(ids)])
    .execute()
  return new Map(rows.map((r) => [r.id, r.rate]))
}
