/** SQL for applications (client credentials). The caller passes the database or a transaction. */
import { sql, type Kysely } from 'kysely'
import { compiledOnce } from '../db/compiled.ts'
import { byTenant } from '../db/joins.ts'
import { listSql } from '../db/list.ts'
import type { DB } from '../db/schema.ts'
import { ApplicationListQuery } from './schema.ts'

export interface NewApplication {
  tenant_id: number
  user_id: number
  client_id: string
  secret_hash: Buffer
  description: string
}

export const insertApplication = (db: Kysely<DB>, values: NewApplication) =>
  db.insertInto('applications').values(values).returningAll().executeTakeFirstOrThrow()

const byClientId = compiledOnce((db: Kysely<DB>, clientId: string) =>
  db
    .selectFrom('applications as a')
    .innerJoin('tenants as t', 't.id', 'a.tenant_id')
    .innerJoin('users as u', byTenant('u', 'a.user_id'))
    .select([
      'a.id',
      'a.tenant_id',
      'a.user_id',
      'a.client_id',
      'a.secret_hash',
      'a.secret_version',
      'a.revoked_at',
      'a.last_used_at',
      't.domain',
      't.active as tenant_active',
      'u.email',
      'u.is_active as user_active',
    ])
    .where('a.client_id', '=', clientId),
)

/** The application with its owner's tenant and state, for the token endpoint (every token request: compiled once). */
export const findByClientId = async (db: Kysely<DB>, clientId: string) => (await byClientId(db, clientId))[0]

/** Which tenant an application belongs to, revoked or not (the operator names applications by client id alone). */
export const tenantOfApplication = (db: Kysely<DB>, clientId: string) =>
  db
    .selectFrom('applications as a')
    .innerJoin('tenants as t', 't.id', 'a.tenant_id')
    .select(['t.id', 't.domain'])
    .where('a.client_id', '=', clientId)
    .executeTakeFirst()

const selectApplications = (db: Kysely<DB>) =>
  db
    .selectFrom('applications as a')
    .innerJoin('users as u', byTenant('u', 'a.user_id'))
    .select(['a.id', 'a.client_id', 'a.description', 'a.created_at', 'a.revoked_at', 'a.last_used_at', 'u.email'])

export type ApplicationRow = Awaited<ReturnType<ReturnType<typeof selectApplications>['executeTakeFirstOrThrow']>>

/** Every application of the tenant (the operator's CLI). */
export const listApplications = (db: Kysely<DB>, tenantId: number) =>
  selectApplications(db).where('a.tenant_id', '=', tenantId).orderBy('a.id').execute()

/** One page and the exact total in one round trip. */
/** One application of the tenant by its client id, revoked or not. */
export const findApplication = (db: Kysely<DB>, tenantId: number, clientId: string) =>
  selectApplications(db).where('a.tenant_id', '=', tenantId).where('a.client_id', '=', clientId).executeTakeFirst()

export const pageOfApplications = listSql(ApplicationListQuery, {
  select: selectApplications,
  tenant: 'a.tenant_id',
  id: 'a.id',
  order: {},
  search: [],
  filters: {},
})

/** The owner of a live application of the tenant, to check who may rotate it. */
export const ownerOf = (db: Kysely<DB>, tenantId: number, clientId: string) =>
  db
    .selectFrom('applications')
    .select('user_id')
    .where('tenant_id', '=', tenantId)
    .where('client_id', '=', clientId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst()

export const setSecret = (db: Kysely<DB>, tenantId: number, clientId: string, secretHash: Buffer) =>
  db
    .updateTable('applications')
    .set((eb) => ({ secret_hash: secretHash, secret_version: eb('secret_version', '+', 1) }))
    .where('tenant_id', '=', tenantId)
    .where('client_id', '=', clientId)
    .where('revoked_at', 'is', null)
    .returning(['id', 'client_id'])
    .executeTakeFirst()

/** Every token issued so far to the tenant's applications stops working (the secrets stay valid). */
export const retireTenantTokens = (db: Kysely<DB>, tenantId: number) =>
  db
    .updateTable('applications')
    .set((eb) => ({ secret_version: eb('secret_version', '+', 1) }))
    .where('tenant_id', '=', tenantId)
    .execute()

/** The same secret hashed under the current pepper (secret_version unchanged: its tokens stay valid). */
export const rehashSecret = (db: Kysely<DB>, id: number, oldHash: Buffer, newHash: Buffer) =>
  db
    .updateTable('applications')
    .set({ secret_hash: newHash })
    .where('id', '=', id)
    .where('secret_hash', '=', oldHash)
    .execute()

export const revokeApplication = (db: Kysely<DB>, tenantId: number, clientId: string) =>
  db
    .updateTable('applications')
    .set({ revoked_at: new Date() })
    .where('tenant_id', '=', tenantId)
    .where('client_id', '=', clientId)
    .where('revoked_at', 'is', null)
    .returning(['id', 'client_id'])
    .executeTakeFirst()

/**
 * Stamps the application's `last_used_at` (minute precision) — unless another transaction holds its row (a
 * revocation, a deactivation of its owner): then the stamp is skipped rather than waited for (`SKIP LOCKED`),
 * so a token request never waits on an unrelated lock. The statement changes no key column, so no foreign key
 * check locks the owner's `users` row either.
 */
export const touchLastUsed = (db: Kysely<DB>, tenantId: number, id: number) =>
  db
    .updateTable('applications')
    .set({ last_used_at: new Date() })
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('applications as stale')
        .select('stale.id')
        .where('stale.tenant_id', '=', tenantId)
        .where('stale.id', '=', id)
        .where((w) =>
          w.or([
            w('stale.last_used_at', 'is', null),
            w('stale.last_used_at', '<', sql<Date>`now() - interval '1 minute'`),
          ]),
        )
        .forNoKeyUpdate()
        .skipLocked(),
    )
    .execute()
