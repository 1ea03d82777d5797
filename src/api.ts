/** Everything under /api/: bearer authentication first, then the resources. */
import type { FastifyPluginAsync } from 'fastify'
import type { AppDeps } from './app.ts'
import { bearerAuth } from './http/auth.ts'
import { idempotency } from './http/idempotency.ts'
import { rateLimit, RateLimiter } from './http/rate-limit.ts'
import { locationRoutes } from './locations/routes.ts'
import { lookupRoutes } from './lookups.ts'
import { applicationRoutes } from './oauth/applications.routes.ts'
import { userRoutes } from './users/routes.ts'
import { vendorRoutes } from './vendors/routes.ts'

export const apiRoutes =
  (deps: AppDeps): FastifyPluginAsync =>
  async (app) => {
    bearerAuth(app, deps)
    rateLimit(app, new RateLimiter(deps.config.RATE_LIMIT_PER_MINUTE, deps.database.engine === 'postgres' ? deps.database.db : undefined, deps.config.RATE_LIMIT_SYNC_MS))
    idempotency(app, deps.database.db)
    await app.register(vendorRoutes(deps.database))
    await app.register(locationRoutes(deps.database))
    await app.register(lookupRoutes(deps.database))
    await app.register(userRoutes(deps.database))
    await app.register(applicationRoutes(deps))
  }
