/** SQL for the tenant's identity provider, the people linked to it, and the grants its groups made. */
import { sql, type Kysely } from 'kysely'
import { emailIs } from '../db/email.ts'
import type { DB, SsoConfigTable } from '../db/schema.ts'

export const findConfig = (db: Kysely<DB>, tenantId: number) =>
  db.selectFrom('sso_configs').selectAll().where('tenant_id', '=', tenantId).executeTakeFirst()

export type ConfigRow = NonNullable<Awaited<ReturnType<typeof findConfig>>>

type ConfigValues = Omit<SsoConfigTable, 'tenant_id' | 'created_at' | 'updated_at' | 'group_roles'> & {
  group_roles: string
}

export async function upsertConfig(db: Kysely<DB>, tenantId: number, values: ConfigValues): Promise<void> {
  await db
    .insertInto('sso_configs')
    .values({ tenant_id: tenantId, ...values })
    .onConflict((oc) => oc.column('tenant_id').doUpdateSet({ ...values, updated_at: sql`now()` }))
    .execute()
}

export const deleteConfig = async (db: Kysely<DB>, tenantId: number): Promise<boolean> =>
  (await db.deleteFrom('sso_configs').where('tenant_id', '=', tenantId).executeTakeFirst()).numDeletedRows > 0n

/** The tenants with a configuration and their domains (single-tenant mode picks the one that has one). */
export const configuredTenants = (db: Kysely<DB>) =>
  db
    .selectFrom('sso_configs as c')
    .innerJoin('tenants as t', 't.id', 'c.tenant_id')
    .select(['t.id', 't.domain', 't.active'])
    .limit(2)
    .execute()

export const tenantByDomain = (db: Kysely<DB>, domain: string) =>
  db.selectFrom('tenants').select(['id', 'domain', 'active']).where('domain', '=', domain).executeTakeFirst()

/** What the tenant's roles and locations are (to check a configuration's references). */
export async function referenceIds(db: Kysely<DB>, tenantId: number) {
  const [roles, locations] = await Promise.all([
    db.selectFrom('roles').select('id').where('tenant_id', '=', tenantId).execute(),
    db.selectFrom('locations').select('id').where('tenant_id', '=', tenantId).execute(),
  ])
  return { roles: new Set(roles.map((r) => r.id)), locations: new Set(locations.map((l) => l.id)) }
}

export const identityUser = (db: Kysely<DB>, tenantId: number, issuer: string, subject: string) =>
  db
    .selectFrom('sso_identities as i')
    .innerJoin('users as u', (j) => j.onRef('u.tenant_id', '=', 'i.tenant_id').onRef('u.id', '=', 'i.user_id'))
    .select(['u.id', 'u.email', 'u.is_active'])
    .where('i.tenant_id', '=', tenantId)
    .where('i.issuer', '=', issuer)
    .where('i.subject', '=', subject)
    .executeTakeFirst()

export const userByEmail = (db: Kysely<DB>, tenantId: number, email: string) =>
  db
    .selectFrom('users')
    .select(['id', 'email', 'is_active'])
    .where('tenant_id', '=', tenantId)
    .where(emailIs('email', email))
    .executeTakeFirst()

export const profileIdOf = async (db: Kysely<DB>, tenantId: number, userId: number) =>
  (
    await db
      .selectFrom('user_profiles')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow()
  ).id

export async function link(
  db: Kysely<DB>,
  row: { tenantId: number; issuer: string; subject: string; userId: number; groups: string[] },
): Promise<void> {
  await db
    .insertInto('sso_identities')
    .values({
      tenant_id: row.tenantId,
      issuer: row.issuer,
      subject: row.subject,
      user_id: row.userId,
      last_sign_in_at: new Date(),
      claim_groups: row.groups,
    })
    .onConflict((oc) =>
      oc
        .columns(['tenant_id', 'issuer', 'subject'])
        .doUpdateSet({ last_sign_in_at: new Date(), claim_groups: row.groups }),
    )
    .execute()
}

/** The groups a user is in: those the provider's claim named at the last sign-in, and their SCIM groups. */
export async function groupsOf(db: Kysely<DB>, tenantId: number, userId: number): Promise<string[]> {
  const [claims, scim] = await Promise.all([
    db
      .selectFrom('sso_identities')
      .select('claim_groups')
      .where('tenant_id', '=', tenantId)
      .where('user_id', '=', userId)
      .execute(),
    db
      .selectFrom('scim_group_members as m')
      .innerJoin('scim_groups as g', (j) => j.onRef('g.tenant_id', '=', 'm.tenant_id').onRef('g.id', '=', 'm.group_id'))
      .select(['g.display_name', 'g.external_id'])
      .where('m.tenant_id', '=', tenantId)
      .where('m.user_id', '=', userId)
      .execute(),
  ])
  return [
    ...claims.flatMap((c) => c.claim_groups),
    ...scim.flatMap((g) => (g.external_id === null ? [g.display_name] : [g.display_name, g.external_id])),
  ]
}

export interface GrantKey {
  location: number | null
  role: number
}

/**
 * Replaces the grants a user holds through group mappings with `grants`. A grant the user already holds by
 * hand is left alone (and not marked); grants made by hand are never removed.
 */
export async function replaceManagedGrants(
  db: Kysely<DB>,
  tenantId: number,
  userId: number,
  grants: GrantKey[],
): Promise<{ added: GrantKey[]; removed: GrantKey[] }> {
  const marked = await db
    .deleteFrom('sso_managed_grants')
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', userId)
    .returning(['location_id', 'role_id'])
    .execute()
  const old = marked.map((m) => ({ location: m.location_id === 0 ? null : m.location_id, role: m.role_id }))
  const same = (a: GrantKey, b: GrantKey) => a.location === b.location && a.role === b.role
  const removed = old.filter((o) => !grants.some((g) => same(g, o)))
  for (const r of removed) {
    await db
      .deleteFrom('role_grants')
      .where('tenant_id', '=', tenantId)
      .where('user_id', '=', userId)
      .where('role_id', '=', r.role)
      .where((eb) => (r.location === null ? eb('location_id', 'is', null) : eb('location_id', '=', r.location)))
      .execute()
  }
  const added: GrantKey[] = []
  for (const g of grants) {
    const wasManaged = old.some((o) => same(o, g))
    const inserted = await db
      .insertInto('role_grants')
      .values({ tenant_id: tenantId, user_id: userId, location_id: g.location, role_id: g.role })
      .onConflict((oc) => oc.doNothing())
      .returning('id')
      .execute()
    if (!wasManaged && inserted.length === 0) continue // held by hand: stays the hand's
    if (!wasManaged) added.push(g)
    await db
      .insertInto('sso_managed_grants')
      .values({ tenant_id: tenantId, user_id: userId, location_id: g.location ?? 0, role_id: g.role })
      .execute()
  }
  return { added, removed }
}

/** Everyone whose grants group mappings may touch: in a SCIM group, named groups at sign-in, or holding such grants. */
export async function usersWithGroups(db: Kysely<DB>, tenantId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('scim_group_members')
    .select('user_id')
    .where('tenant_id', '=', tenantId)
    .union(db.selectFrom('sso_managed_grants').select('user_id').where('tenant_id', '=', tenantId))
    .union(
      db
        .selectFrom('sso_identities')
        .select('user_id')
        .where('tenant_id', '=', tenantId)
        .where(sql<boolean>`cardinality(claim_groups) > 0`),
    )
    .execute()
  return rows.map((r) => r.user_id).sort((a, b) => a - b)
}
