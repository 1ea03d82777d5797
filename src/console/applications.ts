/**
 * Settings → Applications: create client credentials (the secret is shown once, with a copy button and a
 * warning), list them (never a secret), rotate (owner only; the new secret shown once), revoke (after a
 * confirmation). For users with `superuser` or `nav_setting`; others see "not allowed". The same operations
 * as the API's, audited with "console" as the channel.
 */
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { requireAny } from '../access/actor.ts'
import * as applications from '../applications/service.ts'
import type { ConsoleSession } from './context.ts'
import { sendPage, type ConsoleDeps } from './context.ts'
import { html, type Html } from './html.ts'
import { notice, page, postForm } from './layout.ts'

const ClientId = Type.Object({ client_id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }) })
const Create = Type.Object({ description: Type.Optional(Type.String({ maxLength: 255 })) })

function credentials(creds: applications.IssuedCredentials, title: string): Html {
  return html`<section aria-labelledby="new-credentials" class="card">
    <h2 id="new-credentials">${title}</h2>
    ${notice('alert', html`<strong>Copy the Client Secret now.</strong> It is shown only this once and cannot be shown again; store it somewhere safe.`)}
    <div class="credential">
      <span>Client ID:</span> <code id="client-id" class="secret" data-testid="client-id">${creds.client_id}</code>
      <button type="button" class="secondary" data-copy="client-id" data-label="Client ID">Copy Client ID</button>
    </div>
    <div class="credential">
      <span>Client Secret:</span>
      <code id="client-secret" class="secret" data-testid="client-secret">${creds.client_secret}</code>
      <button type="button" class="secondary" data-copy="client-secret" data-label="Client Secret">
        Copy Client Secret
      </button>
    </div>
    <p id="copy-status" role="status" class="muted"></p>
  </section>`
}

async function listPage(deps: ConsoleDeps, session: ConsoleSession, top: Html | string = ''): Promise<string> {
  const { actor, csrf } = session
  const { rows } = await applications.listApplications(deps.db, actor, { page_size: 100, order_by: '-id' })
  const body = html`${top}
    <section aria-labelledby="create">
      <h2 id="create">Create an application</h2>
      <p class="muted">An integration signs in with its Client ID and Client Secret and acts with your permissions.</p>
      ${postForm(
        '/console/settings/applications',
        csrf,
        html`<label for="description">Description <span class="muted">(optional)</span></label>
          <input id="description" name="description" type="text" maxlength="255" />
          <p><button type="submit">Create application</button></p>`,
      )}
    </section>
    <section aria-labelledby="existing">
      <h2 id="existing">Applications</h2>
      ${
        rows.length === 0
          ? html`<p>No applications yet.</p>`
          : html`<table>
              <thead>
                <tr>
                  <th scope="col">Client ID</th>
                  <th scope="col">Description</th>
                  <th scope="col">Owner</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col">State</th>
                  <th scope="col"><span class="muted">Actions</span></th>
                </tr>
              </thead>
              <tbody>
                ${rows.map(
                  (a) =>
                    html`<tr>
                      <td><code>${a.client_id}</code></td>
                      <td>${a.description || '—'}</td>
                      <td>${a.owner_email}</td>
                      <td>${a.created_at.slice(0, 16).replace('T', ' ')}</td>
                      <td>${a.last_used_at?.slice(0, 16).replace('T', ' ') ?? 'never'}</td>
                      <td>${a.revoked_at === null ? 'active' : 'revoked'}</td>
                      <td>
                        ${
                          a.revoked_at !== null
                            ? ''
                            : html`${
                                  a.owner_email === actor.email
                                    ? postForm(
                                        `/console/settings/applications/${a.client_id}/rotate`,
                                        csrf,
                                        html`<button
                                          type="submit"
                                          class="secondary"
                                          aria-label="Rotate the secret of ${a.client_id}"
                                        >
                                          Rotate secret
                                        </button>`,
                                        html`class="inline"`,
                                      )
                                    : ''
                                }
                                <a
                                  class="button secondary"
                                  href="/console/settings/applications/${a.client_id}/revoke"
                                  aria-label="Revoke ${a.client_id}"
                                  >Revoke</a
                                >`
                        }
                      </td>
                    </tr>`,
                )}
              </tbody>
            </table>`
      }
    </section>`
  return page({ title: 'Applications', actor, csrf, current: 'applications' }, body)
}

export function applicationPages(app: FastifyInstance, deps: ConsoleDeps): void {
  const base = '/settings/applications'
  // Everyone signed in may open the page; only managers see it (the rest: a clear "not allowed").
  app.addHook('preHandler', async (request) => {
    if (request.routeOptions.url?.startsWith(`/console${base}`) === true)
      requireAny(request.session.actor, 'superuser', 'nav_setting')
  })

  app.get(base, { schema: { hide: true } }, async (request, reply) => {
    const revoked = (request.query as { revoked?: string }).revoked
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
    const { description } = request.body as { description?: string }
    const creds = await applications.createApplication(deps.db, deps.keys.pepper, request.session.actor, {
      description: description ?? '',
    })
    return sendPage(reply, await listPage(deps, request.session, credentials(creds, 'Your new application')), 201)
  })

  app.post(`${base}/:client_id/rotate`, { schema: { hide: true, params: ClientId } }, async (request, reply) => {
    const { client_id } = request.params as { client_id: string }
    const creds = await applications.rotateApplication(deps.db, deps.keys.pepper, request.session.actor, client_id)
    return sendPage(
      reply,
      await listPage(deps, request.session, credentials(creds, 'New secret issued; the old one no longer works')),
    )
  })

  app.get(`${base}/:client_id/revoke`, { schema: { hide: true, params: ClientId } }, async (request, reply) => {
    const { client_id } = request.params as { client_id: string }
    const { actor, csrf } = request.session
    const body = html`<p>Revoke <code>${client_id}</code>? Its tokens stop working at once, and it cannot be undone.</p>
      ${postForm(`/console${base}/${client_id}/revoke`, csrf, html`<button type="submit" class="danger">Revoke application</button> <a href="/console${base}">Cancel</a>`)}`
    return sendPage(reply, page({ title: 'Revoke application', actor, csrf, current: 'applications' }, body))
  })

  app.post(`${base}/:client_id/revoke`, { schema: { hide: true, params: ClientId } }, async (request, reply) => {
    const { client_id } = request.params as { client_id: string }
    await applications.revokeApplication(deps.db, request.session.actor, client_id)
    return reply.redirect(`/console${base}?revoked=${encodeURIComponent(client_id)}`, 303)
  })
}
