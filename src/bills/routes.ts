/** /api/v3/bills/ */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { collectionRoutes, itemRoute } from '../http/item-routes.ts'
import { cancelBill, payBill, submitBill } from './lifecycle.service.ts'
import { Bill, BillInput, BillListQuery, BillParams, PayInput } from './schema.ts'
import * as service from './service.ts'

export const billRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['bills']
  const item = Bill
  const params = BillParams
  collectionRoutes(app, '/v3/bills/', {
    tags,
    item,
    query: BillListQuery,
    params,
    body: BillInput,
    list: {
      summary: 'List the bills you may see (accounts_payable, nav_purchase or superuser at their location)',
      run: ({ actor, db, query }) => service.listBills(db, actor, query),
    },
    create: {
      summary: 'Enter a vendor bill as a draft, against an order or with free lines (accounts_payable)',
      operationId: 'createBill',
      run: ({ db, actor, body }) => service.createBill(db, actor, body),
    },
    get: {
      summary: 'Get a bill',
      operationId: 'getBill',
      run: ({ db, actor, params }) => service.getBill(db, actor, params.id),
    },
  })
  itemRoute(app, 'PUT', '/v3/bills/:id/', {
    summary: 'Replace a draft bill',
    operationId: 'replaceBill',
    tags,
    params,
    body: BillInput,
    item,
    run: ({ db, actor, params, body }) => service.putBill(db, actor, params.id, body),
  })
  itemRoute(app, 'POST', '/v3/bills/:id/submit/', {
    summary: 'Submit a draft bill: matched against its order and receipts, then approved through the bill rules',
    operationId: 'submitBill',
    tags,
    params,
    item,
    run: ({ db, actor, params, mailBase }) => submitBill(db, actor, params.id, mailBase),
  })
  itemRoute(app, 'POST', '/v3/bills/:id/cancel/', {
    summary: 'Cancel a draft, pending or approved bill',
    operationId: 'cancelBill',
    tags,
    params,
    item,
    run: ({ db, actor, params }) => cancelBill(db, actor, params.id),
  })
  itemRoute(app, 'POST', '/v3/bills/:id/pay/', {
    summary: 'Mark an approved bill paid',
    operationId: 'payBill',
    tags,
    params,
    body: PayInput,
    item,
    run: ({ db, actor, params, body }) => payBill(db, actor, params.id, body ?? {}),
  })
}
