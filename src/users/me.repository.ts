/** SQL for the current user's account (spec 2.9): tenant, role grants with permissions, department's branch. */
import { sql, type Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'
import type { AddressNoId } from './schema.ts'

export const tenantOf = (db: Kysely<DB>, tenantId: number) =>
  db.selectFrom('tenants').select(['domain', 'name', 'active']).where('id', '=', tenantId).executeTakeFirstOrThrow()

export interface GrantRow {
  location_id: number | null
  role_id: number
  role_name: string
  permissions: { id: number; name: string; description: string }[]
}

/** The user's role grants (location-specific and system-wide, the profile's own role counted system-wide), with permissions. */
export async function grantsOf(db: Kysely<DB>, userId: number): Promise<GrantRow[]> {
  const result = await sql<GrantRow>`
    with granted as (
      select location_id, role_id from role_grants where user_id = ${userId}
      union
      select null, role_id from user_profiles where user_id = ${userId})
    select g.location_id, r.id as role_id, r.name as role_name,
      coalesce((select json_agg(json_build_object('id', p.id, 'name', p.key, 'description', p.description) order by p.id)
        from role_permissions rp join permissions p on p.id = rp.permission_id where rp.role_id = r.id), '[]') as permissions
    from granted g join roles r on r.id = g.role_id
    order by g.location_id nulls first, r.id`.execute(db)
  return result.rows
}

export async function isDelegatee(db: Kysely<DB>, userId: number): Promise<boolean> {
  const row = await db.selectFrom('delegations').select('id').where('delegatee_id', '=', userId).where('active', '=', true).executeTakeFirst()
  return row !== undefined
}

/** The department with its branch (location) fields as 2.9 lists them, or undefined. */
export async function departmentWithBranch(db: Kysely<DB>, departmentId: number) {
  const address = (kind: 'billing' | 'shipping') => sql<AddressNoId>`(
    select json_build_object('name', a.name, 'addressLineOne', a.address_line_one, 'city', a.city, 'postalCode', a.postal_code,
      'state_province', a.state_province, 'country', a.country)
    from addresses a where a.location_id = l.id and a.kind = ${kind} and a.active)`
  return db
    .selectFrom('departments as d')
    .innerJoin('locations as l', 'l.id', 'd.location_id')
    .innerJoin('currencies as c', 'c.id', 'l.currency_id')
    .select([
      'd.name', 'd.external_id', 'd.active',
      'l.name as l_name', 'l.url', 'l.logo', 'l.phone_one', 'l.fax', 'l.email', 'l.language', 'l.timezone', 'l.active as l_active', 'l.external_id as l_external_id',
      'c.name as c_name', 'c.description as c_description', 'c.rate as c_rate', 'c.base as c_base', 'c.active as c_active',
      address('billing').as('billing'),
      address('shipping').as('shipping'),
    ])
    .where('d.id', '=', departmentId)
    .executeTakeFirst()
}
