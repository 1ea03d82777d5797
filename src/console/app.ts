/**
 * The console as an app of its own, mounted at /console on the service's (app.ts, http/mount.ts) and built
 * when first needed: the same edges as the service (http/shell.ts), its log, its route metrics and its
 * database subscription, so a page answers as it would inside the service's app.
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import type { Config } from '../config.ts'
import type { Database } from '../db/database.ts'
import type { Subscription } from '../db/listener.ts'
import { fenceWrites } from '../http/changes.ts'
import type { RouteMetrics } from '../http/route-metrics.ts'
import { shellWith } from '../http/shell.ts'
import type { ServerKeys } from '../keys.ts'
import type { LookupCache } from '../lookups/cache.ts'
import { consoleRequestError, consoleRoutes } from './routes.ts'

export interface ConsoleAppDeps {
  config: Readonly<Config>
  database: Database
  keys: ServerKeys
  lookups: LookupCache
  /** The service app's: one log for both. */
  logger: FastifyBaseLogger
  /** The service app's: /metrics counts the console's requests with the rest. */
  routes: RouteMetrics
  /** The port the service app listens on, if it listens (links and redirects are built on it). */
  listeningPort(): number | undefined
  /** The service app's subscription to the database's changes: console writes wait for its fence too. */
  changes: Promise<Subscription>
  checkResponses?: boolean | undefined
}

export const buildConsoleApp = (deps: ConsoleAppDeps): Promise<FastifyInstance> =>
  shellWith(
    {
      config: deps.config,
      log: { logger: deps.logger },
      routes: deps.routes,
      checkResponses: deps.checkResponses,
      badPath: (_request, reply, detail) => void consoleRequestError(reply, detail),
    },
    async (app) => {
      fenceWrites(app, deps.changes)
      await app.register(consoleRoutes(deps), { prefix: '/console' })
    },
  )
