/** The look-up lists: any active user of the tenant may read them; rows map to their wire shapes here. */
import type { Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import { actorLocationAccess, locationsWithAny } from '../access/location-permissions.ts'
import type { Page } from '../core/list-query.ts'
import type { DB } from '../db/schema.ts'
import * as repo from './repository.ts'
import type { Department, DepartmentListQuery, VendorLookupListQuery } from './schema.ts'

/** A look-up list read for the actor's tenant. */
const read =
  <Q, R>(pageOf: (db: Kysely<DB>, tenantId: number, query: Q) => Promise<Page<R>>) =>
  (db: Kysely<DB>, actor: Actor, query: Q): Promise<Page<R>> =>
    pageOf(db, actor.tenantId, query)

/** The fields whose look-up ids do not exist in the tenant (vendors check their references with it). */
export const missingLookups = repo.missingLookups

export const listCurrencies = read(repo.pageOfCurrencies)
export const listLegalEntities = read(repo.pageOfLegalEntities)
export const listRoles = read(repo.pageOfRoles)

export async function listDepartments(
  db: Kysely<DB>,
  actor: Actor,
  query: DepartmentListQuery,
): Promise<Page<Department>> {
  const locations =
    query.requestable === undefined ? 'all' : locationsWithAny(await actorLocationAccess(db, actor), 'nav_request')
  const result = await repo.pageOfDepartments(db, actor.tenantId, query, locations === 'all' ? undefined : [locations])
  return {
    ...result,
    rows: result.rows.map(({ branch_id, branch_name, headquarter, ...department }) => ({
      ...department,
      branch: { id: branch_id, name: branch_name, headquarter },
    })),
  }
}

export const listVendorLookups = (
  db: Kysely<DB>,
  table: repo.VendorLookupTable,
  actor: Actor,
  query: VendorLookupListQuery,
) => repo.pageOfVendorLookups(db, table, actor.tenantId, query)
