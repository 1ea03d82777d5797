/** Users: the list with search and paging, the invitation form, and the deactivation question. */
import type { Actor } from '../../access/actor.ts'
import type { Page } from '../../core/list-query.ts'
import type { UserProfile } from '../../users/schema.ts'
import { html } from './html.ts'
import { notice, page, postForm } from './layout.ts'
import { pager, searchForm, table } from './lists.ts'

interface Frame {
  actor: Actor
  csrf: string
}

export interface UsersView {
  result: Page<UserProfile>
  search: string | undefined
  /** Whether the actor may invite and deactivate (then `roles` are the ones to offer). */
  canManage: boolean
  roles: readonly { id: number; name: string }[]
  invited: string | undefined
  deactivated: boolean
}

export function usersView(view: UsersView, { actor, csrf }: Frame): string {
  const { result, canManage } = view
  const body = html` ${view.invited !== undefined ? notice('status', `Invited ${view.invited}; the invitation e-mail is on its way.`) : ''}
  ${view.deactivated ? notice('status', 'The user is deactivated; their sessions and applications stopped working.') : ''}
  ${searchForm('/console/users', 'Search users by name or e-mail', view.search)}
  ${table(
    ['Name', 'E-mail', 'Role', 'Location', 'State', ...(canManage ? ['Action'] : [])],
    result.rows.map(
      (u) =>
        html`<tr>
          <td>${`${u.firstName} ${u.lastName}`.trim() || '—'}</td>
          <td>${u.email}</td>
          <td>${u.role.name}</td>
          <td>${u.location?.name ?? '—'}</td>
          <td>${u.is_active ? 'active' : 'deactivated'}</td>
          ${canManage ? html`<td>${u.is_active && u.user !== actor.userId ? html`<a class="button secondary" href="/console/users/${u.id}/deactivate">Deactivate</a>` : ''}</td>` : ''}
        </tr>`,
    ),
  )}
  ${pager('/console/users', result, view.search)}
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
              <select id="invite-role" name="role_id">
                ${view.roles.map((r) => html`<option value="${r.id}">${r.name}</option>`)}
              </select>
              <p><button type="submit">Send invitation</button></p>`,
          )}
        </section>`
      : ''
  }`
  return page({ title: 'Users', actor, csrf, current: 'users' }, body)
}

export function deactivateView(user: UserProfile, { actor, csrf }: Frame): string {
  const body = html`<p>
      Deactivate <strong>${user.email}</strong>? They are signed out everywhere, and their applications stop working.
    </p>
    ${postForm(`/console/users/${user.id}/deactivate`, csrf, html`<button type="submit" class="danger">Deactivate user</button> <a href="/console/users">Cancel</a>`)}`
  return page({ title: 'Deactivate user', actor, csrf, current: 'users' }, body)
}
