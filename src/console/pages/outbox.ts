/** Settings → Outbox: the tenant's e-mail, readable while the service runs (superuser or nav_setting). */
import { Type } from 'typebox'
import { tenantOutbox, tenantOutboxAttachment } from '../../mail/service.ts'
import { sendPage, type ConsoleApp, type ConsoleDeps } from '../context.ts'
import { outboxView } from '../views/outbox.ts'

const Query = Type.Object({ all: Type.Optional(Type.String({ maxLength: 5 })) })
const FileParams = Type.Object({
  id: Type.Integer({ minimum: 1, maximum: 2147483647 }),
  index: Type.Integer({ minimum: 0, maximum: 1000 }),
})

export function outboxPages(app: ConsoleApp, deps: ConsoleDeps): void {
  app.get('/outbox', { schema: { hide: true, querystring: Query } }, async (request, reply) => {
    const all = request.query.all !== undefined
    const messages = await tenantOutbox(deps.db, request.session.actor, all)
    return sendPage(reply, outboxView(messages, deps.config.SMTP_URL !== undefined, all, request.session))
  })

  /** An e-mail's attachment (an order's PDF), downloaded to forward it by hand while no mail server is set. */
  app.get('/outbox/:id/attachments/:index', { schema: { hide: true, params: FileParams } }, async (request, reply) => {
    const { id, index } = request.params
    const file = await tenantOutboxAttachment(deps.db, request.session.actor, id, index)
    return reply
      .type(file.content_type)
      .header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(file.filename)}`)
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "sandbox; default-src 'none'")
      .header('cache-control', 'no-store')
      .send(file.bytes)
  })
}
