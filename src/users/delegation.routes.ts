/** /api/v3/users/{id}/delegation/ */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { deleteRoute, itemRoute } from '../http/item-routes.ts'
import * as service from './delegation.service.ts'
import { Delegation, DelegationInput, UserParams } from './schema.ts'

export const delegationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['users']
  const params = UserParams
  itemRoute(app, 'GET', '/v3/users/:id/delegation/', {
    summary: "A user's out-of-office delegation in force (both fields null when none)",
    operationId: 'getDelegation',
    tags,
    params,
    item: Delegation,
    run: ({ db, actor, params }) => service.getDelegation(db, actor, params.id),
  })
  itemRoute(app, 'PUT', '/v3/users/:id/delegation/', {
    summary: 'Set a delegation: your own, or anyone’s with superuser or nav_setting (replaces the current one)',
    operationId: 'setDelegation',
    tags,
    params,
    body: DelegationInput,
    item: Delegation,
    run: ({ db, actor, params, body }) => service.setDelegation(db, actor, params.id, body),
  })
  deleteRoute(app, '/v3/users/:id/delegation/', {
    summary: 'End a delegation (204, also when there is none)',
    operationId: 'endDelegation',
    tags,
    params,
    run: ({ db, actor, params }) => service.endDelegation(db, actor, params.id),
  })
}
