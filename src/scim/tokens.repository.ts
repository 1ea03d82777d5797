/** SQL for SCIM bearer tokens (kept as keyed hashes). */
import type { Kysely } from 'kysely'
import { listSql } from '../db/list.ts'
import type { DB } from '../db/schema.ts'
import { ScimTokenListQuery } from './schema.ts'

const COLUMNS = ['id', 'description', 'created_at', 'last_used_at'] as const

export const insertToken = (
  db: Kysely<DB>,
  row: { tenant_id: number; token_hash: Buffer; description: string; created_by: number | null },
) => db.insertInto('scim_tokens').values(row).returning(COLUMNS).executeTakeFirstOrThrow()

/** Every token of the tenant (the console's list). */
export const listTokens = (db: Kysely<DB>, tenantId: number) =>
  db.selectFrom('scim_tokens').select(COLUMNS).where('tenant_id', '=', tenantId).orderBy('id').execute()

/** One page of the tenant's tokens and the exact total. */
export const pageOfTokens = listSql(ScimTokenListQuery, {
  select: (db: Kysely<DB>) => db.selectFrom('scim_tokens').select(COLUMNS),
  tenant: 'scim_tokens.tenant_id',
  id: 'scim_tokens.id',
  order: {},
  search: ['scim_tokens.description'],
  filters: {},
})

export const deleteToken = async (db: Kysely<DB>, tenantId: number, id: number): Promise<boolean> =>
  (await db.deleteFrom('scim_tokens').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst())
    .numDeletedRows > 0n

/** The live token with one of these hashes, with its tenant. */
export const tokenByHash = (db: Kysely<DB>, hashes: Buffer[]) =>
  db
    .selectFrom('scim_tokens as s')
    .innerJoin('tenants as t', 't.id', 's.tenant_id')
    .select(['s.id', 's.tenant_id', 's.token_hash', 's.last_used_at', 't.domain', 't.active'])
    .where('s.token_hash', 'in', hashes)
    .executeTakeFirst()

export const touchToken = (db: Kysely<DB>, tenantId: number, id: number) =>
  db
    .updateTable('scim_tokens')
    .set({ last_used_at: new Date() })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute()
