/** /api/v3/scim-tokens/: the identity provider's provisioning tokens (superuser). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { ItemEnvelope, listRoute } from '../http/list.ts'
import { ScimToken, ScimTokenInput, ScimTokenListQuery, ScimTokenParams, ScimTokenWithSecret } from './schema.ts'
import * as service from './tokens.service.ts'

export const scimTokenRoutes =
  (pepper: Buffer): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ['sso']
    const neutral = { accessNeutral: true }
    const base = '/v3/scim-tokens/'
    listRoute(app, base, {
      summary: 'List SCIM tokens (never the tokens themselves)',
      tags,
      query: ScimTokenListQuery,
      item: ScimToken,
      list: ({ actor, db, query }) => service.pageOfTokens(db, actor, query),
    })
    app.post(
      base,
      {
        // The response carries the token: the idempotency store never keeps it, so Idempotency-Key is ignored.
        config: { ...neutral, secretResponse: true },
        schema: {
          summary: 'Make a SCIM token (shown once)',
          tags,
          body: Type.Optional(ScimTokenInput),
          response: { 201: ItemEnvelope(ScimTokenWithSecret) },
        },
      },
      async (request, reply) => {
        const token = await service.createToken(request.db, request.actor, pepper, request.body ?? {}, request.linkBase)
        return reply
          .code(201)
          .header('cache-control', 'no-store')
          .header('location', `${request.linkBase}/api/v3/scim-tokens/${token.id}/`)
          .send({ metadata: {}, data: token })
      },
    )
    app.delete(
      `${base}:id/`,
      {
        config: neutral,
        schema: { summary: 'Revoke a SCIM token', tags, params: ScimTokenParams, response: { 204: Type.Null() } },
      },
      async (request, reply) => {
        await service.revokeToken(request.db, request.actor, request.params.id)
        return reply.code(204).send(null)
      },
    )
  }
