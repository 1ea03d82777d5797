/** /api/v3/receipts/ */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { collectionRoutes, itemRoute } from '../http/item-routes.ts'
import { Receipt, ReceiptInput, ReceiptListQuery, ReceiptParams } from './schema.ts'
import * as service from './service.ts'

export const receiptRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['receipts']
  const item = Receipt
  collectionRoutes(app, '/v3/receipts/', {
    tags,
    item,
    query: ReceiptListQuery,
    params: ReceiptParams,
    body: ReceiptInput,
    list: {
      summary: 'List the receipts and returns you may see',
      run: ({ actor, db, query }) => service.listReceipts(db, actor, query),
    },
    create: {
      summary: 'Post a receipt or a return against an issued order (nav_receive at its location)',
      operationId: 'createReceipt',
      run: ({ db, actor, body }) => service.createReceipt(db, actor, body),
    },
    get: {
      summary: 'Get a receipt',
      operationId: 'getReceipt',
      run: ({ db, actor, params }) => service.getReceipt(db, actor, params.id),
    },
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
