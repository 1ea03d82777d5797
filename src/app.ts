/**
 * buildApp: the whole HTTP service as a Fastify instance, ready for `listen` (server.ts) or `inject` (tests).
 * Nothing here opens sockets or databases; the caller hands them in.
 */
import Fastify, { LogController, type FastifyInstance } from 'fastify'
import type { DestinationStream } from 'pino'
import type { Config } from './config.ts'
import type { Database } from './db/database.ts'
import type { Subscribers } from './db/listener.ts'
import { healthRoutes } from './health/routes.ts'
import { restoreHead, routeHeadAsGet } from './http/head.ts'
import { methodNotAllowed } from './http/not-found.ts'
import { registerOpenApi } from './http/openapi.ts'
import { trustProxyOption } from './http/trust-proxy.ts'
import { hostGuard } from './http/host-guard.ts'
import { jsonBody, mediaTypeMessages } from './http/json-body.ts'
import { metrics } from './http/metrics.ts'
import { textGuard } from './http/text-guard.ts'
import { problemHandler, sendProblem } from './http/errors.ts'
import { badRequest } from './core/problem.ts'
import { requestContext } from './http/request-context.ts'
import { requestId } from './http/request-id.ts'
import { securityHeaders } from './http/security-headers.ts'
import { checkResponses } from './http/response-check.ts'
import { subscribeToChanges } from './http/changes.ts'
import { validatorCompiler } from './http/validation.ts'
import { buildSerializerOnFirstUse } from './http/serialization.ts'
import type { ServerKeys } from './keys.ts'
import { apiRoutes } from './api.ts'
import { consoleRequestError, consoleRoutes } from './console/routes.ts'
import { invitationRoutes } from './invitations/routes.ts'
import { LOOKUPS_CHANNEL, LookupCache } from './lookups/cache.ts'
import { ACCESS_CHANNEL, LiveAccessCache } from './oauth/access-cache.ts'
import { oauthRoutes } from './oauth/routes.ts'
import { registerWebhookMetrics } from './webhooks/metrics.service.ts'
import { scimRoutes } from './scim/routes.ts'

export interface AppDeps {
  config: Readonly<Config>
  database: Database
  keys: ServerKeys
  /** Where log lines go (default: stdout). Tests pass a stream to read them. */
  logStream?: DestinationStream
  /** Check every JSON response against its route's declared schema (tests; see http/response-check.ts). */
  checkResponses?: boolean
  /** Set in a cluster worker (server.ts): /metrics then reports every worker's (see http/metrics.ts). */
  clusterWorker?: boolean
  /** More channels on the process's one LISTEN connection (server.ts: the webhook worker's). */
  subscribers?: Subscribers
}

/** How often Node looks for connections past HEADERS_/REQUEST_TIMEOUT_SECONDS: a limit holds to within this. */
const TIMEOUT_CHECK_MS = 1000

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps
  const app = Fastify({
    logger: {
      level: config.LOG_LEVEL,
      redact: {
        paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
        censor: '[redacted]',
      },
      ...(deps.logStream ? { stream: deps.logStream } : {}),
    },
    genReqId: requestId,
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
    bodyLimit: config.BODY_LIMIT_BYTES,
    // Slow clients (headers or a body trickled a byte at a time) get 408 and are closed. Node checks the
    // limits only every connectionsCheckingInterval (30 s by default): every second here, so they hold.
    requestTimeout: config.REQUEST_TIMEOUT_SECONDS * 1000,
    http: {
      headersTimeout: config.HEADERS_TIMEOUT_SECONDS * 1000,
      requestTimeout: config.REQUEST_TIMEOUT_SECONDS * 1000,
      connectionsCheckingInterval: TIMEOUT_CHECK_MS,
    },
    trustProxy: trustProxyOption(config.trustProxy),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // HEAD is routed to the GET route rather than given routes of its own (http/head.ts).
    exposeHeadRoutes: false,
    rewriteUrl: routeHeadAsGet,
    return503OnClosing: true,
    schemaController: { compilersFactory: { buildSerializer: buildSerializerOnFirstUse } },
    // A path that is not valid percent-encoding never reaches a route: a problem like every other 400.
    frameworkErrors: (error, request, reply) => {
      const detail = `The request path is not valid: ${error.message}.`
      if (request.url.startsWith('/console')) void consoleRequestError(reply, detail)
      else void sendProblem(reply, badRequest(detail))
    },
  })
  restoreHead(app)
  await app.register(requestContext)
  app.setValidatorCompiler(validatorCompiler)
  app.setErrorHandler(problemHandler)
  app.removeContentTypeParser('text/plain')
  jsonBody(app)
  mediaTypeMessages(app)
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id)
  })
  hostGuard(app)
  await securityHeaders(app, config.CORS_ORIGINS)
  methodNotAllowed(app)
  textGuard(app)
  if (deps.checkResponses === true) checkResponses(app)
  // One line per request, after the response: who asked, what, how it went, how long it took. At a level
  // that leaves those lines out, the hook is not installed at all.
  if (['trace', 'debug', 'info'].includes(config.LOG_LEVEL))
    app.addHook('onResponse', async (request, reply) => {
      const actor = request.actor as typeof request.actor | null
      request.log.info(
        {
          method: request.method,
          route: request.routeOptions.url ?? null,
          status: reply.statusCode,
          duration_ms: Math.round(reply.elapsedTime * 100) / 100,
          ...(actor ? { tenant: actor.domain, client_id: actor.clientId } : {}),
        },
        'request',
      )
    })

  // The caches the database's notifications keep true; subscribed before the routes, so that the fence's
  // hook answers every write after its change reached them (http/changes.ts).
  const access = new LiveAccessCache()
  const lookups = new LookupCache()
  subscribeToChanges(app, deps.database, {
    [ACCESS_CHANNEL]: access.entries,
    [LOOKUPS_CHANNEL]: lookups.entries,
    ...deps.subscribers,
  })
  await registerOpenApi(app, config.API_AUDIENCE)
  metrics(app, deps.clusterWorker === true ? { workers: config.WORKERS } : undefined, (registry) =>
    registerWebhookMetrics(registry, deps.database.db),
  )
  await app.register(healthRoutes(deps.database, config))
  await app.register(oauthRoutes(deps))
  await app.register(invitationRoutes(deps.database, config))
  await app.register(apiRoutes({ ...deps, access, lookups }), { prefix: '/api' })
  await app.register(consoleRoutes({ ...deps, lookups }), { prefix: '/console' })
  await app.register(scimRoutes(deps), { prefix: '/scim/v2' })
  return app
}
