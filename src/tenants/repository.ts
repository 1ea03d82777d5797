/** SQL for tenants (the operator's view: across every tenant). */
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'

export const findTenantByDomain = (db: Kysely<DB>, domain: string) =>
  db.selectFrom('tenants').select(['id', 'domain']).where('domain', '=', domain).executeTakeFirst()

export const allTenants = (db: Kysely<DB>) => db.selectFrom('tenants').select(['id', 'domain']).orderBy('id').execute()
