/** Liveness and readiness for orchestrators and load balancers; no authentication, no tenant. */
import type { FastifyPluginAsync } from 'fastify'
import { sql } from 'kysely'
import { Type } from 'typebox'
import { serviceVersion } from '../core/version.ts'
import type { Database } from '../db/database.ts'

const Health = Type.Object({
  status: Type.String(),
  version: Type.String({ description: "The service's version (package.json), e.g. 0.1.0" }),
})

export const healthRoutes =
  (database: Database): FastifyPluginAsync =>
  async (app) => {
    app.get(
      '/healthz',
      {
        schema: {
          summary: 'The process is up',
          operationId: 'getHealth',
          tags: ['operations'],
          response: { 200: Health },
        },
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
      },
      async () => {
        await sql`select 1`.execute(database.db)
        return { status: 'ok', database: database.engine }
      },
    )
  }
