/** /api/v3/vendors/ */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ItemEnvelope, listRoute } from '../http/list.ts'
import type { LookupCache } from '../lookups/cache.ts'
import { Vendor, VendorInput, VendorListQuery, VendorParams, VendorPatch } from './schema.ts'
import * as service from './service.ts'

export const vendorRoutes =
  (lookups: LookupCache): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ['vendors']
    const one = { 200: ItemEnvelope(Vendor) }
    listRoute(app, '/v3/vendors/', {
      summary: 'List vendors',
      tags,
      query: VendorListQuery,
      item: Vendor,
      list: ({ actor, db, query }) => service.listVendors(db, lookups, actor, query),
    })
    app.post(
      '/v3/vendors/',
      {
        config: { accessNeutral: true },
        schema: {
          summary: 'Create a vendor (superuser or nav_purchase)',
          tags,
          body: VendorInput,
          response: { 201: ItemEnvelope(Vendor) },
        },
      },
      async (request, reply) => {
        const vendor = await service.createVendor(request.db, lookups, request.actor, request.body)
        return reply
          .code(201)
          .header('location', `${request.linkBase}/api/v3/vendors/${vendor.id}/`)
          .send({ metadata: {}, data: vendor })
      },
    )
    app.get(
      '/v3/vendors/:id/',
      { schema: { summary: 'Get a vendor', tags, params: VendorParams, response: one } },
      async (request) => ({
        metadata: {},
        data: await service.getVendor(request.db, lookups, request.actor, request.params.id),
      }),
    )
    app.put(
      '/v3/vendors/:id/',
      {
        config: { accessNeutral: true },
        schema: {
          summary: 'Replace a vendor (omitted fields take their defaults)',
          tags,
          params: VendorParams,
          body: VendorInput,
          response: one,
        },
      },
      async (request) => ({
        metadata: {},
        data: await service.updateVendor(request.db, lookups, request.actor, request.params.id, request.body, true),
      }),
    )
    app.patch(
      '/v3/vendors/:id/',
      {
        config: { accessNeutral: true },
        schema: {
          summary: 'Change some fields of a vendor',
          tags,
          params: VendorParams,
          body: VendorPatch,
          response: one,
        },
      },
      async (request) => ({
        metadata: {},
        data: await service.updateVendor(request.db, lookups, request.actor, request.params.id, request.body, false),
      }),
    )
  }
