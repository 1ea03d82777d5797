/** Users: the list with search and paging, the invitation form, one user, and the deactivation question. */
import type { Page } from '../../core/list-query.ts'
import type { UserWithState } from '../../users/manage.service.ts'
import { permissionNames, userState } from './format.ts'
import { html, type Html } from './html.ts'
import { notice, page, postForm, type Frame } from './layout.ts'
import { emptyState, pager, searchForm, table } from './lists.ts'
import { grantsEditor, type GrantsEditor } from './user-forms.ts'

/** A role as pages name it: its name, and what it lets its holder do. */
export interface RoleInfo {
  id: number
  name: string
  permissions: readonly string[]
}

export interface UsersView {
  result: Page<UserWithState>
  search: string | undefined
  /** Whether the actor may invite and deactivate (then `roles` are the ones to offer). */
  canManage: boolean
  roles: readonly { id: number; name: string; permissions: readonly string[] }[]
  /** The active locations an invitation may name as the new user's home. */
  locations: readonly { id: number; name: string }[]
  invited: string | undefined
  /** Without a mail server: the invitation's link, for the administrator to hand over (undefined with one). */
  link?: string | undefined
  /** Whether a mail server sends the e-mail. */
  smtp?: boolean
  deactivated: boolean
}

/**
 * The role an invitation offers first: the standard Requester, else the role with the fewest permissions —
 * never Administrator by default (a mis-click should not hand out everything).
 */
function defaultRole(roles: UsersView['roles']): number | undefined {
  const requester = roles.find((r) => r.name === 'Requester')
  if (requester !== undefined) return requester.id
  return [...roles].sort((a, b) => a.permissions.length - b.permissions.length)[0]?.id
}

const nameOf = (u: { firstName: string; lastName: string }) => `${u.firstName} ${u.lastName}`.trim()

/**
 * What the page says after an invitation or a set-password link was made for `email`: with a mail server,
 * that the e-mail is on its way; without one, that no e-mail was sent, and the link to copy (when found).
 */
export function sentNotice(what: 'invitation' | 'link', email: string, smtp: boolean, link: string | undefined): Html {
  const thing = what === 'invitation' ? 'The invitation' : 'A new set-password link'
  if (smtp) return notice('status', `${thing} for ${email} is on its way by e-mail.`)
  return notice(
    'status',
    html`${thing} for ${email} is ready. <strong>No e-mail was sent</strong>: no mail server is configured.
      ${
        link === undefined
          ? html`Find the link in the <a href="/console/outbox">outbox</a> and give it to them.`
          : html`Copy this link and give it to them; it lets them choose a password:
              <code class="secret" id="invite-link">${link}</code>
              <button type="button" class="secondary" data-copy="invite-link" data-label="Link">Copy link</button>
              <span id="copy-status" role="status" class="muted"></span> All unsent e-mail is in the
              <a href="/console/outbox">outbox</a>.`
      }`,
  )
}

export function usersView(view: UsersView, { actor, csrf }: Frame): string {
  const { result, canManage } = view
  const invited =
    view.invited === undefined ? '' : sentNotice('invitation', view.invited, view.smtp ?? false, view.link)
  const body = html` ${invited}
  ${view.deactivated ? notice('status', 'The user is deactivated; their sessions and applications stopped working.') : ''}
  ${searchForm('/console/users', 'Search users by name or e-mail', view.search)}
  ${
    result.count === 0
      ? emptyState(
          view.search === undefined
            ? canManage
              ? 'No users yet. Invite someone with the form below.'
              : 'No users yet. An administrator can invite them.'
            : `No user matches “${view.search}”. Try part of the name or e-mail address.`,
        )
      : html`${table(
          ['Name', 'E-mail', 'Role', 'Location', 'State'],
          result.rows.map(
            (u) =>
              html`<tr data-href="/console/users/${u.id}">
                <td><a href="/console/users/${u.id}">${nameOf(u) || u.email}</a></td>
                <td>${u.email}</td>
                <td>${u.role.name}</td>
                <td>${u.location?.name ?? '—'}</td>
                <td>${userState(u)}</td>
              </tr>`,
          ),
        )}
        ${pager('/console/users', result, view.search)}`
  }
  ${
    canManage
      ? html`<section aria-labelledby="invite">
          <h2 id="invite">Invite a user</h2>
          ${postForm(
            '/console/users/invite',
            csrf,
            html`<label for="invite-email">Email</label><input id="invite-email" name="email" type="email" required />
              <label for="invite-first">First name</label><input id="invite-first" name="first_name" type="text" />
              <label for="invite-last">Last name</label><input id="invite-last" name="last_name" type="text" />
              <label for="invite-role">Role</label>
              <select id="invite-role" name="role_id" aria-describedby="invite-role-hint">
                ${view.roles.map(
                  (r) =>
                    html`<option value="${r.id}" ${r.id === defaultRole(view.roles) ? html`selected` : ''}>
                      ${r.name}
                    </option>`,
                )}
              </select>
              <p class="hint" id="invite-role-hint">What they may do; change it later on their page.</p>
              <label for="invite-location">Location</label>
              <select id="invite-location" name="location">
                <option value="">No location yet</option>
                ${view.locations.map(
                  (l, i) => html`<option value="${l.id}" ${i === 0 ? html`selected` : ''}>${l.name}</option>`,
                )}
              </select>
              <p><button type="submit">Send invitation</button></p>`,
          )}
        </section>`
      : ''
  }`
  return page({ title: 'Users', actor, csrf, current: 'users' }, body)
}

export interface UserDetailView {
  user: UserWithState
  /** The user's role with its permissions (undefined if the role list did not have it). */
  role: RoleInfo | undefined
  /** Whether the actor may manage users: then the actions and the grants editor show. */
  canManage: boolean
  flash?: string | undefined
  /** A link just made for the user: what it was, and without a mail server the link itself. */
  sent?: { what: 'invitation' | 'link'; smtp: boolean; link: string | undefined } | undefined
  grants?: GrantsEditor | undefined
}

const action = (path: string, csrf: string, label: string, kind = 'secondary') =>
  postForm(path, csrf, html`<button type="submit" class="${kind}">${label}</button>`, html`class="inline"`)

export function userView(view: UserDetailView, { actor, csrf }: Frame): string {
  const { user, canManage } = view
  const state = userState(user)
  const self = user.user === actor.userId
  const actions = canManage
    ? html`<a class="button" href="/console/users/${user.id}/edit">Edit</a>
        ${state === 'Invited' ? action(`/console/users/${user.id}/invitation`, csrf, 'Re-send invitation') : ''}
        ${state === 'Active' ? action(`/console/users/${user.id}/set-password-link`, csrf, 'New set-password link') : ''}
        ${
          !user.is_active
            ? action(`/console/users/${user.id}/activate`, csrf, 'Reactivate')
            : self
              ? ''
              : html`<a class="button secondary" href="/console/users/${user.id}/deactivate">Deactivate</a>`
        }`
    : ''
  const delegatee = user.approval_delegatee
  const body = html`${view.flash === undefined ? '' : notice('status', view.flash)}
    ${view.sent === undefined ? '' : sentNotice(view.sent.what, user.email, view.sent.smtp, view.sent.link)}
    <div class="actions">${actions} <a href="/console/users">All users</a></div>
    <section aria-labelledby="details">
      <h2 id="details">Details</h2>
      <dl>
        <dt>State</dt>
        <dd>${state}${state === 'Invited' ? html` <span class="muted">(has not chosen a password yet)</span>` : ''}</dd>
        <dt>E-mail</dt>
        <dd>${user.email}</dd>
        <dt>Role</dt>
        <dd>
          ${user.role.name}${
            view.role === undefined ? '' : html` <span class="muted">(${permissionNames(view.role.permissions)})</span>`
          }
        </dd>
        <dt>Home location</dt>
        <dd>
          ${user.location === null ? '—' : html`<a href="/console/locations/${user.location.id}">${user.location.name}</a>`}
        </dd>
        <dt>Department</dt>
        <dd>${user.department === null ? '—' : `${user.department.name} (${user.department.location.name})`}</dd>
        <dt>Phone</dt>
        <dd>${user.phone || '—'}</dd>
        <dt>Position</dt>
        <dd>${user.position || '—'}</dd>
        <dt>Pending approvals</dt>
        <dd>${user.pending_approvals_count.order}</dd>
        <dt>Away</dt>
        <dd>
          ${
            delegatee === null
              ? 'No'
              : html`Approvals go to
                  <a href="/console/users/${delegatee.id}">${nameOf(delegatee) || delegatee.email}</a>${
                    user.expected_return_date === null ? '' : html` until ${user.expected_return_date}`
                  }`
          }
        </dd>
      </dl>
    </section>
    ${canManage && view.grants !== undefined ? grantsEditor(user.id, view.grants, csrf) : ''}`
  return page({ title: nameOf(user) || user.email, actor, csrf, current: 'users' }, body)
}

export function deactivateView(user: { id: number; email: string }, { actor, csrf }: Frame): string {
  const body = html`<p>
      Deactivate <strong>${user.email}</strong>? They are signed out everywhere, and their applications stop working.
      You can reactivate them later.
    </p>
    ${postForm(`/console/users/${user.id}/deactivate`, csrf, html`<button type="submit" class="danger">Deactivate user</button> <a href="/console/users/${user.id}">Cancel</a>`)}`
  return page({ title: 'Deactivate user', actor, csrf, current: 'users' }, body)
}
