/**
 * POST /invitations/{token}/accept: accepts an invitation without setting a password (for clients that
 * sign their users in elsewhere). GET of the same path only redirects to the set-password page: a GET never
 * uses a link up, so a mail scanner that prefetches it changes nothing.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { Config } from '../config.ts'
import type { Database } from '../db/database.ts'
import { tenantOfHost } from '../http/host.ts'
import { setupPath, useLink } from './service.ts'

const Params = Type.Object({ token: Type.String({ minLength: 20, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$' }) })
const Accepted = Type.Object({
  metadata: Type.Object({}),
  data: Type.Object({ email: Type.String(), pending_invite: Type.Boolean() }),
})

export const invitationRoutes =
  (database: Database, config: Readonly<Config>): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/invitations/:token/accept',
      {
        schema: {
          summary: 'Accept an invitation',
          operationId: 'acceptInvitation',
          tags: ['users'],
          params: Params,
          response: { 200: Accepted },
        },
      },
      async (request) => {
        // Only an invitation is accepted here, on its own tenant's host: set-up and reset links need a password.
        const { email } = await useLink(database.db, request.params.token, {
          host: tenantOfHost(config.BASE_DOMAIN, request.host),
          purposes: ['invitation'],
        })
        return { metadata: {}, data: { email, pending_invite: false } }
      },
    )
    app.get(
      '/invitations/:token/accept',
      {
        schema: {
          summary: 'Open an invitation link: redirects to the set-password page',
          operationId: 'openInvitation',
          tags: ['users'],
          params: Params,
          response: { 303: Type.Null() },
        },
      },
      async (request, reply) => reply.redirect(setupPath(request.params.token), 303),
    )
  }
