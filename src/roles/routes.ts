/** /api/v3/roles/{id}/ and POST /api/v3/roles/ (the list, GET /api/v3/roles/, is with the look-ups). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { createRoute, deleteRoute, itemRoute } from '../http/item-routes.ts'
import { Role, RoleInput, RoleParams } from './schema.ts'
import * as service from './service.ts'

export const roleRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['roles']
  // A role's permissions are what the access cache holds: its writes wait for the change fence.
  const accessNeutral = false
  createRoute(app, '/v3/roles/', {
    summary: 'Create a role (superuser or nav_setting; only permissions you hold)',
    operationId: 'createRole',
    tags,
    accessNeutral,
    body: RoleInput,
    item: Role,
    create: ({ db, actor, body }) => service.createRole(db, actor, body),
  })
  itemRoute(app, 'GET', '/v3/roles/:id/', {
    summary: 'Get a role',
    operationId: 'getRole',
    tags,
    params: RoleParams,
    item: Role,
    run: ({ db, actor, params }) => service.getRole(db, actor, params.id),
  })
  itemRoute(app, 'PUT', '/v3/roles/:id/', {
    summary: 'Replace a role: name, type, tier and the complete set of permissions (superuser or nav_setting)',
    operationId: 'replaceRole',
    tags,
    accessNeutral,
    params: RoleParams,
    body: RoleInput,
    item: Role,
    run: ({ db, actor, params, body }) => service.replaceRole(db, actor, params.id, body),
  })
  deleteRoute(app, '/v3/roles/:id/', {
    summary: 'Delete a role that no user holds and no grant names; 409 while in use (superuser or nav_setting)',
    operationId: 'deleteRole',
    tags,
    accessNeutral,
    params: RoleParams,
    run: ({ db, actor, params }) => service.deleteRole(db, actor, params.id),
  })
}
