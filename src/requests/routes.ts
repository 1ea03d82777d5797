/** /api/v3/requests/ */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ItemEnvelope, listRoute } from '../http/list.ts'
import { PurchaseRequest, RequestInput, RequestListQuery, RequestParams, RequestPatch } from './schema.ts'
import * as service from './service.ts'

export const requestRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['requests']
  const one = { 200: ItemEnvelope(PurchaseRequest) }
  // Request writes change nothing a cache holds.
  const config = { accessNeutral: true }
  listRoute(app, '/v3/requests/', {
    summary: 'List the purchase requests you may see',
    tags,
    query: RequestListQuery,
    item: PurchaseRequest,
    list: ({ actor, db, query }) => service.listRequests(db, actor, query),
  })
  app.post(
    '/v3/requests/',
    {
      config,
      schema: {
        summary: 'Create a draft purchase request (nav_request at its location)',
        operationId: 'createRequest',
        tags,
        body: RequestInput,
        response: { 201: ItemEnvelope(PurchaseRequest) },
      },
    },
    async (request, reply) => {
      const created = await service.createRequest(request.db, request.actor, request.body)
      return reply
        .code(201)
        .header('location', `${request.linkBase}/api/v3/requests/${created.id}/`)
        .send({ metadata: {}, data: created })
    },
  )
  app.get(
    '/v3/requests/:id/',
    {
      schema: {
        summary: 'Get a purchase request',
        operationId: 'getRequest',
        tags,
        params: RequestParams,
        response: one,
      },
    },
    async (request) => ({ metadata: {}, data: await service.getRequest(request.db, request.actor, request.params.id) }),
  )
  app.patch(
    '/v3/requests/:id/',
    {
      config,
      schema: {
        summary: 'Change a draft request (the requester; lines, when sent, replace all lines)',
        operationId: 'updateRequest',
        tags,
        params: RequestParams,
        body: RequestPatch,
        response: one,
      },
    },
    async (request) => ({
      metadata: {},
      data: await service.updateRequest(request.db, request.actor, request.params.id, request.body),
    }),
  )
  app.post(
    '/v3/requests/:id/submit/',
    {
      config,
      schema: {
        summary: 'Submit a draft for approval (routes it through the approval rules)',
        operationId: 'submitRequest',
        tags,
        params: RequestParams,
        response: one,
      },
    },
    async (request) => ({
      metadata: {},
      data: await service.submitRequest(request.db, request.actor, request.params.id, request.mailBase),
    }),
  )
  app.post(
    '/v3/requests/:id/cancel/',
    {
      config,
      schema: {
        summary: 'Cancel a draft or pending request (the requester, or a superuser)',
        operationId: 'cancelRequest',
        tags,
        params: RequestParams,
        response: one,
      },
    },
    async (request) => ({
      metadata: {},
      data: await service.cancelRequest(request.db, request.actor, request.params.id),
    }),
  )
}
