/** /api/v3/users/ and /api/v3/users/me/ */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { toFieldErrors } from '../http/errors.ts'
import { ItemEnvelope, listRoute } from '../http/list.ts'
import { badRequest, validationFailed } from '../core/problem.ts'
import { compileBodyValidator } from '../http/validation.ts'
import { me } from './me.service.ts'
import {
  BatchUser,
  CreateUsersBody,
  MAX_BATCH,
  Me,
  SingleUser,
  UserListQuery,
  UserParams,
  UserProfile,
} from './schema.ts'
import * as service from './service.ts'

const validBatchItem = compileBodyValidator(BatchUser)
const validSingle = compileBodyValidator(SingleUser)

/**
 * The create body is an array or an object, and the generic validator's report for such a union mixes both
 * readings. Re-validate against the reading the client meant, so each error names the right field (and,
 * for a batch, the right item).
 */
function preciseCreateErrors(body: unknown): Error {
  if (Array.isArray(body)) {
    if (body.length === 0 || body.length > MAX_BATCH)
      return badRequest(`A batch has 1 to ${MAX_BATCH} users; this one has ${body.length}.`)
    const errors = body.flatMap((item, i) =>
      validBatchItem(item)
        ? []
        : (validBatchItem.errors ?? []).map((e) => ({ ...e, instancePath: `/${i}${e.instancePath}` })),
    )
    return validationFailed(
      toFieldErrors(errors, true, 'item', body.length),
      'Some users are not valid; see errors (one object per submitted item). Nothing was created.',
    )
  }
  if (body !== null && typeof body === 'object' && !validSingle(body))
    return validationFailed(toFieldErrors(validSingle.errors ?? [], false))
  return badRequest('The body must be an array of users (batch form) or one user object (single form).')
}

export const userRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['users']
  listRoute(app, '/v3/users/', {
    summary: 'List users',
    tags,
    query: UserListQuery,
    item: UserProfile,
    list: ({ actor, db, query }) => service.listUsers(db, actor, query),
  })
  app.get(
    '/v3/users/me/',
    {
      schema: { summary: "The token owner's account", operationId: 'getMe', tags, response: { 200: ItemEnvelope(Me) } },
    },
    async (request) => ({
      metadata: {},
      data: await me(request.db, request.actor),
    }),
  )
  app.post(
    '/v3/users/',
    {
      schema: {
        summary: 'Create users: an array (batch, all or nothing) or one object (superuser or nav_setting)',
        operationId: 'createUsers',
        tags,
        body: CreateUsersBody,
        response: { 201: Type.Union([ItemEnvelope(Type.Array(UserProfile)), ItemEnvelope(UserProfile)]) },
      },
      attachValidation: true,
    },
    async (request, reply) => {
      if (request.validationError) throw preciseCreateErrors(request.body)
      const body = request.body
      if (Array.isArray(body)) {
        return reply
          .code(201)
          .send({ metadata: {}, data: await service.createBatch(request.db, request.actor, body, request.mailBase) })
      }
      const user = await service.createOne(request.db, request.actor, body, request.mailBase)
      return reply
        .code(201)
        .header('location', `${request.linkBase}/api/v3/users/${user.id}/`)
        .send({ metadata: {}, data: user })
    },
  )
  app.get(
    '/v3/users/:id/',
    { schema: { summary: 'Get a user', tags, params: UserParams, response: { 200: ItemEnvelope(UserProfile) } } },
    async (request) => ({
      metadata: {},
      data: await service.getUser(request.db, request.actor, request.params.id),
    }),
  )
  app.put(
    '/v3/users/:id/',
    {
      schema: {
        summary: 'Replace the single-form fields of a user (superuser or nav_setting)',
        tags,
        params: UserParams,
        body: SingleUser,
        response: { 200: ItemEnvelope(UserProfile) },
      },
    },
    async (request) => ({
      metadata: {},
      data: await service.updateUser(request.db, request.actor, request.params.id, request.body),
    }),
  )
  app.delete(
    '/v3/users/:id/',
    {
      schema: {
        summary: 'Deactivate a user; their applications stop working (superuser or nav_setting)',
        operationId: 'deactivateUser',
        tags,
        params: UserParams,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await service.deactivateUser(request.db, request.actor, request.params.id)
      return reply.code(204).send(null)
    },
  )
}
