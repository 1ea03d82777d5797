/**
 * Users in the console: the list (search, paging), invite and deactivate
 * — on the same services as the API.
 */
import { Type } from 'typebox'
import type { Actor } from '../../access/actor.ts'
import { tenantOutbox } from '../../mail/service.ts'
import { listeningPort, mailBase } from '../../http/public-url.ts'
import { listRoles } from '../../lookups/service.ts'
import { createBatch, deactivateUser, getUser, listUsers } from '../../users/service.ts'
import { sendPage, type ConsoleApp, type ConsoleDeps } from '../context.ts'
import { deactivateView, usersView } from '../views/users.ts'

const PAGE_SIZE = 20
/** A set-password link as invitation e-mail carries it. */
const SETUP_LINK = /https?:\/\/\S+\/console\/setup\/[A-Za-z0-9_-]+/
const ListQuery = Type.Object({
  search: Type.Optional(Type.String({ maxLength: 200 })),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  invited: Type.Optional(Type.String({ maxLength: 254 })),
  deactivated: Type.Optional(Type.String({ maxLength: 20 })),
})
const Id = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2147483647 }) })
const Invite = Type.Object({
  email: Type.String({ maxLength: 254 }),
  first_name: Type.Optional(Type.String({ maxLength: 100 })),
  last_name: Type.Optional(Type.String({ maxLength: 100 })),
  // A role id as the select offers it: up to 9 digits (any more would not fit PostgreSQL's integer).
  role_id: Type.Optional(Type.String({ pattern: '^[0-9]{0,9}$' })),
})

/** The list query a console list asks the service for: the page, its size, and the search if any. */
const pageQuery = (q: { page?: number; search?: string }) => ({
  page: q.page ?? 1,
  page_size: PAGE_SIZE,
  ...(q.search === undefined ? {} : { search: q.search }),
})

export function userPages(app: ConsoleApp, deps: ConsoleDeps): void {
  const { db } = deps
  const smtp = deps.config.SMTP_URL !== undefined

  /** The set-password link of the newest unsent invitation to `email` in the actor's tenant (no mail server). */
  const inviteLink = async (actor: Actor, email: string) => {
    const messages = await tenantOutbox(db, actor, false)
    const message = messages.find((m) => m.to_address.toLowerCase() === email.toLowerCase())
    return message === undefined ? undefined : SETUP_LINK.exec(message.body_text)?.[0]
  }

  app.get('/users', { schema: { hide: true, querystring: ListQuery } }, async (request, reply) => {
    const { actor } = request.session
    const q = request.query
    const result = await listUsers(db, actor, pageQuery(q))
    const canManage = actor.permissions.has('superuser') || actor.permissions.has('nav_setting')
    const roles = canManage ? (await listRoles(db, actor, { page_size: 100 })).rows : []
    const view = {
      result,
      search: q.search,
      canManage,
      roles,
      invited: q.invited,
      link: q.invited !== undefined && canManage && !smtp ? await inviteLink(actor, q.invited) : undefined,
      deactivated: q.deactivated !== undefined,
    }
    return sendPage(reply, usersView(view, request.session))
  })

  app.post('/users/invite', { schema: { hide: true, body: Invite } }, async (request, reply) => {
    const body = request.body
    const roleId = body.role_id === undefined || body.role_id === '' ? undefined : Number(body.role_id)
    await createBatch(
      db,
      request.session.actor,
      [
        {
          email: body.email,
          first_name: body.first_name ?? '',
          last_name: body.last_name ?? '',
          send_invitation_email: true,
          ...(roleId === undefined ? {} : { role_id: roleId }),
        },
      ],
      mailBase(deps.config, request.session.actor.domain, listeningPort(request.server.server)),
    )
    return reply.redirect(`/console/users?invited=${encodeURIComponent(body.email)}`, 303)
  })

  app.get('/users/:id/deactivate', { schema: { hide: true, params: Id } }, async (request, reply) => {
    const user = await getUser(db, request.session.actor, request.params.id)
    return sendPage(reply, deactivateView(user, request.session))
  })

  app.post('/users/:id/deactivate', { schema: { hide: true, params: Id } }, async (request, reply) => {
    await deactivateUser(db, request.session.actor, request.params.id)
    return reply.redirect('/console/users?deactivated=1', 303)
  })
}
