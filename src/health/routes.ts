/** Liveness and readiness for orchestrators and load balancers; no authentication, no tenant. */
import type { FastifyPluginAsync } from 'fastify'
import { sql } from 'kysely'
import { Type } from 'typebox'
import { serviceVersion } from '../core/version.ts'
import type { Config } from '../config.ts'
import type { Database } from '../db/database.ts'
import { tenantOfHost } from '../http/host.ts'
import { listeningPort, mailBase } from '../http/public-url.ts'

const Health = Type.Object({
  status: Type.String(),
  version: Type.String({ description: "The service's version (package.json), e.g. 0.1.0" }),
})

/** Where a client starts: the paths it can follow from `/`, written as absolute URLs on the public base. */
const INDEX = {
  console: '/console/',
  api_reference: '/docs/',
  openapi: '/openapi.json',
  token: '/oauth/token',
  vendors: '/api/v3/vendors/',
  health: '/healthz',
} as const
const Index = Type.Object(
  Object.fromEntries(Object.keys(INDEX).map((name) => [name, Type.String()])) as Record<
    keyof typeof INDEX,
    ReturnType<typeof Type.String>
  >,
)

/**
 * The probes' answers are two strings each, written by JSON.stringify: an orchestrator's first probe after a
 * start does not wait for a serializer to be generated and compiled (about 3 ms, http/serialization.ts).
 */
const plainJson = () => (data: unknown) => JSON.stringify(data)

export const healthRoutes =
  (database: Database, config: Readonly<Config>): FastifyPluginAsync =>
  async (app) => {
    app.get(
      '/',
      {
        schema: {
          summary: 'Where to start: a browser is sent to the console (303); any other client gets these links',
          operationId: 'getIndex',
          tags: ['operations'],
          response: { 200: Index, 303: Type.Null({ description: 'To /console/ (the request accepts text/html).' }) },
        },
      },
      async (request, reply) => {
        reply.header('vary', 'Accept')
        // URLs the service writes are absolute, on the public base (DECISIONS, Tenancy), never the Host's.
        const host = tenantOfHost(config.BASE_DOMAIN, request.host)
        const domain = host.mode === 'multi' ? (host.domain ?? undefined) : undefined
        const base = mailBase(config, domain, listeningPort(request.server.server))
        if (/text\/html/i.test(request.headers.accept ?? ''))
          return reply.code(303).header('location', `${base}${INDEX.console}`).send()
        return Object.fromEntries(Object.entries(INDEX).map(([name, path]) => [name, `${base}${path}`]))
      },
    )
    app.get(
      '/healthz',
      {
        schema: {
          summary: 'The process is up',
          operationId: 'getHealth',
          tags: ['operations'],
          response: { 200: Health },
        },
        serializerCompiler: plainJson,
      },
      async () => ({ status: 'ok', version: serviceVersion() }),
    )
    app.get(
      '/readyz',
      {
        schema: {
          summary: 'The database answers',
          operationId: 'getReadiness',
          tags: ['operations'],
          response: { 200: Type.Object({ status: Type.String(), database: Type.String() }) },
        },
        serializerCompiler: plainJson,
      },
      async () => {
        await sql`select 1`.execute(database.db)
        return { status: 'ok', database: database.engine }
      },
    )
  }
