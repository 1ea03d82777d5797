/** /api/v3/payment-runs/ */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { collectionRoutes, itemRoute } from '../http/item-routes.ts'
import { runFile } from './file.service.ts'
import { cancelRun, confirmRun, submitRun } from './lifecycle.service.ts'
import { ConfirmInput, PaymentRun, PaymentRunInput, PaymentRunListQuery, PaymentRunParams } from './schema.ts'
import * as service from './service.ts'

export const paymentRunRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['payment runs']
  const item = PaymentRun
  const params = PaymentRunParams
  collectionRoutes(app, '/v3/payment-runs/', {
    tags,
    item,
    query: PaymentRunListQuery,
    params,
    body: PaymentRunInput,
    list: {
      summary: 'List payment runs (accounts_payable sees every run; approvers the runs they decide)',
      run: ({ actor, db, query }) => service.listRuns(db, actor, query),
    },
    create: {
      summary: 'Make a payment run of approved bills and payment requests (accounts_payable at every item’s location)',
      operationId: 'createPaymentRun',
      run: ({ db, actor, body }) => service.createRun(db, actor, body),
    },
    get: {
      summary: 'Get a payment run',
      operationId: 'getPaymentRun',
      run: ({ db, actor, params }) => service.getRun(db, actor, params.id),
    },
  })
  itemRoute(app, 'PUT', '/v3/payment-runs/:id/', {
    summary: 'Replace a draft payment run',
    operationId: 'replacePaymentRun',
    tags,
    params,
    body: PaymentRunInput,
    item,
    run: ({ db, actor, params, body }) => service.putRun(db, actor, params.id, body),
  })
  itemRoute(app, 'POST', '/v3/payment-runs/:id/submit/', {
    summary: 'Submit a draft payment run for approval (the payment_run rules)',
    operationId: 'submitPaymentRun',
    tags,
    params,
    item,
    run: ({ db, actor, params, mailBase }) => submitRun(db, actor, params.id, mailBase),
  })
  itemRoute(app, 'POST', '/v3/payment-runs/:id/cancel/', {
    summary: 'Cancel a draft, pending or approved payment run; its documents are free again',
    operationId: 'cancelPaymentRun',
    tags,
    params,
    item,
    run: ({ db, actor, params }) => cancelRun(db, actor, params.id),
  })
  itemRoute(app, 'POST', '/v3/payment-runs/:id/confirm/', {
    summary: 'Confirm that the bank executed the run: every item is marked paid in one transaction',
    operationId: 'confirmPaymentRun',
    tags,
    params,
    body: ConfirmInput,
    item,
    run: ({ db, actor, params, body }) => confirmRun(db, actor, params.id, body ?? {}),
  })
  app.get(
    '/v3/payment-runs/:id/file',
    {
      schema: {
        summary:
          'The run as an ISO 20022 pain.001.001.03 credit transfer file for the bank (approved or confirmed runs)',
        operationId: 'getPaymentRunFile',
        tags,
        params,
        produces: ['application/xml'],
        response: {
          200: Type.Unsafe<string>({
            type: 'string',
            description: 'The pain.001.001.03 XML document.',
            contentMediaType: 'application/xml',
          }),
        },
      },
    },
    async (request, reply) => {
      const { number, xml } = await runFile(request.db, request.actor, request.params.id)
      return reply
        .type('application/xml; charset=utf-8')
        .header('content-disposition', `attachment; filename="${number}.xml"`)
        .send(xml)
    },
  )
}
