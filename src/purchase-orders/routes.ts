/**
 * /api/v3/purchase-orders/ (list, create, get, replace), /api/v3/requests/{id}/purchase-orders/, and the
 * order's actions (actions.routes.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { FastifyReply } from 'fastify'
import { createRoute, itemRoute } from '../http/item-routes.ts'
import { listRoute } from '../http/list.ts'
import { orderActionRoutes } from './actions.routes.ts'
import { ordersFromRequest } from './from-request.service.ts'
import { FromRequestInput, OrderInput } from './input.schema.ts'
import { OrderListQuery, OrderParams, PurchaseOrder } from './schema.ts'
import * as service from './service.ts'
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

/** Sets the order's version as the response's ETag; returns the order. */
function withEtag(reply: FastifyReply, order: PurchaseOrder): PurchaseOrder {
  reply.header('etag', etagOf(order))
  return order
}

export const purchaseOrderRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['purchase-orders']
  const config = { accessNeutral: true }
  listRoute(app, '/v3/purchase-orders/', {
    summary: 'List the purchase orders you may see (search: number and vendor name)',
    tags,
    query: OrderListQuery,
    item: PurchaseOrder,
    list: ({ actor, db, query }) => service.listOrders(db, actor, query),
  })
  createRoute(app, '/v3/purchase-orders/', {
    summary: 'Create a draft purchase order by hand (nav_purchase at its location)',
    operationId: 'createPurchaseOrder',
    tags,
    body: OrderInput,
    item: PurchaseOrder,
    create: ({ db, actor, body }) => service.createOrder(db, actor, body),
  })
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
  // Both answer with the order's version as its ETag (the If-Match of a revision).
  itemRoute(app, 'GET', '/v3/purchase-orders/:id/', {
    summary: 'Get a purchase order (ETag: its version)',
    operationId: 'getPurchaseOrder',
    tags,
    params: OrderParams,
    item: PurchaseOrder,
    run: async ({ db, actor, params, reply }) => withEtag(reply, await service.getOrder(db, actor, params.id)),
  })
  itemRoute(app, 'PUT', '/v3/purchase-orders/:id/', {
    summary: 'Replace a draft, or revise an issued order (If-Match; beyond the tolerance it needs approval)',
    operationId: 'replacePurchaseOrder',
    tags,
    params: OrderParams,
    headers: IfMatch,
    body: OrderInput,
    item: PurchaseOrder,
    run: async ({ db, actor, params, body, headers, mailBase, reply }) =>
      withEtag(reply, await service.putOrder(db, actor, params.id, body, headers['if-match'], mailBase)),
  })
  orderActionRoutes(app)
}
