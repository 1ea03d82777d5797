/**
 * /api/v3/applications/: a user with `superuser` or `nav_setting` manages the tenant's client credentials.
 * Creating makes an application owned by the caller; the secret is in that one response only.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { ItemEnvelope, listRoute } from '../http/list.ts'
import { Application, ApplicationInput, ApplicationListQuery, ClientIdParams, Credentials } from './schema.ts'
import * as service from './service.ts'

export const applicationRoutes =
  (pepper: Buffer): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ['applications']
    listRoute(app, '/v3/applications/', {
      summary: "List the tenant's applications (never their secrets)",
      tags,
      query: ApplicationListQuery,
      item: Application,
      list: ({ actor, db, query }) => service.listApplications(db, actor, query),
    })
    app.post(
      '/v3/applications/',
      {
        config: { secretResponse: true },
        schema: {
          summary: 'Create an application owned by the caller; the secret is shown only in this response',
          tags,
          body: ApplicationInput,
          response: { 201: ItemEnvelope(Credentials) },
        },
      },
      async (request, reply) => {
        const data = await service.createApplication(request.db, pepper, request.actor, {
          description: request.body.description ?? '',
        })
        return reply
          .code(201)
          .header('cache-control', 'no-store')
          .header('location', `${request.linkBase}/api/v3/applications/${data.client_id}/`)
          .send({ metadata: {}, data })
      },
    )
    app.get(
      '/v3/applications/:client_id/',
      {
        schema: {
          summary: 'Get an application (never its secret)',
          tags,
          params: ClientIdParams,
          response: { 200: ItemEnvelope(Application) },
        },
      },
      async (request) => ({
        metadata: {},
        data: await service.getApplication(request.db, request.actor, request.params.client_id),
      }),
    )
    app.post(
      '/v3/applications/:client_id/rotate/',
      {
        config: { secretResponse: true },
        schema: {
          summary: 'Issue a new secret (owner only); the old secret and its tokens stop working',
          tags,
          params: ClientIdParams,
          response: { 200: ItemEnvelope(Credentials) },
        },
      },
      async (request, reply) => {
        const data = await service.rotateApplication(request.db, pepper, request.actor, request.params.client_id)
        return reply.header('cache-control', 'no-store').send({ metadata: {}, data })
      },
    )
    app.delete(
      '/v3/applications/:client_id/',
      {
        schema: {
          summary: 'Revoke an application; its tokens stop working',
          operationId: 'revokeApplication',
          tags,
          params: ClientIdParams,
          response: { 204: Type.Null() },
        },
      },
      async (request, reply) => {
        await service.revokeApplication(request.db, request.actor, request.params.client_id)
        return reply.code(204).send(null)
      },
    )
  }
