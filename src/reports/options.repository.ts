/** What the console's report form offers: the locations read, their departments, the vendors and accounts. */
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'
import type { Scope } from './repository.ts'

export interface Option {
  id: number
  name: string
}

export async function filterOptions(db: Kysely<DB>, tenantId: number, scope: Scope) {
  let locations = db.selectFrom('locations').select(['id', 'name']).where('tenant_id', '=', tenantId)
  let departments = db.selectFrom('departments').select(['id', 'name']).where('tenant_id', '=', tenantId)
  if (scope !== 'all') {
    locations = locations.where('id', 'in', [...scope])
    departments = departments.where('location_id', 'in', [...scope])
  }
  const [l, d, v, a] = await Promise.all([
    locations.orderBy('name').execute(),
    departments.orderBy('name').execute(),
    db
      .selectFrom('vendors')
      .select(['id', 'name'])
      .where('tenant_id', '=', tenantId)
      .orderBy('name')
      .limit(500)
      .execute(),
    db
      .selectFrom('accounts')
      .select(['id', 'code', 'name'])
      .where('tenant_id', '=', tenantId)
      .orderBy('code')
      .limit(500)
      .execute(),
  ])
  return {
    locations: l as Option[],
    departments: d as Option[],
    vendors: v as Option[],
    accounts: a.map((x) => ({ id: x.id, name: x.name === '' ? x.code : `${x.code} ${x.name}` })),
  }
}
export type FilterOptions = Awaited<ReturnType<typeof filterOptions>>
