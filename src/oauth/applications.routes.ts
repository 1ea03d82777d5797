/**
 * /api/v3/applications/: a user with `superuser` or `nav_setting` manages the tenant's client credentials.
 * Creating makes an application owned by the caller; the secret is in that one response only.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { AppDeps } from '../app.ts'
import { requireAny } from '../http/auth.ts'
import { ItemEnvelope, ListEnvelope, listQuery, sendList } from '../http/list.ts'
import * as service from './applications.service.ts'

const Application = Type.Object({
  client_id: Type.String(),
  description: Type.String(),
  owner_email: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  revoked_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
})
const ApplicationListQuery = listQuery(['id'], {})
const Credentials = Type.Object({ client_id: Type.String(), client_secret: Type.String() })
const ClientIdParams = Type.Object({ client_id: Type.String({ maxLength: 64 }) })

export const applicationRoutes =
  ({ database, keys }: AppDeps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const db = database.db
    app.addHook('preHandler', async (request) => requireAny(request.caller, 'superuser', 'nav_setting'))

    app.get(
      '/v3/applications/',
      {
        schema: {
          summary: "List the tenant's applications (never their secrets)",
          tags: ['applications'],
          querystring: ApplicationListQuery,
          response: { 200: ListEnvelope(Application) },
          produces: ['application/json', 'text/csv'],
        },
      },
      async (request, reply) => sendList(reply, request.query.format, await service.listPage(db, request.caller, request.query, request), Application),
    )

    app.post(
      '/v3/applications/',
      {
        config: { secretResponse: true },
        schema: {
          summary: 'Create an application owned by the caller; the secret is shown only in this response',
          tags: ['applications'],
          body: Type.Object({ description: Type.Optional(Type.String({ maxLength: 255 })) }, { additionalProperties: false }),
          response: { 201: ItemEnvelope(Credentials) },
        },
      },
      async (request, reply) => {
        const { caller } = request
        const created = await service.createFor(db, keys.pepper, caller, request.body.description ?? '')
        return reply.code(201).header('cache-control', 'no-store').send({ metadata: {}, data: { client_id: created.client_id, client_secret: created.client_secret } })
      },
    )

    app.post(
      '/v3/applications/:client_id/rotate/',
      {
        config: { secretResponse: true },
        schema: { summary: 'Issue a new secret (owner only); the old secret and its tokens stop working', tags: ['applications'], params: ClientIdParams, response: { 200: ItemEnvelope(Credentials) } },
      },
      async (request, reply) => {
        const creds = await service.rotateFor(db, keys.pepper, request.caller, request.params.client_id)
        return reply.header('cache-control', 'no-store').send({ metadata: {}, data: creds })
      },
    )

    app.delete(
      '/v3/applications/:client_id/',
      { schema: { summary: 'Revoke an application; its tokens stop working', tags: ['applications'], params: ClientIdParams, response: { 204: Type.Null() } } },
      async (request, reply) => {
        await service.revokeFor(db, request.caller, request.params.client_id)
        return reply.code(204).send(null)
      },
    )
  }
