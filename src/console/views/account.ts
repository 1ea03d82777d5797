/** My account: profile, roles and permissions per location, pending approvals, and where I am signed in. */
import type { Actor } from '../../access/actor.ts'
import type { Delegation, Me } from '../../users/schema.ts'
import { browserOf, permissionNames, when } from './format.ts'
import { errorSummary, input, select, type FormState, type Option } from './forms.ts'
import { html, type Html } from './html.ts'
import { notice, page, postForm } from './layout.ts'

const KINDS: Readonly<Record<string, string>> = {
  order: 'Purchase requests',
  expense: 'Expenses',
  travel: 'Travel',
  bill: 'Bills',
  payment: 'Payments',
}

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
  /** Names of the locations the access table mentions, by id. */
  locationNames: ReadonlyMap<string, string>
  /** The out-of-office delegation in force, and the form that sets one. */
  delegation?: DelegationPart
  /** Whether approval e-mail reaches them (absent: the section is not shown). */
  approvalEmails?: boolean
}

export interface DelegationPart {
  current: Delegation
  /** Active users who may stand in (everyone active but the user). */
  users: readonly Option[]
  form: FormState
  /** What just happened (set, ended), or why the form was refused. */
  flash?: string | undefined
}

export const DELEGATION_LABELS = { delegatee: 'Who decides for you', expected_return_date: 'Last day away' }

/** While away: who decides your approvals, until when; set, replace or end it. */
function delegationSection(part: DelegationPart, csrf: string): Html {
  const { current, form } = part
  const who = current.delegatee
  return html`<section aria-labelledby="away">
    <h2 id="away">Out of office</h2>
    ${part.flash === undefined ? '' : notice('status', part.flash)} ${errorSummary(form, DELEGATION_LABELS)}
    ${
      who === null
        ? html`<p>You are not away: your approvals come to you.</p>`
        : html`<p data-testid="delegation">
              Your approvals go to <strong>${`${who.first_name} ${who.last_name}`.trim() || who.email}</strong>
              (${who.email})
              ${current.expected_return_date === null ? 'until you end it' : html`until the end of ${current.expected_return_date} (UTC)`}.
            </p>
            ${postForm('/console/account/delegation/end', csrf, html`<button type="submit" class="secondary">End the delegation</button>`)}`
    }
    ${postForm(
      '/console/account/delegation',
      csrf,
      html`${select({ name: 'delegatee', label: DELEGATION_LABELS.delegatee, form, options: part.users, empty: 'Choose a person', required: true, hint: 'They see, count and decide your pending approvals while you are away.' })}
        ${input({ name: 'expected_return_date', label: DELEGATION_LABELS.expected_return_date, form, type: 'date', hint: 'The delegation ends by itself after this day (UTC). Leave it empty to end it yourself.' })}
        <p class="actions">
          <button type="submit">${who === null ? 'Set the delegation' : 'Replace the delegation'}</button>
        </p>`,
      html`novalidate`,
    )}
  </section>`
}

export function accountView(view: AccountView, frame: { actor: Actor; csrf: string }): string {
  const { account, sessions, current } = view
  const access = Object.entries(account.systemaccess_cache.structured)
  // Only the kinds something creates: orders always, any other kind once it counts something.
  const approvals = Object.entries(account.pending_approvals_count).filter(([kind, n]) => kind === 'order' || n > 0)
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
      <div class="table-wrap">
        <table>
          <caption class="muted">
            Where each role applies: "Everywhere" is the whole company.
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
                  <td>${where === 'system' ? 'Everywhere' : (view.locationNames.get(where) ?? `Location ${where}`)}</td>
                  <td>${entry.roles.map((r) => r.name).join(', ')}</td>
                  <td>${permissionNames(entry.flattened)}</td>
                </tr>`,
            )}
          </tbody>
        </table>
      </div>
    </section>
    <section aria-labelledby="approvals">
      <h2 id="approvals">Pending approvals</h2>
      <dl>
        ${approvals.map(
          ([kind, count]) =>
            html`<dt>${KINDS[kind] ?? kind}</dt>
              <dd>${count}</dd>`,
        )}
      </dl>
    </section>
    ${view.approvalEmails === undefined ? '' : emailSection(view.approvalEmails, frame.csrf)}
    ${view.delegation === undefined ? '' : delegationSection(view.delegation, frame.csrf)}
    <section aria-labelledby="sessions">
      <h2 id="sessions">Where you are signed in</h2>
      <div class="table-wrap">
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
                  <td>${when(s.created_at)}</td>
                  <td>${when(s.last_seen_at)}</td>
                  <td>${browserOf(s.user_agent)}</td>
                  <td>${s.address || '—'}</td>
                  <td>
                    ${s.id === current ? html`<span class="muted">this session</span>` : postForm(`/console/sessions/${s.id}/revoke`, frame.csrf, html`<button type="submit" class="secondary">Sign out this session</button>`, html`class="inline"`)}
                  </td>
                </tr>`,
            )}
          </tbody>
        </table>
      </div>
    </section>`
  return page({ title: 'My account', actor: frame.actor, csrf: frame.csrf, current: 'me' }, body)
}

/** Approval e-mail on or off. */
function emailSection(on: boolean, csrf: string) {
  return html`<section aria-labelledby="email">
    <h2 id="email">E-mail</h2>
    <p>
      ${on ? 'You get an e-mail when an approval waits for you and when your requests are approved or rejected.' : 'You get no approval e-mail.'}
    </p>
    ${postForm(
      '/console/account/notifications',
      csrf,
      html`<input type="hidden" name="approval_emails" value="${on ? 'off' : 'on'}" />
        <button type="submit" class="secondary">
          ${on ? 'Turn approval e-mail off' : 'Turn approval e-mail on'}
        </button>`,
    )}
  </section>`
}
