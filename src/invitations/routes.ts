/** POST /invitations/{token}/accept: the link in an invitation e-mail (no bearer token: the link is the credential). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { Database } from '../db/database.ts'
import { acceptInvitation } from './service.ts'

const Params = Type.Object({ token: Type.String({ minLength: 20, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$' }) })
const Accepted = Type.Object({
  metadata: Type.Object({}),
  data: Type.Object({ email: Type.String(), pending_invite: Type.Boolean() }),
})

export const invitationRoutes =
  (database: Database): FastifyPluginAsyncTypebox =>
  async (app) => {
    const handler = async (request: { params: { token: string } }) => {
      const { email } = await acceptInvitation(database.db, request.params.token)
      return { metadata: {}, data: { email, pending_invite: false } }
    }
    const schema = { tags: ['users'], params: Params, response: { 200: Accepted } }
    app.post('/invitations/:token/accept', { schema: { ...schema, summary: 'Accept an invitation' } }, handler)
    // The e-mail link is opened in a browser, which sends GET.
    app.get(
      '/invitations/:token/accept',
      { schema: { ...schema, summary: 'Accept an invitation (from the e-mail link)' } },
      handler,
    )
  }
