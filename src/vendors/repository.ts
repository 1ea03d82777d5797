/**
 * SQL for vendors. Every query is scoped to one tenant. Rows carry the ids of their look-ups; the service
 * turns them into objects through the look-up cache (lookups/cache.ts), not a join per row.
 */
import type { Kysely } from 'kysely'
import { sql } from 'kysely'
import { listSql } from '../db/list.ts'
import type { DB, NewVendor, VendorUpdate } from '../db/schema.ts'
import { VendorListQuery } from './schema.ts'

export function selectVendors(db: Kysely<DB>) {
  return db.selectFrom('vendors as v').selectAll('v')
}

export type VendorRow = Awaited<ReturnType<ReturnType<typeof selectVendors>['executeTakeFirstOrThrow']>>

/** One page and its exact total in one round trip; unfiltered, the total is the kept row count. */
export const pageOfVendors = listSql(VendorListQuery, {
  select: selectVendors,
  tenant: 'v.tenant_id',
  id: 'v.id',
  order: { name: 'v.name', external_id: 'v.external_id', dateModified: 'v.date_modified' },
  search: ['v.name'],
  filters: {
    active: 'v.active',
    type: 'v.type',
    external_id: 'v.external_id',
    name: 'v.name',
    updated_since: (since) => sql<boolean>`v.date_modified >= ${since}`,
  },
  counted: 'vendors',
})

export function findVendor(db: Kysely<DB>, tenantId: number, id: number): Promise<VendorRow | undefined> {
  return selectVendors(db).where('v.tenant_id', '=', tenantId).where('v.id', '=', id).executeTakeFirst()
}

/** Inserts vendors in one statement; returns them as written (no read after the write), in the order of `values`. */
export async function insertVendors(db: Kysely<DB>, values: readonly NewVendor[]): Promise<VendorRow[]> {
  if (values.length === 0) return []
  const rows = await db
    .insertInto('vendors')
    .values([...values])
    .returningAll()
    .execute()
  // The ids are drawn in the order of the VALUES list: by id is the order they were given in.
  return rows.sort((a, b) => a.id - b.id)
}

/** Writes `values` to the tenant's vendor and returns it as written; undefined if there is no such vendor. */
export function updateVendor(
  db: Kysely<DB>,
  tenantId: number,
  id: number,
  values: VendorUpdate,
): Promise<VendorRow | undefined> {
  return db
    .updateTable('vendors')
    .set({ ...values, date_modified: new Date() })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst()
}
