/** SQL for console sessions: rows keyed by the hash of the cookie's token, never the token itself. */
import { sql, type Kysely } from 'kysely'
import { permissionsOfUser } from '../access/permissions.ts'
import { emailIs } from '../db/email.ts'
import type { DB } from '../db/schema.ts'

export const insertSession = (
  db: Kysely<DB>,
  values: {
    tenant_id: number
    user_id: number
    token_hash: Buffer
    expires_at: Date
    user_agent: string
    address: string
  },
) => db.insertInto('sessions').values(values).returning('id').executeTakeFirstOrThrow()

/**
 * The live session for a token hash, with everything a request needs: the user (active), the tenant
 * (active), and the permission keys the user holds now. Past its idle limit or absolute end it is not live.
 */
export const findLive = (db: Kysely<DB>, tokenHash: Buffer, idleSeconds: number) =>
  db
    .selectFrom('sessions as s')
    .innerJoin('users as u', (join) => join.onRef('u.id', '=', 's.user_id').onRef('u.tenant_id', '=', 's.tenant_id'))
    .innerJoin('tenants as t', 't.id', 's.tenant_id')
    .select([
      's.id',
      's.tenant_id',
      's.user_id',
      's.last_seen_at',
      't.domain',
      'u.email',
      permissionsOfUser.as('permissions'),
    ])
    .where('s.token_hash', '=', tokenHash)
    .where('s.revoked_at', 'is', null)
    .where('s.expires_at', '>', new Date())
    .where('s.last_seen_at', '>', sql<Date>`now() - make_interval(secs => ${idleSeconds})`)
    .where('u.is_active', '=', true)
    .where('t.active', '=', true)
    .executeTakeFirst()

export const touch = (db: Kysely<DB>, tenantId: number, id: number) =>
  db
    .updateTable('sessions')
    .set({ last_seen_at: new Date() })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute()

/** Ends sessions: one by its token, one of a user by id, or every one of a user. */
export const revokeByToken = (db: Kysely<DB>, tokenHash: Buffer) =>
  db
    .updateTable('sessions')
    .set({ revoked_at: new Date() })
    .where('token_hash', '=', tokenHash)
    .where('revoked_at', 'is', null)
    .execute()

export const revokeOfUser = async (db: Kysely<DB>, tenantId: number, userId: number, id?: number) => {
  let q = db
    .updateTable('sessions')
    .set({ revoked_at: new Date() })
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
  if (id !== undefined) q = q.where('id', '=', id)
  return Number((await q.executeTakeFirst()).numUpdatedRows)
}

/** Ends every session of a tenant. */
export const revokeOfTenant = (db: Kysely<DB>, tenantId: number) =>
  db
    .updateTable('sessions')
    .set({ revoked_at: new Date() })
    .where('tenant_id', '=', tenantId)
    .where('revoked_at', 'is', null)
    .execute()

/** A user's live sessions, newest first (the account page lists them). */
export const listOfUser = (db: Kysely<DB>, tenantId: number, userId: number) =>
  db
    .selectFrom('sessions')
    .select(['id', 'created_at', 'last_seen_at', 'expires_at', 'user_agent', 'address'])
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', new Date())
    .orderBy('id', 'desc')
    .execute()

/** Users who may sign in with this e-mail: in one tenant (multi-tenant hosts) or in any (single tenant). */
export function usersForSignIn(db: Kysely<DB>, email: string, domain: string | undefined) {
  let q = db
    .selectFrom('users as u')
    .innerJoin('tenants as t', 't.id', 'u.tenant_id')
    .select(['u.id', 'u.tenant_id', 'u.password_hash', 'u.is_active', 't.active as tenant_active', 't.domain'])
    .select(sql<boolean>`'superuser' = any(${permissionsOfUser})`.as('superuser'))
    .where(emailIs('u.email', email))
  if (domain !== undefined) q = q.where('t.domain', '=', domain)
  return q.limit(2).execute()
}
