/** My account: who I am, my role and permissions per location, pending approvals, and my sessions. */
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { mySessions, revokeMySession } from '../sessions/service.ts'
import { me } from '../users/me.service.ts'
import { sendPage, type ConsoleDeps } from './context.ts'
import { html } from './html.ts'
import { notice, page, postForm } from './layout.ts'

const Id = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2147483647 }) })

export function accountPages(app: FastifyInstance, deps: ConsoleDeps): void {
  app.get('/account', { schema: { hide: true } }, async (request, reply) => {
    const { actor, csrf, id: current } = request.session
    const [account, sessions] = await Promise.all([me(deps.db, actor), mySessions(deps.db, actor)])
    const query = request.query as { welcome?: string; revoked?: string }
    const access = Object.entries(account.systemaccess_cache.structured)
    const approvals = Object.entries(account.pending_approvals_count)
    const body = html` ${query.welcome !== undefined ? notice('status', 'Your password is set and you are signed in.') : ''}
      ${query.revoked !== undefined ? notice('status', 'The session was signed out.') : ''}
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
          <dd>
            ${account.department === null ? '—' : `${account.department.name}, ${account.department.branch.name}`}
          </dd>
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
                    ${s.id === current ? html`<span class="muted">this session</span>` : postForm(`/console/sessions/${s.id}/revoke`, csrf, html`<button type="submit" class="secondary">Sign out this session</button>`, html`class="inline"`)}
                  </td>
                </tr>`,
            )}
          </tbody>
        </table>
      </section>`
    return sendPage(reply, page({ title: 'My account', actor, csrf, current: 'me' }, body))
  })

  app.post('/sessions/:id/revoke', { schema: { hide: true, params: Id } }, async (request, reply) => {
    await revokeMySession(deps.db, request.session.actor, (request.params as { id: number }).id)
    return reply.redirect('/console/account?revoked=1', 303)
  })
}
