/** /api/v3/users/{id}/location-roles/ and /api/v3/users/{id}/activate/ */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { itemRoute } from '../http/item-routes.ts'
import { LocationRoles, UserParams, UserProfile } from './schema.ts'
import * as service from './grants.service.ts'

export const userGrantRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['users']
  // Grants and activation change what the access cache holds: these writes wait for the change fence.
  const accessNeutral = false
  const params = UserParams
  itemRoute(app, 'GET', '/v3/users/:id/location-roles/', {
    summary: "A user's roles granted per location (superuser or nav_setting)",
    operationId: 'getLocationRoles',
    tags,
    params,
    item: LocationRoles,
    run: ({ db, actor, params }) => service.getLocationRoles(db, actor, params.id),
  })
  itemRoute(app, 'PUT', '/v3/users/:id/location-roles/', {
    summary:
      "Replace a user's complete set of per-location grants (superuser or nav_setting; only roles you could grant)",
    operationId: 'replaceLocationRoles',
    tags,
    accessNeutral,
    params,
    body: LocationRoles,
    item: LocationRoles,
    run: ({ db, actor, params, body }) => service.replaceLocationRoles(db, actor, params.id, body),
  })
  itemRoute(app, 'POST', '/v3/users/:id/activate/', {
    summary: 'Re-activate a deactivated user (superuser or nav_setting)',
    operationId: 'activateUser',
    tags,
    accessNeutral,
    params,
    item: UserProfile,
    run: ({ db, actor, params }) => service.activateUser(db, actor, params.id),
  })
}
