/**
 * Settings → Applications: create client credentials (the secret is shown once, with a copy button and a
 * warning), list them (never a secret), rotate (owner only; the new secret shown once), revoke (after a
 * confirmation). For users with `superuser` or `nav_setting`; others see "not allowed". The same operations
 * as the API's, audited with "console" as the channel.
 */
import { Type } from 'typebox'
import { requireAny } from '../../access/actor.ts'
import * as applications from '../../applications/service.ts'
import { sendPage, type ConsoleApp, type ConsoleDeps, type ConsoleSession } from '../context.ts'
import type { Html } from '../views/html.ts'
import { applicationsView, credentialsView, revokeView } from '../views/applications.ts'
import { notice } from '../views/layout.ts'

const ClientId = Type.Object({ client_id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }) })
const Create = Type.Object({ description: Type.Optional(Type.String({ maxLength: 255 })) })
const Revoked = Type.Object({ revoked: Type.Optional(Type.String({ maxLength: 64 })) })

async function listPage(deps: ConsoleDeps, session: ConsoleSession, top: Html | string = ''): Promise<string> {
  const { rows } = await applications.listApplications(deps.db, session.actor, { page_size: 100, order_by: '-id' })
  return applicationsView(rows, session, top)
}

export function applicationPages(app: ConsoleApp, deps: ConsoleDeps): void {
  const base = '/settings/applications'
  // Everyone signed in may open the page; only managers see it (the rest: a clear "not allowed").
  app.addHook('preHandler', async (request) => {
    if (request.routeOptions.url?.startsWith(`/console${base}`) === true)
      requireAny(request.session.actor, 'superuser', 'nav_setting')
  })

  app.get(base, { schema: { hide: true, querystring: Revoked } }, async (request, reply) => {
    const { revoked } = request.query
    return sendPage(
      reply,
      await listPage(
        deps,
        request.session,
        revoked === undefined ? '' : notice('status', `Application ${revoked} is revoked; its tokens no longer work.`),
      ),
    )
  })

  app.post(base, { schema: { hide: true, body: Create } }, async (request, reply) => {
    const { description } = request.body
    const creds = await applications.createApplication(deps.db, deps.keys.pepper, request.session.actor, {
      description: description ?? '',
    })
    return sendPage(reply, await listPage(deps, request.session, credentialsView(creds, 'Your new application')), 201)
  })

  app.post(`${base}/:client_id/rotate`, { schema: { hide: true, params: ClientId } }, async (request, reply) => {
    const { client_id } = request.params
    const creds = await applications.rotateApplication(deps.db, deps.keys.pepper, request.session.actor, client_id)
    return sendPage(
      reply,
      await listPage(deps, request.session, credentialsView(creds, 'New secret issued; the old one no longer works')),
    )
  })

  app.get(`${base}/:client_id/revoke`, { schema: { hide: true, params: ClientId } }, async (request, reply) => {
    const { client_id } = request.params
    return sendPage(reply, revokeView(client_id, request.session))
  })

  app.post(`${base}/:client_id/revoke`, { schema: { hide: true, params: ClientId } }, async (request, reply) => {
    const { client_id } = request.params
    await applications.revokeApplication(deps.db, request.session.actor, client_id)
    return reply.redirect(`/console${base}?revoked=${encodeURIComponent(client_id)}`, 303)
  })
}
