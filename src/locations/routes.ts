/** /api/v2/locations/ and the same routes under /api/v3/locations/. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { ItemEnvelope, listRoute } from '../http/list.ts'
import { LocationInput, LocationListQuery, LocationParams, LocationView } from './schema.ts'
import * as service from './service.ts'

const IfMatch = Type.Object({
  'if-match': Type.Optional(
    Type.String({ maxLength: 1000, description: 'ETag from a GET; the replacement happens only if it still matches.' }),
  ),
})

export const locationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  for (const version of ['v2', 'v3']) {
    const tags = ['locations']
    listRoute(app, `/${version}/locations/`, {
      summary: 'List locations',
      tags,
      query: LocationListQuery,
      item: LocationView,
      list: ({ actor, db, query }) => service.listLocations(db, actor, query),
    })
    app.post(
      `/${version}/locations/`,
      {
        config: { accessNeutral: true },
        schema: {
          summary: 'Create a location (superuser)',
          tags,
          body: LocationInput,
          response: { 201: ItemEnvelope(LocationView) },
        },
      },
      async (request, reply) => {
        const { view, etag } = await service.createLocation(request.db, request.actor, request.body)
        return reply
          .code(201)
          .header('etag', etag)
          .header('location', `${request.linkBase}/api/${version}/locations/${view.id}/`)
          .send({ metadata: {}, data: view })
      },
    )
    app.get(
      `/${version}/locations/:id/`,
      {
        schema: {
          summary: 'Get a location',
          tags,
          params: LocationParams,
          response: { 200: ItemEnvelope(LocationView) },
        },
      },
      async (request, reply) => {
        const { view, etag } = await service.getLocation(request.db, request.actor, request.params.id)
        return reply.header('etag', etag).send({ metadata: {}, data: view })
      },
    )
    app.put(
      `/${version}/locations/:id/`,
      {
        config: { accessNeutral: true },
        schema: {
          summary: 'Replace a location completely (superuser); omitted alternate shipping addresses are deactivated',
          tags,
          params: LocationParams,
          headers: IfMatch,
          body: LocationInput,
          response: { 200: ItemEnvelope(LocationView) },
        },
      },
      async (request, reply) => {
        const { view, etag } = await service.replaceLocation(
          request.db,
          request.actor,
          request.params.id,
          request.body,
          request.headers['if-match'],
        )
        return reply.header('etag', etag).send({ metadata: {}, data: view })
      },
    )
  }
}
