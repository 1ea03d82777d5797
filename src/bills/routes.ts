/** /api/v3/bills/ */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ItemEnvelope, listRoute } from '../http/list.ts'
import { cancelBill, payBill, submitBill } from './lifecycle.service.ts'
import { Bill, BillInput, BillListQuery, BillParams, PayInput } from './schema.ts'
import * as service from './service.ts'

export const billRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['bills']
  const config = { accessNeutral: true }
  const item = { 200: ItemEnvelope(Bill) }
  listRoute(app, '/v3/bills/', {
    summary: 'List the bills you may see (accounts_payable, nav_purchase or superuser at their location)',
    tags,
    query: BillListQuery,
    item: Bill,
    list: ({ actor, db, query }) => service.listBills(db, actor, query),
  })
  app.post(
    '/v3/bills/',
    {
      config,
      schema: {
        summary: 'Enter a vendor bill as a draft, against an order or with free lines (accounts_payable)',
        operationId: 'createBill',
        tags,
        body: BillInput,
        response: { 201: ItemEnvelope(Bill) },
      },
    },
    async (request, reply) => {
      const bill = await service.createBill(request.db, request.actor, request.body)
      return reply
        .code(201)
        .header('location', `${request.linkBase}/api/v3/bills/${bill.id}/`)
        .send({ metadata: {}, data: bill })
    },
  )
  app.get(
    '/v3/bills/:id/',
    { schema: { summary: 'Get a bill', operationId: 'getBill', tags, params: BillParams, response: item } },
    async (request) => ({ metadata: {}, data: await service.getBill(request.db, request.actor, request.params.id) }),
  )
  app.put(
    '/v3/bills/:id/',
    {
      config,
      schema: {
        summary: 'Replace a draft bill',
        operationId: 'replaceBill',
        tags,
        params: BillParams,
        body: BillInput,
        response: item,
      },
    },
    async (request) => ({
      metadata: {},
      data: await service.putBill(request.db, request.actor, request.params.id, request.body),
    }),
  )
  const action = (name: string, summary: string, operationId: string, run: typeof submitBill) =>
    app.post(
      `/v3/bills/:id/${name}/`,
      { config, schema: { summary, operationId, tags, params: BillParams, response: item } },
      async (request) => ({
        metadata: {},
        data: await run(request.db, request.actor, request.params.id, request.mailBase),
      }),
    )
  action(
    'submit',
    'Submit a draft bill: matched against its order and receipts, then approved through the bill rules',
    'submitBill',
    submitBill,
  )
  action('cancel', 'Cancel a draft, pending or approved bill', 'cancelBill', cancelBill)
  app.post(
    '/v3/bills/:id/pay/',
    {
      config,
      schema: {
        summary: 'Mark an approved bill paid',
        operationId: 'payBill',
        tags,
        params: BillParams,
        body: PayInput,
        response: item,
      },
    },
    async (request) => ({
      metadata: {},
      data: await payBill(request.db, request.actor, request.params.id, request.body ?? {}),
    }),
  )
}
