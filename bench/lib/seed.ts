/** Seed data: a tenant of a given size with an application and a token, and the headers that call as it. */
import { sql, type Kysely } from 'kysely'
import { insertWithCredentials } from '../../src/applications/service.ts'
import type { Config } from '../../src/config.ts'
import type { DB } from '../../src/db/schema.ts'
import type { ServerKeys } from '../../src/keys.ts'
import { VENDOR_LOOKUP_TABLES, type VendorLookupTable } from '../../src/lookups/repository.ts'
import { signAccessToken } from '../../src/oauth/tokens.ts'
import { createSampleTenant } from '../../src/seed/demo.ts'
import { fmt } from './report.ts'
import { BASE_DOMAIN } from './settings.ts'

export interface Tenant {
  id: number
  domain: string
  /** Host header that names the tenant in multi-tenant mode. */
  host: string
  adminId: number
  clientId: string
  clientSecret: string
  token: string
}

/** A tenant with the sample data, `vendors` vendors in all (bulk-loaded in one statement), an application and a token. */
export async function seedTenant(
  db: Kysely<DB>,
  keys: ServerKeys,
  config: Readonly<Config>,
  domain: string,
  vendors: number,
): Promise<Tenant> {
  const started = performance.now()
  const id = await db.transaction().execute((tx) => createSampleTenant(tx, domain, domain))
  const sample = Number(
    (
      await db
        .selectFrom('vendors')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('tenant_id', '=', id)
        .executeTakeFirstOrThrow()
    ).n,
  )
  if (vendors > sample) {
    // Each vendor names a term and method of every kind (cycling through the tenant's), as real ones do.
    const ids = async (table: VendorLookupTable) =>
      (await db.selectFrom(table).select('id').where('tenant_id', '=', id).orderBy('id').execute()).map((r) => r.id)
    const [pt, st, pm, sm] = await Promise.all(VENDOR_LOOKUP_TABLES.map(ids))
    const pick = (list: number[] | undefined) =>
      list === undefined || list.length === 0 ? sql`null` : sql`(${list}::int[])[1 + g % ${list.length}]`
    await sql`INSERT INTO vendors (tenant_id, name, external_id, active, type,
        payment_term_id, shipping_term_id, payment_method_id, shipping_method_id)
      SELECT ${id}, 'Vendor ' || g, 'X-' || g, g % 10 <> 0, 3 + g % 2, ${pick(pt)}, ${pick(st)}, ${pick(pm)}, ${pick(sm)}
      FROM generate_series(1, ${vendors - sample}) g`.execute(db)
  }
  await sql`VACUUM ANALYZE vendors`.execute(db)
  const admin = await db
    .selectFrom('users')
    .select('id')
    .where('tenant_id', '=', id)
    .where('email', '=', 'admin@example.com')
    .executeTakeFirstOrThrow()
  const app = await insertWithCredentials(db, keys.pepper, { tenantId: id, userId: admin.id }, 'benchmark')
  const row = await db
    .selectFrom('applications')
    .select('secret_version')
    .where('id', '=', app.id)
    .executeTakeFirstOrThrow()
  const { token } = await signAccessToken(keys, config, {
    tenantId: id,
    domain,
    userId: admin.id,
    applicationId: app.id,
    clientId: app.client_id,
    secretVersion: row.secret_version,
  })
  console.log(
    `seeded tenant ${domain}: ${fmt(Math.max(vendors, sample))} vendors in ${fmt((performance.now() - started) / 1000, 1)} s`,
  )
  return {
    id,
    domain,
    host: `${domain}.${BASE_DOMAIN}`,
    adminId: admin.id,
    clientId: app.client_id,
    clientSecret: app.client_secret,
    token,
  }
}

/** Headers of an API request as tenant `t`. */
export const apiHeaders = (t: Tenant): Record<string, string> => ({
  host: t.host,
  authorization: `Bearer ${t.token}`,
  'x-service-client': 'api',
})
