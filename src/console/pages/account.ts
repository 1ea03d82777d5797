/** My account (see views/account.ts), and signing out one of my other sessions. */
import { Type } from 'typebox'
import { mySessions, revokeMySession } from '../../sessions/service.ts'
import { me } from '../../users/me.service.ts'
import { sendPage, type ConsoleApp, type ConsoleDeps } from '../context.ts'
import { accountView } from '../views/account.ts'

const Id = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2147483647 }) })
const Flags = Type.Object({ welcome: Type.Optional(Type.String()), revoked: Type.Optional(Type.String()) })

export function accountPages(app: ConsoleApp, deps: ConsoleDeps): void {
  app.get('/account', { schema: { hide: true, querystring: Flags } }, async (request, reply) => {
    const { actor, csrf, id: current } = request.session
    const [account, sessions] = await Promise.all([me(deps.db, actor), mySessions(deps.db, actor)])
    const { welcome, revoked } = request.query
    const view = { account, sessions, current, welcome: welcome !== undefined, revoked: revoked !== undefined }
    return sendPage(reply, accountView(view, { actor, csrf }))
  })

  app.post('/sessions/:id/revoke', { schema: { hide: true, params: Id } }, async (request, reply) => {
    await revokeMySession(deps.db, request.session.actor, request.params.id)
    return reply.redirect('/console/account?revoked=1', 303)
  })
}
