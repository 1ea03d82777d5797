/**
 * Bearer authentication for every /api/ request: `X-Service-Client: api`, then an access token that
 * verifies (signature, expiry, issuer, audience, tenant of the host) and is still live in the database —
 * asked per request, or answered by the cache that every change invalidates (oauth/access-cache.ts). The
 * actor — the application's owner, with the permissions they hold at this moment — is put on the request.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { Config } from '../config.ts'
import type { Database } from '../db/database.ts'
import { badRequest, unauthorized } from '../core/problem.ts'
import type { ServerKeys } from '../keys.ts'
import { hostAllows, tenantOfHost } from '../http/host.ts'
import { REQUEST_CONTEXT } from '../http/request-context.ts'
import type { LiveAccessCache } from './access-cache.ts'
import { findLiveAccess } from './access.repository.ts'
import { verifyAccessToken } from './tokens.ts'

interface BearerDeps {
  config: Readonly<Config>
  database: Database
  keys: ServerKeys
  access: LiveAccessCache
}

async function plugin(app: FastifyInstance, deps: BearerDeps): Promise<void> {
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
    const live = await deps.access.get(claims, () => findLiveAccess(deps.database.db, claims))
    if (live === undefined) throw unauthorized('The access token has been revoked.')
    request.actor = {
      tenantId: claims.tenantId,
      domain: claims.domain,
      userId: claims.userId,
      email: live.email,
      applicationId: claims.applicationId,
      clientId: claims.clientId,
      permissions: live.permissions,
      channel: 'api',
      requestId: request.id,
    }
  })
}

/** Sets `request.actor` on every request of the scope it is registered in (/api/), or refuses the request. */
export const bearerAuth = fp(plugin, { name: 'bearer-auth', dependencies: [REQUEST_CONTEXT] })
