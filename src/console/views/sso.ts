/**
 * Settings → Single sign-on: the identity provider's form (the client secret never shown back), what to give
 * the provider (redirect URI, SCIM base URL), SCIM tokens (a new one shown once), and turning it off. Also the
 * page a refused single sign-on shows.
 */
import type { ScimToken } from '../../scim/schema.ts'
import { when } from './format.ts'
import { checkbox, errorSummary, input, select, textarea, type FormState, type Option } from './forms.ts'
import { html, type Html } from './html.ts'
import { notice, page, postForm, type Frame } from './layout.ts'

export const SSO_BASE = '/console/settings/sso'

export const SSO_LABELS: Readonly<Record<string, string>> = {
  issuer: 'Issuer URL',
  client_id: 'Client ID',
  client_secret: 'Client secret',
  scopes: 'Scopes',
  allowed_domains: 'Allowed e-mail domains',
  jit_provisioning: 'Create accounts at first sign-in',
  default_role: 'Role of new accounts',
  groups_claim: 'Groups claim',
  group_roles: 'Group roles',
  password_login: 'Password sign-in',
}

const POLICIES: readonly Option[] = [
  { value: 'allowed', label: 'Everyone may still sign in with a password' },
  { value: 'superusers_only', label: 'Only superusers (a way in when the provider is down)' },
  { value: 'disabled', label: 'Nobody: single sign-on only' },
]

export interface SsoPageData {
  configured: boolean
  redirectUri: string
  scimBaseUrl: string
  roles: readonly Option[]
  tokens: readonly ScimToken[]
}

function tokensSection(data: SsoPageData, csrf: string, newToken: string | undefined): Html {
  return html`<section aria-labelledby="scim">
    <h2 id="scim">Provisioning (SCIM)</h2>
    <p>
      Give your identity provider the SCIM base URL <code>${data.scimBaseUrl}</code> and a token: it then creates,
      updates and deactivates people here, and keeps group memberships.
    </p>
    ${
      newToken === undefined
        ? ''
        : html`<div class="card">
            ${notice('alert', html`<strong>Copy the token now.</strong> It is shown only this once.`)}
            <div class="credential">
              <span>SCIM token:</span>
              <code id="scim-token" class="secret" data-testid="scim-token">${newToken}</code>
              <button type="button" class="secondary" data-copy="scim-token" data-label="SCIM token">Copy token</button>
            </div>
            <p id="copy-status" role="status" class="muted"></p>
          </div>`
    }
    ${
      data.tokens.length === 0
        ? html`<p class="muted">No SCIM tokens yet.</p>`
        : html`<div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Description</th>
                  <th scope="col">Made</th>
                  <th scope="col">Last used</th>
                  <th scope="col"><span class="muted">Actions</span></th>
                </tr>
              </thead>
              <tbody>
                ${data.tokens.map(
                  (t) =>
                    html`<tr>
                      <td>${t.description === '' ? '—' : t.description}</td>
                      <td>${when(t.created_at)}</td>
                      <td>${t.last_used_at === null ? 'never' : when(t.last_used_at)}</td>
                      <td>
                        ${postForm(
                          `${SSO_BASE}/tokens/${t.id}/revoke`,
                          csrf,
                          html`<button type="submit" class="secondary" aria-label="Revoke the token ${t.description}">
                            Revoke
                          </button>`,
                        )}
                      </td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
    ${postForm(
      `${SSO_BASE}/tokens`,
      csrf,
      html`<div class="field">
          <label for="token-description">Description <span class="muted">(optional)</span></label>
          <input id="token-description" name="description" maxlength="200" />
        </div>
        <p><button type="submit">Make a SCIM token</button></p>`,
      html`class="card"`,
    )}
  </section>`
}

export function ssoView(data: SsoPageData, form: FormState, frame: Frame, top: Html | string = '', newToken?: string) {
  const { actor, csrf } = frame
  const body = html`${top} ${errorSummary(form, SSO_LABELS)}
    <p>
      People of your company sign in with your identity provider (Okta, Entra ID, Google, Keycloak or any OpenID
      provider). Register this redirect URI at the provider: <code data-testid="redirect-uri">${data.redirectUri}</code>
    </p>
    <p class="muted">${data.configured ? 'Single sign-on is on.' : 'Single sign-on is off.'}</p>
    ${postForm(
      SSO_BASE,
      csrf,
      html`${input({ name: 'issuer', label: SSO_LABELS.issuer!, form, type: 'url', required: true, hint: 'Checked by OpenID discovery when you save, e.g. https://acme.okta.com' })}
        ${input({ name: 'client_id', label: SSO_LABELS.client_id!, form, required: true })}
        <div class="field">
          <label for="f-client_secret"
            >${SSO_LABELS.client_secret}
            ${data.configured ? html`<span class="muted">(leave empty to keep the saved one)</span>` : ''}</label
          >
          ${
            (form.errors.client_secret ?? []).length > 0
              ? html`<p class="field-error" id="f-client_secret-error">${form.errors.client_secret!.join('; ')}</p>`
              : ''
          }
          <input
            id="f-client_secret"
            name="client_secret"
            type="password"
            autocomplete="off"
            ${data.configured ? '' : html`required`}
          />
        </div>
        ${input({ name: 'scopes', label: SSO_LABELS.scopes!, form, hint: 'Default: openid email profile' })}
        ${textarea({ name: 'allowed_domains', label: SSO_LABELS.allowed_domains!, form, rows: 2, hint: 'One per line or separated by commas, e.g. example.com' })}
        ${checkbox({ name: 'jit_provisioning', label: SSO_LABELS.jit_provisioning!, form })}
        ${select({ name: 'default_role', label: SSO_LABELS.default_role!, form, options: data.roles, empty: 'The least-privileged role' })}
        ${input({ name: 'groups_claim', label: SSO_LABELS.groups_claim!, form, hint: 'Default: groups' })}
        ${textarea({
          name: 'group_roles',
          label: SSO_LABELS.group_roles!,
          form,
          rows: 4,
          hint: 'One per line: group = role, or group = role @ location (role and location by name)',
        })}
        ${select({ name: 'password_login', label: SSO_LABELS.password_login!, form, options: POLICIES })}
        <p><button type="submit">Save single sign-on</button></p>`,
      html`class="card" novalidate`,
    )}
    ${
      data.configured
        ? postForm(
            `${SSO_BASE}/delete`,
            csrf,
            html`<p><button type="submit" class="danger">Turn single sign-on off</button></p>`,
          )
        : ''
    }
    ${tokensSection(data, csrf, newToken)}`
  return page({ title: 'Single sign-on', actor, csrf, current: 'sso' }, body)
}

/** A single sign-on that did not end in a session: why, and the way back. */
export const ssoRefusedView = (reason: string) =>
  page(
    { title: 'Single sign-on did not sign you in' },
    html`${notice('alert', reason)}
      <p><a href="/console/sign-in">Back to the sign-in page</a></p>`,
  )
