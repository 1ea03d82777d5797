/** SQL for applications (client credentials). The caller passes the database or a transaction. */
import type { Kysely } from 'kysely'
import { pageWithTotal, windowTotal } from '../db/paging.ts'
import type { DB } from '../db/schema.ts'
import type { PageRequest } from '../http/list.ts'

export interface NewApplication {
  tenant_id: number
  user_id: number
  client_id: string
  secret_hash: Buffer
  description: string
}

export const insertApplication = (db: Kysely<DB>, values: NewApplication) =>
  db.insertInto('applications').values(values).returningAll().executeTakeFirstOrThrow()

/** The application with its owner's tenant and state, for the token endpoint. */
export const findByClientId = (db: Kysely<DB>, clientId: string) =>
  db
    .selectFrom('applications as a')
    .innerJoin('tenants as t', 't.id', 'a.tenant_id')
    .innerJoin('users as u', 'u.id', 'a.user_id')
    .select([
      'a.id', 'a.tenant_id', 'a.user_id', 'a.client_id', 'a.secret_hash', 'a.secret_version', 'a.revoked_at', 'a.last_used_at',
      't.domain', 't.active as tenant_active', 'u.email', 'u.is_active as user_active',
    ])
    .where('a.client_id', '=', clientId)
    .executeTakeFirst()

const selectApplications = (db: Kysely<DB>, tenantId: number) =>
  db
    .selectFrom('applications as a')
    .innerJoin('users as u', 'u.id', 'a.user_id')
    .select(['a.id', 'a.client_id', 'a.description', 'a.created_at', 'a.secret_version', 'a.revoked_at', 'a.last_used_at', 'u.email'])
    .where('a.tenant_id', '=', tenantId)

/** Every application of the tenant (the operator's CLI). */
export const listApplications = (db: Kysely<DB>, tenantId: number) => selectApplications(db, tenantId).orderBy('a.id').execute()

/** One page and the exact total in one round trip (db/paging.ts). */
export async function pageOfApplications(db: Kysely<DB>, tenantId: number, page: PageRequest) {
  const rows = await selectApplications(db, tenantId)
    .select(windowTotal.as('total_count'))
    .orderBy('a.id', page.orderBy.direction)
    .limit(page.pageSize)
    .offset(page.offset)
    .execute()
  return pageWithTotal(rows, page, async () => Number((await db.selectFrom('applications').select((eb) => eb.fn.countAll<string>().as('n')).where('tenant_id', '=', tenantId).executeTakeFirstOrThrow()).n))
}

/** The owner of a live application of the tenant, to check who may rotate it. */
export const ownerOf = (db: Kysely<DB>, tenantId: number, clientId: string) =>
  db.selectFrom('applications').select('user_id').where('tenant_id', '=', tenantId).where('client_id', '=', clientId).where('revoked_at', 'is', null).executeTakeFirst()

export const setSecret = (db: Kysely<DB>, tenantId: number, clientId: string, secretHash: Buffer) =>
  db
    .updateTable('applications')
    .set((eb) => ({ secret_hash: secretHash, secret_version: eb('secret_version', '+', 1) }))
    .where('tenant_id', '=', tenantId)
    .where('client_id', '=', clientId)
    .where('revoked_at', 'is', null)
    .returning(['id', 'client_id'])
    .executeTakeFirst()

export const revokeApplication = (db: Kysely<DB>, tenantId: number, clientId: string) =>
  db
    .updateTable('applications')
    .set({ revoked_at: new Date() })
    .where('tenant_id', '=', tenantId)
    .where('client_id', '=', clientId)
    .where('revoked_at', 'is', null)
    .returning(['id', 'client_id'])
    .executeTakeFirst()

export const touchLastUsed = (db: Kysely<DB>, id: number) =>
  db.updateTable('applications').set({ last_used_at: new Date() }).where('id', '=', id).execute()
