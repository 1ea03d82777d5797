/** /api/v3/roles/ (read-only). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Database } from '../db/database.ts'
import { ListEnvelope, sendList } from '../http/list.ts'
import { Role, RoleListQuery } from './schema.ts'
import * as service from './service.ts'

export const roleRoutes =
  (database: Database): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/v3/roles/',
      {
        schema: {
          summary: 'List roles with their permission keys',
          tags: ['roles'],
          querystring: RoleListQuery,
          response: { 200: ListEnvelope(Role) },
          produces: ['application/json', 'text/csv'],
        },
      },
      async (request, reply) =>
        sendList(reply, request.query.format, await service.listRoles(database.db, request.caller, request.query, request), Role),
    )
  }
