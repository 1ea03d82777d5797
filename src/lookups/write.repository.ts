/** SQL for writing look-ups: departments, currencies and the four vendor look-up tables. */
import { selectDepartments } from './repository.ts'
import { sql, type Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'
import type { VendorLookupTable } from './repository.ts'

/**
 * Serialises the writes of one kind of look-up in one tenant until the transaction ends, so that two
 * concurrent writes of the same name cannot both pass the duplicate check.
 */
export async function lockNames(db: Kysely<DB>, tenantId: number, kind: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`lookup:${kind}:${tenantId}`}, 0))`.execute(db)
}

export const findDepartment = (db: Kysely<DB>, tenantId: number, id: number) =>
  db
    .selectFrom('departments')
    .select(['id', 'location_id', 'name', 'external_id', 'active'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst()

export async function locationExists(db: Kysely<DB>, tenantId: number, id: number): Promise<boolean> {
  const row = await db
    .selectFrom('locations')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst()
  return row !== undefined
}

export async function departmentNameTaken(
  db: Kysely<DB>,
  tenantId: number,
  locationId: number,
  name: string,
  exceptId = 0,
): Promise<boolean> {
  const row = await db
    .selectFrom('departments')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('location_id', '=', locationId)
    .where(sql<string>`lower(name)`, '=', name.toLowerCase())
    .where('id', '<>', exceptId)
    .executeTakeFirst()
  return row !== undefined
}

export interface DepartmentValues {
  location_id: number
  name: string
  external_id: string
  active: boolean
}

export async function insertDepartment(db: Kysely<DB>, tenantId: number, values: DepartmentValues): Promise<number> {
  const row = await db
    .insertInto('departments')
    .values({ tenant_id: tenantId, ...values })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

export const updateDepartment = (db: Kysely<DB>, tenantId: number, id: number, values: DepartmentValues) =>
  db.updateTable('departments').set(values).where('tenant_id', '=', tenantId).where('id', '=', id).execute()

export const findCurrency = (db: Kysely<DB>, tenantId: number, id: number) =>
  db
    .selectFrom('currencies')
    .select(['id', 'name', 'description', 'rate', 'base', 'active'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst()

export async function currencyCodeTaken(db: Kysely<DB>, tenantId: number, code: string, exceptId = 0) {
  const row = await db
    .selectFrom('currencies')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where(sql<string>`upper(name)`, '=', code.toUpperCase())
    .where('id', '<>', exceptId)
    .executeTakeFirst()
  return row !== undefined
}

export interface CurrencyValues {
  name: string
  description: string
  rate: string
  active: boolean
}

export async function insertCurrency(db: Kysely<DB>, tenantId: number, values: CurrencyValues): Promise<number> {
  const row = await db
    .insertInto('currencies')
    .values({ tenant_id: tenantId, ...values })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

export const updateCurrency = (db: Kysely<DB>, tenantId: number, id: number, values: Partial<CurrencyValues>) =>
  db.updateTable('currencies').set(values).where('tenant_id', '=', tenantId).where('id', '=', id).execute()

// The four vendor look-up tables have the same columns; Kysely is told one of them to type the statements.
const t = (table: VendorLookupTable) => table as 'payment_terms'

export const findVendorLookup = (db: Kysely<DB>, table: VendorLookupTable, tenantId: number, id: number) =>
  db
    .selectFrom(t(table))
    .select(['id', 'name', 'description', 'active'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst()

export async function vendorLookupNameTaken(
  db: Kysely<DB>,
  table: VendorLookupTable,
  tenantId: number,
  name: string,
  exceptId = 0,
): Promise<boolean> {
  const row = await db
    .selectFrom(t(table))
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where(sql<string>`lower(name)`, '=', name.toLowerCase())
    .where('id', '<>', exceptId)
    .executeTakeFirst()
  return row !== undefined
}

export interface VendorLookupValues {
  name: string
  description: string
  active: boolean
}

export async function insertVendorLookup(
  db: Kysely<DB>,
  table: VendorLookupTable,
  tenantId: number,
  values: VendorLookupValues,
): Promise<number> {
  const row = await db
    .insertInto(t(table))
    .values({ tenant_id: tenantId, ...values })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

export const updateVendorLookup = (
  db: Kysely<DB>,
  table: VendorLookupTable,
  tenantId: number,
  id: number,
  values: VendorLookupValues,
) => db.updateTable(t(table)).set(values).where('tenant_id', '=', tenantId).where('id', '=', id).execute()

/** A department as the list shows it: with its location and whether that is the headquarters. */
export const departmentView = (db: Kysely<DB>, tenantId: number, id: number) =>
  selectDepartments(db, tenantId).where('d.tenant_id', '=', tenantId).where('d.id', '=', id).executeTakeFirstOrThrow()
