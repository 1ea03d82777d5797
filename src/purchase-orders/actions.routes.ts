/** /api/v3/purchase-orders/{id}/…: issue, close, reopen, cancel, close a line, send, the PDF, the revisions. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import type { MailBase } from '../approvals/notify.service.ts'
import type { DB } from '../db/schema.ts'
import { Type } from 'typebox'
import { PagingQuery, pageOfAll } from '../core/list-query.ts'
import { itemRoute } from '../http/item-routes.ts'
import { listEnvelope, ListEnvelope } from '../http/list.ts'
import * as lifecycle from './lifecycle.service.ts'
import { orderPdf, sendOrder } from './send.service.ts'
import { SendInput } from './input.schema.ts'
import { LineParams, OrderParams, PurchaseOrder, Revision } from './schema.ts'
import * as service from './service.ts'

type App = Parameters<FastifyPluginAsyncTypebox>[0]
/** A transition; `base` is where an approval e-mail's link starts (issue uses it). */
type Transition = (db: Kysely<DB>, actor: Actor, id: number, base?: MailBase) => Promise<PurchaseOrder>

export function orderActionRoutes(app: App) {
  const tags = ['purchase-orders']
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
  ] as const satisfies readonly (readonly [string, string, string, Transition])[]
  for (const [action, operationId, summary, run] of transitions)
    itemRoute(app, 'POST', `/v3/purchase-orders/:id/${action}/`, {
      summary,
      operationId,
      tags,
      params: OrderParams,
      item: PurchaseOrder,
      run: ({ db, actor, params, mailBase }) => run(db, actor, params.id, mailBase),
    })
  itemRoute(app, 'POST', '/v3/purchase-orders/:id/lines/:line_id/close/', {
    summary: 'Close a line short: nothing more is received against it',
    operationId: 'closePurchaseOrderLine',
    tags,
    params: LineParams,
    item: PurchaseOrder,
    run: ({ db, actor, params }) => lifecycle.closeLine(db, actor, params.id, params.line_id),
  })
  itemRoute(app, 'POST', '/v3/purchase-orders/:id/send/', {
    summary: 'E-mail the order’s PDF to the vendor (or `to`) through the outbox; sets sent_at',
    operationId: 'sendPurchaseOrder',
    tags,
    params: OrderParams,
    body: SendInput,
    item: PurchaseOrder,
    run: ({ db, actor, params, body }) => sendOrder(db, actor, params.id, body ?? {}),
  })
  app.get(
    '/v3/purchase-orders/:id/pdf/',
    {
      schema: {
        summary: 'The order as a PDF (application/pdf)',
        operationId: 'getPurchaseOrderPdf',
        tags,
        params: OrderParams,
        produces: ['application/pdf'],
        // A string of bytes in the OpenAPI document; the handler sends a Buffer, which Fastify sends as it is.
        response: {
          200: Type.Unsafe<Buffer>({
            type: 'string',
            description: 'The PDF document.',
            contentMediaType: 'application/pdf',
          }),
        },
      },
    },
    async (request, reply) => {
      const { number, pdf } = await orderPdf(request.db, request.actor, request.params.id)
      return reply.type('application/pdf').header('content-disposition', `inline; filename="${number}.pdf"`).send(pdf)
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
        querystring: PagingQuery,
        response: { 200: ListEnvelope(Revision) },
      },
    },
    async (request) =>
      listEnvelope(
        request,
        pageOfAll(await service.listRevisions(request.db, request.actor, request.params.id), request.query),
      ),
  )
}
