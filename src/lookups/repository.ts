/** SQL for the look-up lists. Every list is read through the one list mechanism (db/list.ts), tenant-scoped. */
import { sql, type Kysely } from 'kysely'
import { listSql } from '../db/list.ts'
import type { DB, PermissionKey } from '../db/schema.ts'
import {
  CurrencyListQuery,
  DepartmentListQuery,
  LegalEntityListQuery,
  RoleListQuery,
  VendorLookupListQuery,
  type VendorLookup,
} from './schema.ts'

export const VENDOR_LOOKUP_TABLES = ['payment_terms', 'shipping_terms', 'payment_methods', 'shipping_methods'] as const
export type VendorLookupTable = (typeof VENDOR_LOOKUP_TABLES)[number]

/** The `updated_since` condition on a look-up's row (its `updated_at`, migration 0021). */
const since = (alias: string) => (value: string) => sql<boolean>`${sql.ref(`${alias}.updated_at`)} >= ${value}`

/** One page of the tenant's currencies and the exact total. */
export const pageOfCurrencies = listSql(CurrencyListQuery, {
  select: (db: Kysely<DB>) =>
    db.selectFrom('currencies as c').select(['c.id', 'c.name', 'c.description', 'c.rate', 'c.base', 'c.active']),
  tenant: 'c.tenant_id',
  id: 'c.id',
  order: { name: 'c.name' },
  search: ['c.name', 'c.description'],
  filters: { active: 'c.active', base: 'c.base', name: 'c.name', updated_since: since('c') },
})

export const pageOfLegalEntities = listSql(LegalEntityListQuery, {
  select: (db: Kysely<DB>) => db.selectFrom('legal_entities as e').select(['e.id', 'e.uuid', 'e.name', 'e.active']),
  tenant: 'e.tenant_id',
  id: 'e.id',
  order: { name: 'e.name' },
  search: ['e.name'],
  filters: { active: 'e.active', updated_since: since('e') },
})

/** Departments with their location and whether that is the headquarters (the tenant's first location). */
export const selectDepartments = (db: Kysely<DB>, tenantId: number) =>
  db
    .selectFrom('departments as d')
    // The composite key keeps the join inside the tenant even if a row ever pointed elsewhere.
    .innerJoin('locations as l', (join) =>
      join.onRef('l.id', '=', 'd.location_id').onRef('l.tenant_id', '=', 'd.tenant_id'),
    )
    .select([
      'd.id',
      'd.name',
      'd.external_id',
      'd.active',
      'd.punchout_email',
      'l.id as branch_id',
      'l.name as branch_name',
    ])
    // The subquery is uncorrelated, so it runs once.
    .select(sql<boolean>`l.id = (select min(h.id) from locations h where h.tenant_id = ${tenantId})`.as('headquarter'))

export const pageOfDepartments = listSql(DepartmentListQuery, {
  select: selectDepartments,
  tenant: 'd.tenant_id',
  id: 'd.id',
  order: { name: 'd.name' },
  search: ['d.name'],
  filters: {
    location: 'd.location_id',
    active: 'd.active',
    updated_since: since('d'),
    // Which locations are requestable is the caller's, passed as the scope (lookups/service.ts); the kind
    // itself selects nothing more (each kind is made where the caller holds nav_request).
    requestable: (kind) => sql<boolean>`${kind}::text is not null`,
  },
  scope: ([locations]) => sql<boolean>`d.location_id = any(${locations}::int[])`,
})

/** Each role with its permission keys gathered by an array subquery: one query per page, not one per role. */
export const pageOfRoles = listSql(RoleListQuery, {
  select: (db: Kysely<DB>) =>
    db
      .selectFrom('roles as r')
      .select(['r.id', 'r.name', 'r.type', 'r.tier'])
      .select((eb) => {
        const keys = eb
          .selectFrom('role_permissions as rp')
          .innerJoin('permissions as p', 'p.id', 'rp.permission_id')
          .select('p.key')
          .whereRef('rp.tenant_id', '=', 'r.tenant_id')
          .whereRef('rp.role_id', '=', 'r.id')
          // Byte order, not the database's collation, so both engines (and JavaScript's sort) agree.
          .orderBy(sql`p.key collate "C"`)
        return sql<PermissionKey[]>`array(${keys})`.as('permissions')
      }),
  tenant: 'r.tenant_id',
  id: 'r.id',
  order: { name: 'r.name' },
  search: ['r.name'],
  filters: { updated_since: since('r') },
})

/** One list per vendor look-up table (payment terms, shipping terms, payment and shipping methods). */
const vendorLookupList = (table: VendorLookupTable) =>
  listSql(VendorLookupListQuery, {
    // The four tables have the same columns; Kysely is told one of them to type the select.
    select: (db: Kysely<DB>) =>
      db.selectFrom(`${table} as x` as 'payment_terms as x').select(['x.id', 'x.name', 'x.description', 'x.active']),
    tenant: 'x.tenant_id',
    id: 'x.id',
    order: { name: 'x.name' },
    search: ['x.name', 'x.description'],
    filters: { active: 'x.active', updated_since: since('x') },
  })
const VENDOR_LOOKUP_LISTS = new Map(VENDOR_LOOKUP_TABLES.map((table) => [table, vendorLookupList(table)]))

export const pageOfVendorLookups = (
  db: Kysely<DB>,
  table: VendorLookupTable,
  tenantId: number,
  query: VendorLookupListQuery,
) => VENDOR_LOOKUP_LISTS.get(table)!(db, tenantId, query)

/** Which of the referenced look-up rows exist in the tenant (one query per reference). */
export async function missingLookups(
  db: Kysely<DB>,
  tenantId: number,
  refs: { field: string; table: VendorLookupTable | 'currencies'; id: number }[],
): Promise<string[]> {
  const missing: string[] = []
  for (const ref of refs) {
    const row = await db
      .selectFrom(ref.table)
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', ref.id)
      .executeTakeFirst()
    if (row === undefined) missing.push(ref.field)
  }
  return missing
}

/**
 * The tenant's look-up rows of these ids, from all four tables in one round trip. Always the same statement
 * text (an empty array where no id is wanted), so it is prepared once per connection.
 */
export async function vendorLookupsById(
  db: Kysely<DB>,
  tenantId: number,
  ids: Readonly<Record<VendorLookupTable, readonly number[]>>,
): Promise<(VendorLookup & { kind: VendorLookupTable })[]> {
  const parts = VENDOR_LOOKUP_TABLES.map(
    (table) =>
      sql`select ${table}::text as kind, id, name, description, active from ${sql.table(table)} where tenant_id = ${tenantId} and id = any(${ids[table]}::int[])`,
  )
  const { rows } = await sql<VendorLookup & { kind: VendorLookupTable }>`${sql.join(parts, sql` union all `)}`.execute(
    db,
  )
  return rows
}
