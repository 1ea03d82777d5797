/** My account: profile, roles and permissions per location, pending approvals, and where I am signed in. */
import type { Actor } from '../../access/actor.ts'
import type { Me } from '../../users/schema.ts'
import { html } from './html.ts'
import { notice, page, postForm } from './layout.ts'

export interface SessionRow {
  id: number
  created_at: Date
  last_seen_at: Date
  user_agent: string
  address: string
}

export interface AccountView {
  account: Me
  sessions: readonly SessionRow[]
  current: number
  welcome: boolean
  revoked: boolean
}

export function accountView(view: AccountView, frame: { actor: Actor; csrf: string }): string {
  const { account, sessions, current } = view
  const access = Object.entries(account.systemaccess_cache.structured)
  const approvals = Object.entries(account.pending_approvals_count)
  const body = html` ${view.welcome ? notice('status', 'Your password is set and you are signed in.') : ''}
    ${view.revoked ? notice('status', 'The session was signed out.') : ''}
    <section aria-labelledby="profile">
      <h2 id="profile">Profile</h2>
      <dl>
        <dt>Name</dt>
        <dd>${`${account.firstName} ${account.lastName}`.trim() || '—'}</dd>
        <dt>E-mail</dt>
        <dd>${account.email}</dd>
        <dt>Company</dt>
        <dd>${account.domains.service_domains.map((d) => `${d.name} (${d.subdomain})`).join(', ')}</dd>
        <dt>Position</dt>
        <dd>${account.position || '—'}</dd>
        <dt>Department</dt>
        <dd>${account.department === null ? '—' : `${account.department.name}, ${account.department.branch.name}`}</dd>
      </dl>
    </section>
    <section aria-labelledby="permissions">
      <h2 id="permissions">Roles and permissions</h2>
      <table>
        <caption class="muted">
          Where each role applies: "system" is everywhere in the company.
        </caption>
        <thead>
          <tr>
            <th scope="col">Where</th>
            <th scope="col">Roles</th>
            <th scope="col">Permissions</th>
          </tr>
        </thead>
        <tbody>
          ${access.map(
            ([where, entry]) =>
              html`<tr>
                <td>${where === 'system' ? 'system' : `location ${where}`}</td>
                <td>${entry.roles.map((r) => r.name).join(', ')}</td>
                <td>${entry.flattened.join(', ')}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </section>
    <section aria-labelledby="approvals">
      <h2 id="approvals">Pending approvals</h2>
      <dl>
        ${approvals.map(
          ([kind, count]) =>
            html`<dt>${kind}</dt>
              <dd>${count}</dd>`,
        )}
      </dl>
    </section>
    <section aria-labelledby="sessions">
      <h2 id="sessions">Where you are signed in</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Signed in</th>
            <th scope="col">Last seen</th>
            <th scope="col">Browser</th>
            <th scope="col">Address</th>
            <th scope="col"><span class="muted">Action</span></th>
          </tr>
        </thead>
        <tbody>
          ${sessions.map(
            (s) =>
              html`<tr>
                <td>${s.created_at.toISOString()}</td>
                <td>${s.last_seen_at.toISOString()}</td>
                <td>${s.user_agent || '—'}</td>
                <td>${s.address || '—'}</td>
                <td>
                  ${s.id === current ? html`<span class="muted">this session</span>` : postForm(`/console/sessions/${s.id}/revoke`, frame.csrf, html`<button type="submit" class="secondary">Sign out this session</button>`, html`class="inline"`)}
                </td>
              </tr>`,
          )}
        </tbody>
      </table>
    </section>`
  return page({ title: 'My account', actor: frame.actor, csrf: frame.csrf, current: 'me' }, body)
}
