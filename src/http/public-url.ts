/**
 * Where links point (DECISIONS, Tenancy): every link the service writes is absolute, and never built from
 * the request's `Host`, which a client can forge. The origin is `PUBLIC_URL` (`{domain}` standing for the
 * tenant), else `https://<domain>.<BASE_DOMAIN>` in multi-tenant mode, else the address the server listens
 * on (`http://127.0.0.1:<port>` when it listens on all interfaces). An app that does not listen (tests
 * through `app.inject()`) has no such address: its links use the configured HOST and PORT.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { Config } from '../config.ts'
import { REQUEST_CONTEXT } from './request-context.ts'

type LinkConfig = Pick<Config, 'PUBLIC_URL' | 'BASE_DOMAIN'>

/** The configured public base address for a tenant, without a trailing slash; undefined when none is. */
export function publicBase(config: LinkConfig, domain: string | undefined): string | undefined {
  if (config.PUBLIC_URL !== undefined) return config.PUBLIC_URL.replace(/\/+$/, '').replaceAll('{domain}', domain ?? '')
  if (config.BASE_DOMAIN !== undefined && domain !== undefined) return `https://${domain}.${config.BASE_DOMAIN}`
  return undefined
}

/** The port the server actually listens on (PORT may be 0: any free port), if it listens. */
export function listeningPort(server: { address(): unknown }): number | undefined {
  const address = server.address()
  return typeof address === 'object' && address !== null ? (address as { port: number }).port : undefined
}

/**
 * The origin of every link the service writes (responses and e-mail): the public address, else the address
 * the server listens on (`port`: the listening one; the configured PORT when it does not listen).
 */
export function mailBase(
  config: LinkConfig & Pick<Config, 'HOST' | 'PORT'>,
  domain: string | undefined,
  port = config.PORT,
): string {
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST
  return publicBase(config, domain) ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`
}

/** Sets `request.linkBase` and `request.mailBase` for requests with an actor (after authentication). */
async function plugin(app: FastifyInstance, config: LinkConfig & Pick<Config, 'HOST' | 'PORT'>): Promise<void> {
  const portOf = (request: FastifyRequest) => listeningPort(request.server.server)
  // Worked out only by the few requests that send e-mail (it asks the socket for the listening port).
  app.decorateRequest('mailBase', {
    getter(this: FastifyRequest) {
      return mailBase(config, this.actor.domain, portOf(this))
    },
  })
  app.addHook('preHandler', async (request) => {
    request.linkBase = mailBase(config, request.actor?.domain, portOf(request))
  })
}

export const publicLinks = fp(plugin, { name: 'public-links', dependencies: [REQUEST_CONTEXT, 'bearer-auth'] })
