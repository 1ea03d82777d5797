/**
 * One query per API request: is the token's application still live, its owner active, the token not
 * revoked, and which permission keys does the owner hold right now (access/permissions.ts).
 */
import type { Kysely } from 'kysely'
import { permissionsOfUser } from '../access/permissions.ts'
import type { DB, PermissionKey } from '../db/schema.ts'
import type { AccessClaims } from './tokens.ts'

export interface LiveAccess {
  email: string
  permissions: ReadonlySet<PermissionKey>
}

export async function findLiveAccess(db: Kysely<DB>, claims: AccessClaims): Promise<LiveAccess | undefined> {
  const row = await db
    .selectFrom('applications as a')
    .innerJoin('users as u', (join) => join.onRef('u.id', '=', 'a.user_id').onRef('u.tenant_id', '=', 'a.tenant_id'))
    .innerJoin('tenants as t', 't.id', 'a.tenant_id')
    .select(['u.email', permissionsOfUser.as('permissions')])
    .where('a.id', '=', claims.applicationId)
    .where('a.tenant_id', '=', claims.tenantId)
    .where('a.user_id', '=', claims.userId)
    .where('a.secret_version', '=', claims.secretVersion)
    .where('a.revoked_at', 'is', null)
    .where('u.is_active', '=', true)
    .where('t.active', '=', true)
    .where('t.domain', '=', claims.domain)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('token_revocations as r')
            .select('r.jti')
            .where('r.tenant_id', '=', claims.tenantId)
            .where('r.jti', '=', claims.jti),
        ),
      ),
    )
    .executeTakeFirst()
  return row === undefined ? undefined : { email: row.email, permissions: new Set(row.permissions) }
}

/** Records a token's revocation (RFC 7009): every node refuses it from then on; a second revocation changes nothing. */
export async function revoke(
  db: Kysely<DB>,
  revocation: { jti: string; tenant_id: number; application_id: number; expires_at: Date },
) {
  await db
    .insertInto('token_revocations')
    .values(revocation)
    .onConflict((oc) => oc.doNothing())
    .execute()
}
