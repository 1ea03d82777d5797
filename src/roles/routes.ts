/** /api/v3/roles/{id}/ and POST /api/v3/roles/ (the list, GET /api/v3/roles/, is with the look-ups). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { ItemEnvelope } from '../http/list.ts'
import { Role, RoleInput, RoleParams } from './schema.ts'
import * as service from './service.ts'

export const roleRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['roles']
  const one = { 200: ItemEnvelope(Role) }
  app.post(
    '/v3/roles/',
    {
      schema: {
        summary: 'Create a role (superuser or nav_setting; only permissions you hold)',
        operationId: 'createRole',
        tags,
        body: RoleInput,
        response: { 201: ItemEnvelope(Role) },
      },
    },
    async (request, reply) => {
      const role = await service.createRole(request.db, request.actor, request.body)
      return reply
        .code(201)
        .header('location', `${request.linkBase}/api/v3/roles/${role.id}/`)
        .send({ metadata: {}, data: role })
    },
  )
  app.get(
    '/v3/roles/:id/',
    { schema: { summary: 'Get a role', operationId: 'getRole', tags, params: RoleParams, response: one } },
    async (request) => ({ metadata: {}, data: await service.getRole(request.db, request.actor, request.params.id) }),
  )
  app.put(
    '/v3/roles/:id/',
    {
      schema: {
        summary: 'Replace a role: name, type, tier and the complete set of permissions (superuser or nav_setting)',
        operationId: 'replaceRole',
        tags,
        params: RoleParams,
        body: RoleInput,
        response: one,
      },
    },
    async (request) => ({
      metadata: {},
      data: await service.replaceRole(request.db, request.actor, request.params.id, request.body),
    }),
  )
  app.delete(
    '/v3/roles/:id/',
    {
      schema: {
        summary: 'Delete a role that no user holds and no grant names; 409 while in use (superuser or nav_setting)',
        operationId: 'deleteRole',
        tags,
        params: RoleParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await service.deleteRole(request.db, request.actor, request.params.id)
      return reply.code(204).send(null)
    },
  )
}
