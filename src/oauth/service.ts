/**
 * The token and revocation endpoints' rules. An unknown client, a wrong secret, a revoked application and a
 * deactivated owner all fail the same way, after the same work (one lookup, one HMAC), so a caller cannot
 * tell them apart by answer or by time.
 */
import type { Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import { audit } from '../audit/service.ts'
import type { Config } from '../config.ts'
import type { DB } from '../db/schema.ts'
import type { ServerKeys } from '../keys.ts'
import { hostAllows, type HostTenant } from '../http/host.ts'
import * as applications from '../applications/service.ts'
import type { AttemptCounter } from '../access/attempts.ts'
import { accessDenied, invalidClient, tooManyAttempts } from './errors.ts'
import { revoke } from './access.repository.ts'
import { signAccessToken, TOKEN_LIFETIME_SECONDS, verifyAccessToken } from './tokens.ts'

export interface OAuthDeps {
  db: Kysely<DB>
  keys: ServerKeys
  config: Readonly<Config>
  attempts: AttemptCounter
}

export interface ClientAuth {
  clientId: string
  clientSecret: string
  /** Whether the credentials came in an HTTP Basic header (changes the 401's WWW-Authenticate). */
  basic: boolean
}

/** Where a token request came from: the tenant its host names, and the client's address (for the brake). */
export interface ClientOrigin {
  host: HostTenant
  address: string
}

/**
 * The application for these credentials, if they are right and it may be used on this host. A right secret
 * is never refused by the brake and never counts as a failure (not even on another tenant's host); only
 * wrong ones count, per address and per client id, and past either limit they are answered 429.
 */
async function authenticate(deps: OAuthDeps, auth: ClientAuth, origin: ClientOrigin) {
  const { pepper, previousPeppers = [] } = deps.keys
  const app = await applications.verifyClient(deps.db, pepper, previousPeppers, auth.clientId, auth.clientSecret)
  if (app !== undefined) {
    if (app.revoked_at === null && app.user_active && app.tenant_active && hostAllows(origin.host, app.domain)) {
      // Hashed under a previous pepper: hashed again under the current one, so the old pepper can be retired.
      if (app.matched === 'previous') await applications.rehashSecret(deps.db, app, pepper, auth.clientSecret)
      return app
    }
    throw invalidClient(auth.basic)
  }
  // An address gets its full allowance of failures; a client id is braked from the failure that reaches its limit.
  const wait = await deps.attempts.failed(auth.clientId, origin.address)
  throw wait > 0 ? tooManyAttempts(wait) : invalidClient(auth.basic)
}

export async function issueToken(deps: OAuthDeps, auth: ClientAuth, audience: string, origin: ClientOrigin) {
  const app = await authenticate(deps, auth, origin)
  if (audience !== deps.config.API_AUDIENCE) throw accessDenied(deps.config.API_AUDIENCE)
  const { token } = await signAccessToken(deps.keys, deps.config, {
    tenantId: app.tenant_id,
    domain: app.domain,
    userId: app.user_id,
    applicationId: app.id,
    clientId: app.client_id,
    secretVersion: app.secret_version,
  })
  // last_used_at is for people ("is this integration still in use?"); minute precision spares a write per token.
  if (app.last_used_at === null || Date.now() - app.last_used_at.getTime() > 60_000)
    await applications.touchLastUsed(deps.db, app.tenant_id, app.id)
  return {
    access_token: token,
    scope: `urn:service-api:domain:${app.domain} urn:service-api:email:${app.email}`,
    expires_in: TOKEN_LIFETIME_SECONDS,
    token_type: 'Bearer' as const,
  }
}

/** RFC 7009: revokes `token` if it is a valid access token of the authenticated client; silent otherwise. */
export async function revokeToken(
  deps: OAuthDeps,
  auth: ClientAuth,
  token: string,
  origin: ClientOrigin,
): Promise<void> {
  const app = await authenticate(deps, auth, origin)
  const claims = await verifyAccessToken(deps.keys, deps.config, token)
  if (claims === undefined || claims.applicationId !== app.id) return
  await revoke(deps.db, {
    jti: claims.jti,
    tenant_id: app.tenant_id,
    application_id: app.id,
    expires_at: claims.expiresAt,
  })
  const actor: Actor = {
    tenantId: app.tenant_id,
    domain: app.domain,
    userId: app.user_id,
    email: app.email,
    applicationId: app.id,
    clientId: app.client_id,
    permissions: new Set(),
    channel: 'api',
    requestId: null,
  }
  await audit(deps.db, actor, { action: 'token.revoke', resourceType: 'token', resourceId: claims.jti })
}
