/** Settings → Applications: the list, the form that creates one, new credentials shown once, revoking. */
import type { IssuedCredentials } from '../../applications/service.ts'
import type { Application } from '../../applications/schema.ts'
import { when } from './format.ts'
import { html, type Html } from './html.ts'
import { notice, page, postForm, type Frame } from './layout.ts'

/** New credentials: the secret shown this once, with copy buttons. */
export function credentialsView(creds: IssuedCredentials, title: string): Html {
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

/** The applications of the tenant, newest first, and the form that creates one; `top` above them. */
export function applicationsView(
  rows: readonly Application[],
  { actor, csrf }: Frame,
  top: Html | string = '',
): string {
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
          : html`<div class="table-wrap">
              <table>
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
                        <td>${when(a.created_at)}</td>
                        <td>${when(a.last_used_at, 'never')}</td>
                        <td>${a.revoked_at === null ? 'Active' : 'Revoked'}</td>
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
                                            Rotate the secret
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
              </table>
            </div>`
      }
    </section>`
  return page({ title: 'Applications', actor, csrf, current: 'applications' }, body)
}

/** Asks before revoking (a GET that changes nothing). */
export function revokeView(clientId: string, { actor, csrf }: Frame): string {
  const base = '/console/settings/applications'
  const body = html`<p>Revoke <code>${clientId}</code>? Its tokens stop working at once, and it cannot be undone.</p>
    ${postForm(`${base}/${clientId}/revoke`, csrf, html`<button type="submit" class="danger">Revoke application</button> <a href="${base}">Cancel</a>`)}`
  return page({ title: 'Revoke application', actor, csrf, current: 'applications' }, body)
}
