/** /api/v3/events/: the feed of changes (superuser only: it shows every event of the tenant). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ItemEnvelope } from '../http/list.ts'
import { Event, EventList, EventListQuery, EventParams } from './schema.ts'
import * as service from './service.ts'

export const eventRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['events']
  app.get(
    '/v3/events/',
    {
      schema: {
        summary: 'The event feed, oldest first (superuser)',
        tags,
        querystring: EventListQuery,
        response: { 200: EventList },
      },
    },
    async (request) => service.listEvents(request.db, request.actor, request.query),
  )
  app.get(
    '/v3/events/:id/',
    {
      schema: {
        summary: 'One event (superuser)',
        tags,
        params: EventParams,
        response: { 200: ItemEnvelope(Event) },
      },
    },
    async (request) => ({ metadata: {}, data: await service.getEvent(request.db, request.actor, request.params.id) }),
  )
}
