/** /api/v3/{documents}/{id}/comments/ and /api/v3/comments/{id}/ (DECISIONS, "Attachments and comments"). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { attachables } from '../attachments/documents.ts'
import { wholeList } from '../attachments/routes.ts'
import { CommentInput, CommentSchema, ItemParams } from '../attachments/schema.ts'
import { deleteRoute } from '../http/item-routes.ts'
import { ItemEnvelope, ListEnvelope } from '../http/list.ts'
import * as service from './service.ts'

const tags = ['comments']

export const commentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  for (const attachable of attachables()) {
    const url = `/v3/${attachable.segment}/:id/comments/`
    const type = attachable.type
    const name = type.replace(/(^|_)([a-z])/g, (_m, _u, c: string) => c.toUpperCase())
    app.route({
      method: 'GET',
      url,
      schema: {
        summary: `List a ${type.replace(/_/g, ' ')}'s comments, oldest first`,
        operationId: `list${name}Comments`,
        tags,
        params: ItemParams,
        response: { 200: ListEnvelope(CommentSchema) },
      },
      handler: async (request) =>
        wholeList(await service.listComments(request.db, request.actor, type, request.params.id)),
    })
    app.route({
      method: 'POST',
      url,
      config: { accessNeutral: true },
      schema: {
        summary: `Comment on a ${type.replace(/_/g, ' ')}; @e-mail mentions notify`,
        operationId: `create${name}Comment`,
        tags,
        params: ItemParams,
        body: CommentInput,
        response: { 201: ItemEnvelope(CommentSchema) },
      },
      handler: async (request, reply) => {
        const { db, actor, params, body, mailBase } = request
        const created = await service.createComment(db, actor, type, params.id, body.body, mailBase)
        return reply
          .code(201)
          .header('location', `${request.linkBase}/api/v3/comments/${created.id}/`)
          .send({ metadata: {}, data: created })
      },
    })
  }
  deleteRoute(app, '/v3/comments/:id/', {
    summary: 'Delete a comment (its author within 15 minutes, or a superuser)',
    operationId: 'deleteComment',
    tags,
    params: ItemParams,
    run: ({ db, actor, params }) => service.deleteComment(db, actor, params.id),
  })
}
