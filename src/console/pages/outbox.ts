/** Settings → Outbox: the tenant's e-mail, readable while the service runs (superuser or nav_setting). */
import { Type } from 'typebox'
import { tenantOutbox } from '../../mail/service.ts'
import { sendPage, type ConsoleApp, type ConsoleDeps } from '../context.ts'
import { outboxView } from '../views/outbox.ts'

const Query = Type.Object({ all: Type.Optional(Type.String({ maxLength: 5 })) })

export function outboxPages(app: ConsoleApp, deps: ConsoleDeps): void {
  app.get('/outbox', { schema: { hide: true, querystring: Query } }, async (request, reply) => {
    const all = request.query.all !== undefined
    const messages = await tenantOutbox(deps.db, request.session.actor, all)
    return sendPage(reply, outboxView(messages, deps.config.SMTP_URL !== undefined, all, request.session))
  })
}
