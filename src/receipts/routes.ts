/** /api/v3/receipts/ */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ItemEnvelope, listRoute } from '../http/list.ts'
import { Receipt, ReceiptInput, ReceiptListQuery, ReceiptParams } from './schema.ts'
import * as service from './service.ts'

export const receiptRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['receipts']
  const config = { accessNeutral: true }
  listRoute(app, '/v3/receipts/', {
    summary: 'List the receipts and returns you may see',
    tags,
    query: ReceiptListQuery,
    item: Receipt,
    list: ({ actor, db, query }) => service.listReceipts(db, actor, query),
  })
  app.post(
    '/v3/receipts/',
    {
      config,
      schema: {
        summary: 'Post a receipt or a return against an issued order (nav_receive at its location)',
        operationId: 'createReceipt',
        tags,
        body: ReceiptInput,
        response: { 201: ItemEnvelope(Receipt) },
      },
    },
    async (request, reply) => {
      const receipt = await service.createReceipt(request.db, request.actor, request.body)
      return reply
        .code(201)
        .header('location', `${request.linkBase}/api/v3/receipts/${receipt.id}/`)
        .send({ metadata: {}, data: receipt })
    },
  )
  app.get(
    '/v3/receipts/:id/',
    {
      schema: {
        summary: 'Get a receipt',
        operationId: 'getReceipt',
        tags,
        params: ReceiptParams,
        response: { 200: ItemEnvelope(Receipt) },
      },
    },
    async (request) => ({ metadata: {}, data: await service.getReceipt(request.db, request.actor, request.params.id) }),
  )
  app.post(
    '/v3/receipts/:id/void/',
    {
      config,
      schema: {
        summary: 'Void a receipt: its quantities are reversed on the order',
        operationId: 'voidReceipt',
        tags,
        params: ReceiptParams,
        response: { 200: ItemEnvelope(Receipt) },
      },
    },
    async (request) => ({
      metadata: {},
      data: await service.voidReceipt(request.db, request.actor, request.params.id),
    }),
  )
}
