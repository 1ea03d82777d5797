/** The read-only look-up lists (currencies, legal entities, departments, roles), registered as one plugin under /api. */
import type { FastifyPluginAsync } from 'fastify'
import { currencyRoutes } from './currencies/routes.ts'
import type { Database } from './db/database.ts'
import { departmentRoutes } from './departments/routes.ts'
import { legalEntityRoutes } from './legal-entities/routes.ts'
import { roleRoutes } from './roles/routes.ts'

export const lookupRoutes =
  (database: Database): FastifyPluginAsync =>
  async (app) => {
    await app.register(currencyRoutes(database))
    await app.register(legalEntityRoutes(database))
    await app.register(departmentRoutes(database))
    await app.register(roleRoutes(database))
  }
