/** /api/v3/vendors/ */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Database } from '../db/database.ts'
import { ListEnvelope, sendList } from '../http/list.ts'
import { Vendor, VendorListQuery } from './schema.ts'
import * as service from './service.ts'

export const vendorRoutes =
  (database: Database): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/v3/vendors/',
      {
        schema: {
          summary: 'List vendors',
          tags: ['vendors'],
          querystring: VendorListQuery,
          response: { 200: ListEnvelope(Vendor) },
          produces: ['application/json', 'text/csv'],
        },
      },
      async (request, reply) =>
        sendList(reply, request.query.format, await service.listVendors(database.db, request.caller, request.query, request)),
    )
  }
