/** /api/v3/vendors/ */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Database } from '../db/database.ts'
import { ItemEnvelope, ListEnvelope, sendList } from '../http/list.ts'
import { Vendor, VendorInput, VendorListQuery, VendorParams, VendorPatch } from './schema.ts'
import * as service from './service.ts'

export const vendorRoutes =
  (database: Database): FastifyPluginAsyncTypebox =>
  async (app) => {
    const db = database.db
    const tags = ['vendors']
    const one = { 200: ItemEnvelope(Vendor) }
    app.get(
      '/v3/vendors/',
      { schema: { summary: 'List vendors', tags, querystring: VendorListQuery, response: { 200: ListEnvelope(Vendor) }, produces: ['application/json', 'text/csv'] } },
      async (request, reply) => sendList(reply, request.query.format, await service.listVendors(db, request.caller, request.query, request), Vendor),
    )
    app.post(
      '/v3/vendors/',
      { schema: { summary: 'Create a vendor (superuser or nav_purchase)', tags, body: VendorInput, response: { 201: ItemEnvelope(Vendor) } } },
      async (request, reply) => {
        const vendor = await service.createVendor(db, request.caller, request.body)
        return reply.code(201).header('location', `/api/v3/vendors/${vendor.id}/`).send({ metadata: {}, data: vendor })
      },
    )
    app.get('/v3/vendors/:id/', { schema: { summary: 'Get a vendor', tags, params: VendorParams, response: one } }, async (request) => ({
      metadata: {},
      data: await service.getVendor(db, request.caller, request.params.id),
    }))
    app.put(
      '/v3/vendors/:id/',
      { schema: { summary: 'Replace a vendor (omitted fields take their defaults)', tags, params: VendorParams, body: VendorInput, response: one } },
      async (request) => ({ metadata: {}, data: await service.updateVendor(db, request.caller, request.params.id, request.body, true) }),
    )
    app.patch(
      '/v3/vendors/:id/',
      { schema: { summary: 'Change some fields of a vendor', tags, params: VendorParams, body: VendorPatch, response: one } },
      async (request) => ({ metadata: {}, data: await service.updateVendor(db, request.caller, request.params.id, request.body, false) }),
    )
  }
