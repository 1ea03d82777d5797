/** /api/v3/purchase-orders/, /api/v3/requests/{id}/purchase-orders/ and /api/v3/procurement-settings/ */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { ItemEnvelope, listRoute } from '../http/list.ts'
import { ordersFromRequest } from './from-request.service.ts'
import * as lifecycle from './lifecycle.service.ts'
import { orderPdf, sendOrder } from './send.service.ts'
import {
  FromRequestInput,
  LineParams,
  OrderInput,
  OrderListQuery,
  OrderParams,
  ProcurementSettings,
  PurchaseOrder,
  Revision,
  SendInput,
  SettingsInput,
} from './schema.ts'
import * as service from './service.ts'
import { getSettings, putSettings } from './settings.service.ts'
import { etagOf } from './view.service.ts'

const IfMatch = Type.Object({
  'if-match': Type.Optional(
    Type.String({
      maxLength: 1000,
      description: 'The ETag (the version) from a GET; required to revise an issued order (428 without, 412 stale).',
      examples: ['"1"'],
    }),
  ),
})

export const purchaseOrderRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['purchase-orders']
  const one = { 200: ItemEnvelope(PurchaseOrder) }
  const config = { accessNeutral: true }
  listRoute(app, '/v3/purchase-orders/', {
    summary: 'List the purchase orders you may see (search: number and vendor name)',
    tags,
    query: OrderListQuery,
    item: PurchaseOrder,
    list: ({ actor, db, query }) => service.listOrders(db, actor, query),
  })
  app.post(
    '/v3/purchase-orders/',
    {
      config,
      schema: {
        summary: 'Create a draft purchase order by hand (nav_purchase at its location)',
        operationId: 'createPurchaseOrder',
        tags,
        body: OrderInput,
        response: { 201: ItemEnvelope(PurchaseOrder) },
      },
    },
    async (request, reply) => {
      const order = await service.createOrder(request.db, request.actor, request.body)
      return reply
        .code(201)
        .header('location', `${request.linkBase}/api/v3/purchase-orders/${order.id}/`)
        .send({ metadata: {}, data: order })
    },
  )
  app.post(
    '/v3/requests/:id/purchase-orders/',
    {
      config,
      schema: {
        summary: 'Make draft orders from an approved request: one per vendor, each request line once',
        operationId: 'createPurchaseOrdersFromRequest',
        tags,
        params: OrderParams,
        body: FromRequestInput,
        response: { 201: Type.Object({ metadata: Type.Object({}), data: Type.Array(PurchaseOrder) }) },
      },
    },
    async (request, reply) => {
      const orders = await ordersFromRequest(request.db, request.actor, request.params.id, request.body ?? {})
      return reply.code(201).send({ metadata: {}, data: orders })
    },
  )
  app.get(
    '/v3/purchase-orders/:id/',
    {
      schema: {
        summary: 'Get a purchase order (ETag: its version)',
        operationId: 'getPurchaseOrder',
        tags,
        params: OrderParams,
        response: one,
      },
    },
    async (request, reply) => {
      const order = await service.getOrder(request.db, request.actor, request.params.id)
      return reply.header('etag', etagOf(order)).send({ metadata: {}, data: order })
    },
  )
  app.put(
    '/v3/purchase-orders/:id/',
    {
      config,
      schema: {
        summary: 'Replace a draft, or revise an issued order (If-Match; beyond the tolerance it needs approval)',
        operationId: 'replacePurchaseOrder',
        tags,
        params: OrderParams,
        headers: IfMatch,
        body: OrderInput,
        response: one,
      },
    },
    async (request, reply) => {
      const order = await service.putOrder(
        request.db,
        request.actor,
        request.params.id,
        request.body,
        request.headers['if-match'],
      )
      return reply.header('etag', etagOf(order)).send({ metadata: {}, data: order })
    },
  )
  const transitions = [
    [
      'issue',
      'issuePurchaseOrder',
      'Issue a draft (through the purchase_order rules when it needs approval)',
      lifecycle.issueOrder,
    ],
    ['close', 'closePurchaseOrder', 'Close an issued order', lifecycle.closeOrder],
    ['reopen', 'reopenPurchaseOrder', 'Reopen a closed order', lifecycle.reopenOrder],
    ['cancel', 'cancelPurchaseOrder', 'Cancel a draft, pending or untouched issued order', lifecycle.cancelOrder],
  ] as const
  for (const [action, operationId, summary, run] of transitions)
    app.post(
      `/v3/purchase-orders/:id/${action}/`,
      { config, schema: { summary, operationId, tags, params: OrderParams, response: one } },
      async (request) => ({ metadata: {}, data: await run(request.db, request.actor, request.params.id) }),
    )
  app.post(
    '/v3/purchase-orders/:id/lines/:line_id/close/',
    {
      config,
      schema: {
        summary: 'Close a line short: nothing more is received against it',
        operationId: 'closePurchaseOrderLine',
        tags,
        params: LineParams,
        response: one,
      },
    },
    async (request) => ({
      metadata: {},
      data: await lifecycle.closeLine(request.db, request.actor, request.params.id, request.params.line_id),
    }),
  )
  app.post(
    '/v3/purchase-orders/:id/send/',
    {
      config,
      schema: {
        summary: 'E-mail the order’s PDF to the vendor (or `to`) through the outbox; sets sent_at',
        operationId: 'sendPurchaseOrder',
        tags,
        params: OrderParams,
        body: SendInput,
        response: one,
      },
    },
    async (request) => ({
      metadata: {},
      data: await sendOrder(request.db, request.actor, request.params.id, request.body ?? {}),
    }),
  )
  app.get(
    '/v3/purchase-orders/:id/pdf/',
    {
      schema: {
        summary: 'The order as a PDF (application/pdf)',
        operationId: 'getPurchaseOrderPdf',
        tags,
        params: OrderParams,
        produces: ['application/pdf'],
        response: { 200: Type.String({ description: 'The PDF document.', contentMediaType: 'application/pdf' }) },
      },
    },
    async (request, reply) => {
      const { number, pdf } = await orderPdf(request.db, request.actor, request.params.id)
      return reply
        .type('application/pdf')
        .header('content-disposition', `inline; filename="${number}.pdf"`)
        .send(pdf as unknown as string) // bytes: Fastify sends a Buffer as it is, without serializing
    },
  )
  app.get(
    '/v3/purchase-orders/:id/revisions/',
    {
      schema: {
        summary: 'The revisions of an order, oldest first',
        operationId: 'listPurchaseOrderRevisions',
        tags,
        params: OrderParams,
        response: { 200: Type.Object({ metadata: Type.Object({}), data: Type.Array(Revision) }) },
      },
    },
    async (request) => ({
      metadata: {},
      data: await service.listRevisions(request.db, request.actor, request.params.id),
    }),
  )
  app.get(
    '/v3/procurement-settings/',
    {
      schema: {
        summary: 'The tolerances and match mode (superuser or nav_setting)',
        operationId: 'getProcurementSettings',
        tags: ['procurement-settings'],
        response: { 200: ItemEnvelope(ProcurementSettings) },
      },
    },
    async (request) => ({ metadata: {}, data: await getSettings(request.db, request.actor) }),
  )
  app.put(
    '/v3/procurement-settings/',
    {
      config,
      schema: {
        summary: 'Change the tolerances and match mode (superuser or nav_setting); fields left out stay',
        operationId: 'replaceProcurementSettings',
        tags: ['procurement-settings'],
        body: SettingsInput,
        response: { 200: ItemEnvelope(ProcurementSettings) },
      },
    },
    async (request) => ({ metadata: {}, data: await putSettings(request.db, request.actor, request.body) }),
  )
}
