/** /api/v2/currencies/ (read-only, as upstream). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Database } from '../db/database.ts'
import { ListEnvelope, sendList } from '../http/list.ts'
import { Currency, CurrencyListQuery } from './schema.ts'
import * as service from './service.ts'

export const currencyRoutes =
  (database: Database): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/v2/currencies/',
      {
        schema: {
          summary: 'List currencies',
          tags: ['currencies'],
          querystring: CurrencyListQuery,
          response: { 200: ListEnvelope(Currency) },
          produces: ['application/json', 'text/csv'],
        },
      },
      async (request, reply) =>
        sendList(reply, request.query.format, await service.listCurrencies(database.db, request.caller, request.query, request), Currency),
    )
  }
