/**
 * /api/v3/purchase-orders/ (list, create, get, replace), /api/v3/requests/{id}/purchase-orders/, and the
 * order's actions (actions.routes.ts) and /api/v3/procurement-settings/ (settings.routes.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { ItemEnvelope, listRoute } from '../http/list.ts'
import { orderActionRoutes } from './actions.routes.ts'
import { ordersFromRequest } from './from-request.service.ts'
import { FromRequestInput, OrderInput } from './input.schema.ts'
import { OrderListQuery, OrderParams, PurchaseOrder } from './schema.ts'
import * as service from './service.ts'
import { settingsRoutes } from './settings.routes.ts'
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
        request.mailBase,
      )
      return reply.header('etag', etagOf(order)).send({ metadata: {}, data: order })
    },
  )
  orderActionRoutes(app)
  settingsRoutes(app)
}
