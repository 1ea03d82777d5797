/** /api/v3/sso/: the tenant's identity provider (superuser). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { Config } from '../config.ts'
import { ItemEnvelope } from '../http/list.ts'
import type { ServerKeys } from '../keys.ts'
import { SsoConfig, SsoConfigInput } from './schema.ts'
import * as service from './service.ts'

export const ssoRoutes =
  (config: Readonly<Config>, keys: ServerKeys): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ['sso']
    const policy = { allowHttpIssuer: config.SSO_ALLOW_HTTP_ISSUER }
    const neutral = { accessNeutral: true }
    const path = '/v3/sso/'
    app.get(
      path,
      { schema: { summary: "The tenant's identity provider", tags, response: { 200: ItemEnvelope(SsoConfig) } } },
      async (request) => ({ metadata: {}, data: await service.getConfig(request.db, request.actor, request.linkBase) }),
    )
    app.put(
      path,
      {
        config: neutral,
        schema: {
          summary: 'Configure single sign-on (the issuer is checked by OpenID discovery)',
          tags,
          body: SsoConfigInput,
          response: { 200: ItemEnvelope(SsoConfig), 201: ItemEnvelope(SsoConfig) },
        },
      },
      async (request, reply) => {
        const saved = await service.saveConfig(request.db, request.actor, keys, policy, request.body, request.linkBase)
        return reply.code(saved.created ? 201 : 200).send({ metadata: {}, data: saved.config })
      },
    )
    app.delete(
      path,
      { config: neutral, schema: { summary: 'Turn single sign-on off', tags, response: { 204: Type.Null() } } },
      async (request, reply) => {
        await service.deleteConfig(request.db, request.actor)
        return reply.code(204).send(null)
      },
    )
  }
