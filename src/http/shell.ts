/**
 * A Fastify app with the service's edges and nothing else: its settings (timeouts, body limit, proxies, the
 * router's), request ids, HEAD through GET, validation, problems for errors, body parsers, Host checks,
 * security headers, 405s, the text guard, the request log line and the route metrics. Not the write fence: the app that owns the database's change
 * notifications adds it (http/changes.ts), and so does an app mounted on it, with the same subscription.
 * app.ts builds the service on one; an app mounted on it (http/mount.ts: the console) is built on another,
 * so that it answers exactly as it would inside the first.
 */
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify'
import type { DestinationStream } from 'pino'
import type { Config } from '../config.ts'
import { problemHandler } from './errors.ts'
import { restoreHead, routeHeadAsGet } from './head.ts'
import { hostGuard } from './host-guard.ts'
import { jsonBody, mediaTypeMessages } from './json-body.ts'
import { recordRequests } from './metrics.ts'
import { handedOff } from './mount.ts'
import { methodNotAllowed } from './not-found.ts'
import { requestContext } from './request-context.ts'
import { requestId } from './request-id.ts'
import { checkResponses } from './response-check.ts'
import type { RouteMetrics } from './route-metrics.ts'
import { securityHeaders } from './security-headers.ts'
import { buildSerializerOnFirstUse } from './serialization.ts'
import { textGuard } from './text-guard.ts'
import { trustProxyOption } from './trust-proxy.ts'
import { validatorCompiler } from './validation.ts'

export interface ShellOptions {
  config: Readonly<Config>
  /** Where log lines go (default: stdout); or the logger of the app this one is mounted on, to share it. */
  log: { stream?: DestinationStream | undefined } | { logger: FastifyBaseLogger }
  /** Where every answered request is counted (http/metrics.ts). */
  routes: RouteMetrics
  /** Check every JSON response against its route's declared schema (tests; see http/response-check.ts). */
  checkResponses?: boolean | undefined
  /** Answers a request the router refused before any route: a path that is not valid percent-encoding. */
  badPath(request: FastifyRequest, reply: FastifyReply, detail: string): void
  /** Called on the new app before anything else is added to it (http/mount.ts needs the first hook). */
  first?(app: FastifyInstance): void
}

/** How often Node looks for connections past HEADERS_/REQUEST_TIMEOUT_SECONDS: a limit holds to within this. */
const TIMEOUT_CHECK_MS = 1000

export async function shell(options: ShellOptions): Promise<FastifyInstance> {
  const { config } = options
  const app = Fastify({
    ...('logger' in options.log
      ? { loggerInstance: options.log.logger }
      : {
          logger: {
            level: config.LOG_LEVEL,
            redact: {
              paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
              censor: '[redacted]',
            },
            ...(options.log.stream ? { stream: options.log.stream } : {}),
          },
        }),
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
    frameworkErrors: (error, request, reply) =>
      options.badPath(request, reply, `The request path is not valid: ${error.message}.`),
  })
  options.first?.(app)
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
  if (options.checkResponses === true) checkResponses(app)
  // One line per request, after the response: who asked, what, how it went, how long it took. At a level
  // that leaves those lines out, the hook is not installed at all. A request handed to a mounted app is
  // that app's to log.
  if (['trace', 'debug', 'info'].includes(config.LOG_LEVEL))
    app.addHook('onResponse', async (request, reply) => {
      if (handedOff(request)) return
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
  recordRequests(app, options.routes)
  return app
}

/** A shell with `register` run on it, for an app to mount (http/mount.ts); closed again if `register` fails. */
export async function shellWith(
  options: ShellOptions,
  register: (app: FastifyInstance) => Promise<void>,
): Promise<FastifyInstance> {
  const app = await shell(options)
  try {
    await register(app)
  } catch (error) {
    await app.close().catch(() => undefined)
    throw error
  }
  return app
}
