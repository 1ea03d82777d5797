/** SQL for tenants (the operator's view: across every tenant) and the rows a new company starts with. */
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'
import type { StandardRole } from './roles.ts'

export const findTenantByDomain = (db: Kysely<DB>, domain: string) =>
  db.selectFrom('tenants').select(['id', 'domain', 'name', 'active']).where('domain', '=', domain).executeTakeFirst()

export const allTenants = (db: Kysely<DB>) =>
  db.selectFrom('tenants').select(['id', 'domain', 'name', 'active', 'created_at']).orderBy('id').execute()

export const countTenants = async (db: Kysely<DB>) =>
  Number(
    (
      await db
        .selectFrom('tenants')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  )

export const setActive = (db: Kysely<DB>, domain: string, active: boolean) =>
  db.updateTable('tenants').set({ active }).where('domain', '=', domain).returning(['id', 'domain']).executeTakeFirst()

export const insertTenant = (db: Kysely<DB>, domain: string, name: string) =>
  db.insertInto('tenants').values({ domain, name }).returning('id').executeTakeFirstOrThrow()

/** Creates the roles with their permissions; returns their ids in order. */
export async function insertRoles(db: Kysely<DB>, tenantId: number, roles: readonly StandardRole[]): Promise<number[]> {
  const rows = await db
    .insertInto('roles')
    .values(roles.map((r) => ({ tenant_id: tenantId, name: r.name, type: r.type, tier: r.tier })))
    .returning(['id', 'name'])
    .execute()
  const ids = roles.map((r) => rows.find((row) => row.name === r.name)!.id)
  const permissions = await db.selectFrom('permissions').select(['id', 'key']).execute()
  const grants = roles.flatMap((r, i) =>
    r.permissions.map((key) => ({
      tenant_id: tenantId,
      role_id: ids[i]!,
      permission_id: permissions.find((p) => p.key === key)!.id,
    })),
  )
  if (grants.length > 0) await db.insertInto('role_permissions').values(grants).execute()
  return ids
}

/** The base currency, a legal entity, and a headquarters location with its two addresses and one department. */
export async function insertCompanyStructure(
  db: Kysely<DB>,
  tenantId: number,
  company: { name: string; currency: string },
): Promise<{ locationId: number; departmentId: number; legalEntityId: number }> {
  const currency = await db
    .insertInto('currencies')
    .values({
      tenant_id: tenantId,
      name: company.currency,
      description: company.currency,
      rate: '1.000000',
      base: true,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  const legalEntity = await db
    .insertInto('legal_entities')
    .values({ tenant_id: tenantId, name: company.name.slice(0, 150) })
    .returning('id')
    .executeTakeFirstOrThrow()
  const location = await db
    .insertInto('locations')
    .values({
      tenant_id: tenantId,
      name: 'Headquarters',
      currency_id: currency.id,
      phone_one: 'not set',
      legal_entity_id: legalEntity.id,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  // Placeholders the administrator replaces (PUT /api/v2/locations/{id}/): a location always has both addresses.
  const address = {
    tenant_id: tenantId,
    location_id: location.id,
    address_line_one: 'Not set yet',
    city: 'Not set',
    postal_code: '-',
    country: 'Not set',
  }
  await db
    .insertInto('addresses')
    .values([
      { ...address, kind: 'billing', name: 'Headquarters billing' },
      { ...address, kind: 'shipping', name: 'Headquarters receiving' },
    ])
    .execute()
  const department = await db
    .insertInto('departments')
    .values({ tenant_id: tenantId, location_id: location.id, name: 'General' })
    .returning('id')
    .executeTakeFirstOrThrow()
  return { locationId: location.id, departmentId: department.id, legalEntityId: legalEntity.id }
}
