/**
 * buildApp: the whole HTTP service as a Fastify instance, ready for `listen` (server.ts) or `inject` (tests).
 * Nothing here opens sockets or databases; the caller hands them in.
 */
import { registerAllDocuments } from './documents.ts'
import type { FastifyInstance } from 'fastify'
import type { DestinationStream } from 'pino'
import type { Config } from './config.ts'
import type { Database } from './db/database.ts'
import type { Subscribers } from './db/listener.ts'
import { healthRoutes } from './health/routes.ts'
import { registerOpenApi } from './http/openapi.ts'
import { metrics } from './http/metrics.ts'
import { sendProblem } from './http/errors.ts'
import { badRequest } from './core/problem.ts'
import { fenceWrites, subscribeToChanges } from './http/changes.ts'
import { isUnder, mount, type Mount } from './http/mount.ts'
import { listeningPort } from './http/public-url.ts'
import { RouteMetrics } from './http/route-metrics.ts'
import { shell, shellWith } from './http/shell.ts'
import type { ServerKeys } from './keys.ts'
import { apiRoutes } from './api.ts'
import { invitationRoutes } from './invitations/routes.ts'
import { LOOKUPS_CHANNEL, LookupCache } from './lookups/cache.ts'
import { ACCESS_CHANNEL, LiveAccessCache } from './oauth/access-cache.ts'
import { oauthRoutes } from './oauth/routes.ts'
import { registerWebhookMetrics } from './webhooks/metrics.service.ts'
import { scimRequestError, scimRoutes } from './scim/routes.ts'
import { buildConsoleApp, type ConsoleAppDeps } from './console/app.ts'

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

/** Where the console and SCIM are served: apps of their own, mounted here and built when first needed (http/mount.ts). */
const CONSOLE = '/console'
const SCIM = '/scim/v2'

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps
  registerAllDocuments()
  const routes = new RouteMetrics()
  const access = new LiveAccessCache()
  const lookups = new LookupCache()
  let consoleMount!: Mount
  let scimMount!: Mount
  const app = await shell({
    config,
    log: { stream: deps.logStream },
    routes,
    checkResponses: deps.checkResponses,
    badPath: (request, reply, detail) => {
      if (isUnder(CONSOLE, request.url)) consoleMount.handOff(request, reply)
      else if (isUnder(SCIM, request.url)) scimMount.handOff(request, reply)
      else void sendProblem(reply, badRequest(detail))
    },
    // Built with their first request (or `prepareMounts`): a start registers none of their routes.
    first: (app) => {
      // Read when they are built: `changes` is made below.
      const shared = () => ({
        ...deps,
        lookups,
        logger: app.log,
        routes,
        changes,
        listeningPort: () => listeningPort(app.server),
      })
      consoleMount = mount(app, CONSOLE, () => buildConsoleApp(shared()))
      scimMount = mount(app, SCIM, () => buildScimApp(shared()))
    },
  })
  // The caches the database's notifications keep true; subscribed before the routes, so that the fence's
  // hook answers every write after its change reached them (http/changes.ts).
  const changes = subscribeToChanges(app, deps.database, {
    [ACCESS_CHANNEL]: access.entries,
    [LOOKUPS_CHANNEL]: lookups.entries,
    ...deps.subscribers,
  })
  fenceWrites(app, changes)
  await registerOpenApi(app, config.API_AUDIENCE)
  metrics(app, routes, deps.clusterWorker === true ? { workers: config.WORKERS } : undefined, (registry) =>
    registerWebhookMetrics(registry, deps.database.db),
  )
  await app.register(healthRoutes(deps.database, config))
  await app.register(oauthRoutes(deps))
  await app.register(invitationRoutes(deps.database, config))
  await app.register(apiRoutes({ ...deps, access, lookups }), { prefix: '/api' })
  return app
}

/** SCIM for the tenants' identity providers, as an app of its own with the service's edges (http/shell.ts). */
// What it shares with the service's app is what the console shares, but for the look-ups.
const buildScimApp = (deps: Omit<ConsoleAppDeps, 'lookups'>): Promise<FastifyInstance> =>
  shellWith(
    {
      config: deps.config,
      log: { logger: deps.logger },
      routes: deps.routes,
      checkResponses: deps.checkResponses,
      badPath: (_request, reply, detail) => void scimRequestError(reply, detail),
    },
    async (app) => {
      fenceWrites(app, deps.changes)
      await app.register(scimRoutes(deps), { prefix: SCIM })
    },
  )
