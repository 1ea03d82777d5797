/** SQL for locations and their addresses. Every query is scoped to one tenant; the caller owns transactions. */
import { sql, type Kysely, type Selectable } from 'kysely'
import { byTenant } from '../db/joins.ts'
import type { AddressKind, AddressTable, DB } from '../db/schema.ts'
import { listSql } from '../db/list.ts'
import { LocationListQuery } from './schema.ts'

export type AddressRow = Selectable<AddressTable>
/** An active address as a location's view carries it. */
export type ViewAddress = Pick<
  AddressRow,
  'id' | 'kind' | 'name' | 'address_line_one' | 'city' | 'postal_code' | 'state_province' | 'country'
>

/** The tenant's headquarters: its first location. */
const headquarterId = (tenantId: number) =>
  sql<number>`(select min(h.id) from locations h where h.tenant_id = ${tenantId})`

/** One row per location with everything its view needs: currency, legal entity, counts. Addresses come separately. */
function selectViews(db: Kysely<DB>, tenantId: number) {
  return db
    .selectFrom('locations as l')
    .innerJoin('currencies as c', byTenant('c', 'l.currency_id'))
    .leftJoin('legal_entities as le', byTenant('le', 'l.legal_entity_id'))
    .selectAll('l')
    .select([
      'c.id as c_id',
      'c.name as c_name',
      'c.description as c_description',
      'c.rate as c_rate',
      'c.base as c_base',
      'c.active as c_active',
      'le.uuid as le_uuid',
      'le.name as le_name',
      sql<boolean>`l.id = ${headquarterId(tenantId)}`.as('headquarter'),
      sql<number>`(select count(*)::int from departments d where d.tenant_id = l.tenant_id and d.location_id = l.id and d.active)`.as(
        'department_count',
      ),
      sql<ViewAddress[]>`coalesce((
        select json_agg(json_build_object('id', a.id, 'kind', a.kind, 'name', a.name, 'address_line_one', a.address_line_one,
          'city', a.city, 'postal_code', a.postal_code, 'state_province', a.state_province, 'country', a.country) order by a.id)
        from addresses a where a.tenant_id = l.tenant_id and a.location_id = l.id and a.active), '[]')`.as('addresses'),
    ])
}
export type LocationRow = Awaited<ReturnType<ReturnType<typeof selectViews>['executeTakeFirstOrThrow']>>

/** One page, its addresses and the exact total in one round trip. */
export const pageOfLocations = listSql(LocationListQuery, {
  select: selectViews,
  tenant: 'l.tenant_id',
  id: 'l.id',
  order: { name: 'l.name' },
  search: ['l.name'],
  filters: {
    active: 'l.active',
    headquarter: (is: boolean) =>
      sql<boolean>`(l.id = (select min(h.id) from locations h where h.tenant_id = l.tenant_id)) = ${is}`,
    updated_since: (since) => sql<boolean>`l.updated_at >= ${since}`,
  },
  counted: 'locations',
})

export function findLocation(db: Kysely<DB>, tenantId: number, id: number): Promise<LocationRow | undefined> {
  return selectViews(db, tenantId).where('l.tenant_id', '=', tenantId).where('l.id', '=', id).executeTakeFirst()
}

/** Locks the location's row for the rest of the transaction (serialises concurrent replacements). */
export async function lockLocation(db: Kysely<DB>, tenantId: number, id: number): Promise<boolean> {
  const row = await db
    .selectFrom('locations')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst()
  return row !== undefined
}

/** Every address of a location, deactivated ones included (a replacement may reactivate them). */
export function allAddressesOf(db: Kysely<DB>, tenantId: number, locationId: number): Promise<AddressRow[]> {
  return db
    .selectFrom('addresses')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('location_id', '=', locationId)
    .orderBy('id')
    .execute()
}

export const findCurrencyByName = (db: Kysely<DB>, tenantId: number, name: string) =>
  db.selectFrom('currencies').select('id').where('tenant_id', '=', tenantId).where('name', '=', name).executeTakeFirst()

export const findLegalEntity = (db: Kysely<DB>, tenantId: number, id: number) =>
  db.selectFrom('legal_entities').select('id').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst()

export interface LocationValues {
  name: string
  url: string
  logo: string
  currency_id: number
  phone_one: string
  fax: string
  email: string
  language: number
  timezone: string
  active: boolean
  external_id: string
  legal_entity_id: number | null
}

export async function insertLocation(db: Kysely<DB>, tenantId: number, values: LocationValues): Promise<number> {
  const row = await db
    .insertInto('locations')
    .values({ tenant_id: tenantId, ...values })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

export async function updateLocation(
  db: Kysely<DB>,
  tenantId: number,
  id: number,
  values: Partial<LocationValues>,
): Promise<void> {
  await db
    .updateTable('locations')
    .set({ ...values, updated_at: new Date(), version: sql`version + 1` })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute()
}

export interface AddressValues {
  name: string
  address_line_one: string
  city: string
  postal_code: string
  state_province: string
  country: string
}

export async function insertAddresses(
  db: Kysely<DB>,
  tenantId: number,
  locationId: number,
  rows: { kind: AddressKind; values: AddressValues }[],
): Promise<void> {
  if (rows.length === 0) return
  await db
    .insertInto('addresses')
    .values(rows.map((r) => ({ tenant_id: tenantId, location_id: locationId, kind: r.kind, ...r.values })))
    .execute()
}

export async function updateAddress(
  db: Kysely<DB>,
  tenantId: number,
  id: number,
  values: Partial<AddressValues> & { active?: boolean },
): Promise<void> {
  await db.updateTable('addresses').set(values).where('tenant_id', '=', tenantId).where('id', '=', id).execute()
}

/** Deactivates (never deletes) the given alternate addresses. */
export async function deactivateAddresses(db: Kysely<DB>, tenantId: number, ids: number[]): Promise<void> {
  if (ids.length === 0) return
  await db
    .updateTable('addresses')
    .set({ active: false })
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', ids)
    .execute()
}

/** Which of `ids` are alternate addresses of another location (or of no location of this tenant). */
export async function foreignAddressIds(
  db: Kysely<DB>,
  tenantId: number,
  locationId: number,
  ids: number[],
): Promise<Set<number>> {
  if (ids.length === 0) return new Set()
  const mine = await db
    .selectFrom('addresses')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('location_id', '=', locationId)
    .where('kind', '=', 'alternate')
    .where('id', 'in', ids)
    .execute()
  const own = new Set(mine.map((r) => r.id))
  return new Set(ids.filter((id) => !own.has(id)))
}
