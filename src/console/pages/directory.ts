/**
 * The views an administrator expects — users (search, paging, invite, deactivate), locations, and vendors
 * (search, paging) — on the same list services as the API.
 */
import { Type } from 'typebox'
import { listeningPort, mailBase } from '../../http/public-url.ts'
import { listLocations } from '../../locations/service.ts'
import { listRoles } from '../../lookups/service.ts'
import { createBatch, deactivateUser, getUser, listUsers } from '../../users/service.ts'
import { listVendors } from '../../vendors/service.ts'
import { sendPage, type ConsoleApp, type ConsoleDeps } from '../context.ts'
import { locationsView, vendorsView } from '../views/directory.ts'
import { deactivateView, usersView } from '../views/users.ts'

const PAGE_SIZE = 20
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
  role_id: Type.Optional(Type.String({ maxLength: 12 })),
})

/** The list query a console list asks the service for: the page, its size, and the search if any. */
const pageQuery = (q: { page?: number; search?: string }) => ({
  page: q.page ?? 1,
  page_size: PAGE_SIZE,
  ...(q.search === undefined ? {} : { search: q.search }),
})

export function directoryPages(app: ConsoleApp, deps: ConsoleDeps): void {
  const { db } = deps

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

  app.get('/locations', { schema: { hide: true, querystring: ListQuery } }, async (request, reply) => {
    const result = await listLocations(db, request.session.actor, pageQuery(request.query))
    return sendPage(reply, locationsView(result, request.query.search, request.session))
  })

  app.get('/vendors', { schema: { hide: true, querystring: ListQuery } }, async (request, reply) => {
    const result = await listVendors(db, deps.lookups, request.session.actor, pageQuery(request.query))
    return sendPage(reply, vendorsView(result, request.query.search, request.session))
  })
}
