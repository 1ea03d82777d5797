/** /api/v3/travel-requests/ */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { collectionRoutes, itemRoute } from '../http/item-routes.ts'
import { TravelListQuery, TravelParams, TravelRequest, TravelRequestInput } from './schema.ts'
import * as service from './service.ts'

export const travelRequestRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['travel-requests']
  const item = TravelRequest
  const params = TravelParams
  collectionRoutes(app, '/v3/travel-requests/', {
    tags,
    item,
    query: TravelListQuery,
    params,
    body: TravelRequestInput,
    list: {
      summary: 'List the travel requests you may see (yours, those you approve, accounts_payable at their location)',
      run: ({ actor, db, query }) => service.listTravel(db, actor, query),
    },
    create: {
      summary: 'Make a draft travel request of your own (nav_request at its location)',
      operationId: 'createTravelRequest',
      run: ({ db, actor, body }) => service.createTravel(db, actor, body),
    },
    get: {
      summary: 'Get a travel request',
      operationId: 'getTravelRequest',
      run: ({ db, actor, params }) => service.getTravel(db, actor, params.id),
    },
  })
  itemRoute(app, 'PUT', '/v3/travel-requests/:id/', {
    summary: 'Replace a draft or rejected travel request (its traveller)',
    operationId: 'replaceTravelRequest',
    tags,
    params,
    body: TravelRequestInput,
    item,
    run: ({ db, actor, params, body }) => service.putTravel(db, actor, params.id, body),
  })
  itemRoute(app, 'POST', '/v3/travel-requests/:id/submit/', {
    summary: 'Submit a draft or rejected travel request: approved through the travel rules',
    operationId: 'submitTravelRequest',
    tags,
    params,
    item,
    run: ({ db, actor, params, mailBase }) => service.submitTravel(db, actor, params.id, mailBase),
  })
  itemRoute(app, 'POST', '/v3/travel-requests/:id/cancel/', {
    summary: 'Cancel a draft or pending travel request (its traveller)',
    operationId: 'cancelTravelRequest',
    tags,
    params,
    item,
    run: ({ db, actor, params }) => service.cancelTravel(db, actor, params.id),
  })
}
