/** /api/v3/legal-entities/ (read-only). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Database } from '../db/database.ts'
import { ListEnvelope, sendList } from '../http/list.ts'
import { LegalEntity, LegalEntityListQuery } from './schema.ts'
import * as service from './service.ts'

export const legalEntityRoutes =
  (database: Database): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/v3/legal-entities/',
      {
        schema: {
          summary: 'List legal entities',
          tags: ['legal entities'],
          querystring: LegalEntityListQuery,
          response: { 200: ListEnvelope(LegalEntity) },
          produces: ['application/json', 'text/csv'],
        },
      },
      async (request, reply) =>
        sendList(reply, request.query.format, await service.listLegalEntities(database.db, request.caller, request.query, request), LegalEntity),
    )
  }
