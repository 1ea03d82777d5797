/** /api/v3/users/{id}/location-roles/ and /api/v3/users/{id}/activate/ */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ItemEnvelope } from '../http/list.ts'
import { LocationRoles, UserParams, UserProfile } from './schema.ts'
import * as service from './grants.service.ts'

export const userGrantRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['users']
  app.get(
    '/v3/users/:id/location-roles/',
    {
      schema: {
        summary: "A user's roles granted per location (superuser or nav_setting)",
        operationId: 'getLocationRoles',
        tags,
        params: UserParams,
        response: { 200: ItemEnvelope(LocationRoles) },
      },
    },
    async (request) => ({
      metadata: {},
      data: await service.getLocationRoles(request.db, request.actor, request.params.id),
    }),
  )
  app.put(
    '/v3/users/:id/location-roles/',
    {
      schema: {
        summary:
          "Replace a user's complete set of per-location grants (superuser or nav_setting; only roles you could grant)",
        operationId: 'replaceLocationRoles',
        tags,
        params: UserParams,
        body: LocationRoles,
        response: { 200: ItemEnvelope(LocationRoles) },
      },
    },
    async (request) => ({
      metadata: {},
      data: await service.replaceLocationRoles(request.db, request.actor, request.params.id, request.body),
    }),
  )
  app.post(
    '/v3/users/:id/activate/',
    {
      schema: {
        summary: 'Re-activate a deactivated user (superuser or nav_setting)',
        operationId: 'activateUser',
        tags,
        params: UserParams,
        response: { 200: ItemEnvelope(UserProfile) },
      },
    },
    async (request) => ({
      metadata: {},
      data: await service.activateUser(request.db, request.actor, request.params.id),
    }),
  )
}
