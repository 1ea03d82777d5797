/** /api/v3/receipts/ */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { createRoute, itemRoute } from '../http/item-routes.ts'
import { listRoute } from '../http/list.ts'
import { Receipt, ReceiptInput, ReceiptListQuery, ReceiptParams } from './schema.ts'
import * as service from './service.ts'

export const receiptRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['receipts']
  const item = Receipt
  listRoute(app, '/v3/receipts/', {
    summary: 'List the receipts and returns you may see',
    tags,
    query: ReceiptListQuery,
    item,
    list: ({ actor, db, query }) => service.listReceipts(db, actor, query),
  })
  createRoute(app, '/v3/receipts/', {
    summary: 'Post a receipt or a return against an issued order (nav_receive at its location)',
    operationId: 'createReceipt',
    tags,
    body: ReceiptInput,
    item,
    create: ({ db, actor, body }) => service.createReceipt(db, actor, body),
  })
  itemRoute(app, 'GET', '/v3/receipts/:id/', {
    summary: 'Get a receipt',
    operationId: 'getReceipt',
    tags,
    params: ReceiptParams,
    item,
    run: ({ db, actor, params }) => service.getReceipt(db, actor, params.id),
  })
  itemRoute(app, 'POST', '/v3/receipts/:id/void/', {
    summary: 'Void a receipt: its quantities are reversed on the order',
    operationId: 'voidReceipt',
    tags,
    params: ReceiptParams,
    item,
    run: ({ db, actor, params }) => service.voidReceipt(db, actor, params.id),
  })
}
