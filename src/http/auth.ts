/**
 * Every /api/ request: `X-Service-Client: api`, then a bearer token that verifies (signature, expiry, issuer,
 * audience, tenant of the host) and is still live in the database. The caller — the application's owner,
 * with the permissions they hold at this moment — is put on the request for handlers and services.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'
import type { Database } from '../db/database.ts'
import type { PermissionKey } from '../db/schema.ts'
import type { ServerKeys } from '../keys.ts'
import { findLiveAccess } from '../oauth/access.repository.ts'
import { verifyAccessToken } from '../oauth/tokens.ts'
import { hostAllows, tenantOfHost } from '../tenants/host.ts'
import { badRequest, forbidden, unauthorized } from './problem.ts'

export interface Caller {
  tenantId: number
  domain: string
  userId: number
  email: string
  applicationId: number
  clientId: string
  permissions: ReadonlySet<PermissionKey>
  /** The request's id, recorded with every write it makes (audit log). */
  requestId: string
}

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller
  }
}

export function bearerAuth(app: FastifyInstance, deps: { config: Readonly<Config>; database: Database; keys: ServerKeys }): void {
  app.decorateRequest('caller', null as unknown as Caller)
  app.addHook('onRequest', async (request: FastifyRequest) => {
    if (request.headers['x-service-client'] !== 'api') {
      throw badRequest('The X-Service-Client header must be "api".')
    }
    const header = request.headers.authorization
    const match = header === undefined ? null : /^Bearer ([A-Za-z0-9._~+/-]+=*)$/i.exec(header)
    if (match === null) throw unauthorized('A bearer access token is required.')
    const claims = await verifyAccessToken(deps.keys, deps.config, match[1]!)
    if (claims === undefined) throw unauthorized('The access token is not valid or has expired.')
    if (!hostAllows(tenantOfHost(deps.config.BASE_DOMAIN, request.host), claims.domain)) {
      throw unauthorized('The access token is for another domain.')
    }
    const live = await findLiveAccess(deps.database.db, claims)
    if (live === undefined) throw unauthorized('The access token has been revoked.')
    request.caller = {
      tenantId: claims.tenantId,
      domain: claims.domain,
      userId: claims.userId,
      email: live.email,
      applicationId: claims.applicationId,
      clientId: claims.clientId,
      permissions: new Set(live.permissions),
      requestId: request.id,
    }
  })
}

/** Throws 403 unless the caller holds at least one of `keys`. */
export function requireAny(caller: Caller, ...keys: PermissionKey[]): void {
  if (!keys.some((key) => caller.permissions.has(key))) {
    throw forbidden(`This action needs the ${keys.join(' or ')} permission.`)
  }
}
