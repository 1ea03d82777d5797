/** /api/v3/users/{id}/delegation/ */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { ItemEnvelope } from '../http/list.ts'
import * as service from './delegation.service.ts'
import { Delegation, DelegationInput, UserParams } from './schema.ts'

export const delegationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['users']
  const config = { accessNeutral: true }
  app.get(
    '/v3/users/:id/delegation/',
    {
      schema: {
        summary: "A user's out-of-office delegation in force (both fields null when none)",
        operationId: 'getDelegation',
        tags,
        params: UserParams,
        response: { 200: ItemEnvelope(Delegation) },
      },
    },
    async (request) => ({
      metadata: {},
      data: await service.getDelegation(request.db, request.actor, request.params.id),
    }),
  )
  app.put(
    '/v3/users/:id/delegation/',
    {
      config,
      schema: {
        summary: 'Set a delegation: your own, or anyone’s with superuser or nav_setting (replaces the current one)',
        operationId: 'setDelegation',
        tags,
        params: UserParams,
        body: DelegationInput,
        response: { 200: ItemEnvelope(Delegation) },
      },
    },
    async (request) => ({
      metadata: {},
      data: await service.setDelegation(request.db, request.actor, request.params.id, request.body),
    }),
  )
  app.delete(
    '/v3/users/:id/delegation/',
    {
      config,
      schema: {
        summary: 'End a delegation (204, also when there is none)',
        operationId: 'endDelegation',
        tags,
        params: UserParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await service.endDelegation(request.db, request.actor, request.params.id)
      return reply.code(204).send(null)
    },
  )
}
