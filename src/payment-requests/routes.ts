/** /api/v3/payment-requests/ */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { collectionRoutes, itemRoute } from '../http/item-routes.ts'
import { cancelPaymentRequest, submitPaymentRequest } from './lifecycle.service.ts'
import { PaymentRequest, PaymentRequestInput, PaymentRequestListQuery, PaymentRequestParams } from './schema.ts'
import * as service from './service.ts'

export const paymentRequestRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['payment requests']
  const item = PaymentRequest
  const params = PaymentRequestParams
  collectionRoutes(app, '/v3/payment-requests/', {
    tags,
    item,
    query: PaymentRequestListQuery,
    params,
    body: PaymentRequestInput,
    list: {
      summary: 'List the payment requests you may see',
      run: ({ actor, db, query }) => service.listPaymentRequests(db, actor, query),
    },
    create: {
      summary: 'Make a payment request (a payment without an order) as a draft (nav_request at its location)',
      operationId: 'createPaymentRequest',
      run: ({ db, actor, body }) => service.createPaymentRequest(db, actor, body),
    },
    get: {
      summary: 'Get a payment request',
      operationId: 'getPaymentRequest',
      run: ({ db, actor, params }) => service.getPaymentRequest(db, actor, params.id),
    },
  })
  itemRoute(app, 'PUT', '/v3/payment-requests/:id/', {
    summary: 'Replace a draft payment request',
    operationId: 'replacePaymentRequest',
    tags,
    params,
    body: PaymentRequestInput,
    item,
    run: ({ db, actor, params, body }) => service.putPaymentRequest(db, actor, params.id, body),
  })
  itemRoute(app, 'POST', '/v3/payment-requests/:id/submit/', {
    summary: 'Submit a draft payment request for approval (the payment_request rules)',
    operationId: 'submitPaymentRequest',
    tags,
    params,
    item,
    run: ({ db, actor, params, mailBase }) => submitPaymentRequest(db, actor, params.id, mailBase),
  })
  itemRoute(app, 'POST', '/v3/payment-requests/:id/cancel/', {
    summary: 'Cancel a draft, pending or approved payment request',
    operationId: 'cancelPaymentRequest',
    tags,
    params,
    item,
    run: ({ db, actor, params }) => cancelPaymentRequest(db, actor, params.id),
  })
}
