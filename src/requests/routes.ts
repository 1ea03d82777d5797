/** /api/v3/requests/ */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ChainPreview, previewRequestChain } from '../approvals/chain-preview.service.ts'
import { collectionRoutes, itemRoute } from '../http/item-routes.ts'
import { PurchaseRequest, RequestInput, RequestListQuery, RequestParams, RequestPatch } from './schema.ts'
import * as service from './service.ts'

export const requestRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['requests']
  const item = PurchaseRequest
  const params = RequestParams
  collectionRoutes(app, '/v3/requests/', {
    tags,
    item,
    query: RequestListQuery,
    params,
    body: RequestInput,
    list: {
      summary: 'List the purchase requests you may see',
      run: ({ actor, db, query }) => service.listRequests(db, actor, query),
    },
    create: {
      summary: 'Create a draft purchase request (nav_request at its location)',
      operationId: 'createRequest',
      run: ({ db, actor, body }) => service.createRequest(db, actor, body),
    },
    get: {
      summary: 'Get a purchase request',
      operationId: 'getRequest',
      run: ({ db, actor, params }) => service.getRequest(db, actor, params.id),
    },
  })
  itemRoute(app, 'PATCH', '/v3/requests/:id/', {
    summary: 'Change a draft request (the requester; lines, when sent, replace all lines)',
    operationId: 'updateRequest',
    tags,
    params,
    body: RequestPatch,
    item,
    run: ({ db, actor, params, body }) => service.updateRequest(db, actor, params.id, body),
  })
  itemRoute(app, 'POST', '/v3/requests/:id/submit/', {
    summary: 'Submit a draft for approval (routes it through the approval rules)',
    operationId: 'submitRequest',
    tags,
    params,
    item,
    run: ({ db, actor, params, mailBase }) => service.submitRequest(db, actor, params.id, mailBase),
  })
  itemRoute(app, 'GET', '/v3/requests/:id/approval-preview/', {
    summary: 'The approval steps a draft would go through if submitted now (step, candidates; nothing is written)',
    operationId: 'previewRequestApprovals',
    tags,
    params,
    item: ChainPreview,
    run: ({ db, actor, params }) => previewRequestChain(db, actor, params.id),
  })
  itemRoute(app, 'POST', '/v3/requests/:id/cancel/', {
    summary: 'Cancel a draft or pending request (the requester, or a superuser)',
    operationId: 'cancelRequest',
    tags,
    params,
    item,
    run: ({ db, actor, params }) => service.cancelRequest(db, actor, params.id),
  })
}
