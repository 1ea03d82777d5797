/**
 * One query per API request: is the token's application still live, its owner active, the token not
 * revoked, and which permission keys does the owner hold right now. Only system-wide roles count here (the
 * profile's role and grants without a location): a role granted at one location shows in `me` under that
 * location, but does not authorize tenant-wide actions such as creating locations or users.
 */
import { sql, type Kysely } from 'kysely'
import type { DB, PermissionKey } from '../db/schema.ts'
import type { AccessClaims } from './tokens.ts'

export interface LiveAccess {
  email: string
  permissions: PermissionKey[]
}

export async function findLiveAccess(db: Kysely<DB>, claims: AccessClaims): Promise<LiveAccess | undefined> {
  const row = await db
    .selectFrom('applications as a')
    .innerJoin('users as u', (join) => join.onRef('u.id', '=', 'a.user_id').onRef('u.tenant_id', '=', 'a.tenant_id'))
    .innerJoin('tenants as t', 't.id', 'a.tenant_id')
    .select([
      'u.email',
      sql<PermissionKey[]>`array(
        select distinct p.key from permissions p
        join role_permissions rp on rp.permission_id = p.id
        where rp.role_id in (
          select role_id from user_profiles where user_id = u.id
          union select role_id from role_grants where user_id = u.id and location_id is null))`.as('permissions'),
    ])
    .where('a.id', '=', claims.applicationId)
    .where('a.tenant_id', '=', claims.tenantId)
    .where('a.user_id', '=', claims.userId)
    .where('a.secret_version', '=', claims.secretVersion)
    .where('a.revoked_at', 'is', null)
    .where('u.is_active', '=', true)
    .where('t.active', '=', true)
    .where('t.domain', '=', claims.domain)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('token_revocations').select('jti').where('jti', '=', claims.jti))))
    .executeTakeFirst()
  return row
}
