/**
 * The read views an administrator expects — users (search, paging, invite, deactivate), locations, and
 * vendors (search, paging) — on the same list services as the API.
 */
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { Page } from '../db/paging.ts'
import { listeningPort, mailBase } from '../http/public-url.ts'
import { listLocations } from '../locations/service.ts'
import { listRoles } from '../lookups/service.ts'
import { createBatch, deactivateUser, getUser, listUsers } from '../users/service.ts'
import { listVendors } from '../vendors/service.ts'
import { sendPage, type ConsoleDeps } from './context.ts'
import { html, type Html } from './html.ts'
import { notice, page, postForm } from './layout.ts'

const PAGE_SIZE = 20
const ListQuery = Type.Object({
  search: Type.Optional(Type.String({ maxLength: 200 })),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  invited: Type.Optional(Type.String({ maxLength: 254 })),
  deactivated: Type.Optional(Type.String({ maxLength: 20 })),
})
type ListQuery = { search?: string; page?: number; invited?: string; deactivated?: string }
const Id = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2147483647 }) })
const Invite = Type.Object({
  email: Type.String({ maxLength: 254 }),
  first_name: Type.Optional(Type.String({ maxLength: 100 })),
  last_name: Type.Optional(Type.String({ maxLength: 100 })),
  // A role id as the select offers it: up to 9 digits (any more would not fit PostgreSQL's integer).
  role_id: Type.Optional(Type.String({ pattern: '^[0-9]{0,9}$' })),
})

function searchForm(path: string, label: string, search: string | undefined): Html {
  return html`<form method="get" action="${path}" role="search" class="card">
    <label for="search">${label}</label>
    <input id="search" name="search" type="search" value="${search ?? ''}" />
    <button type="submit">Search</button>
  </form>`
}

/** "Page 2 of 5" with previous/next links that keep the search. */
function pager(path: string, result: Page<unknown>, search: string | undefined): Html {
  const pages = Math.max(1, Math.ceil(result.count / result.page.pageSize))
  const link = (n: number) =>
    `${path}?${new URLSearchParams({ ...(search ? { search } : {}), page: String(n) }).toString()}`
  const current = result.page.page
  return html`<nav class="pager" aria-label="Pages">
    ${current > 1 ? html`<a href="${link(current - 1)}" rel="prev">Previous page</a>` : ''}
    <span>Page ${current} of ${pages} · ${result.count} in all</span>
    ${current < pages ? html`<a href="${link(current + 1)}" rel="next">Next page</a>` : ''}
  </nav>`
}

/** The list query a console list asks the service for: the page, its size, and the search if any. */
const pageQuery = (q: ListQuery) => ({
  page: q.page ?? 1,
  page_size: PAGE_SIZE,
  ...(q.search === undefined ? {} : { search: q.search }),
})

const table = (headings: string[], rows: Html[]) =>
  html`<table>
    <thead>
      <tr>
        ${headings.map((h) => html`<th scope="col">${h}</th>`)}
      </tr>
    </thead>
    <tbody>
      ${rows}
    </tbody>
  </table>`

export function directoryPages(app: FastifyInstance, deps: ConsoleDeps): void {
  const { db } = deps

  app.get('/users', { schema: { hide: true, querystring: ListQuery } }, async (request, reply) => {
    const { actor, csrf } = request.session
    const q = request.query as ListQuery
    const result = await listUsers(db, actor, pageQuery(q))
    const canManage = actor.permissions.has('superuser') || actor.permissions.has('nav_setting')
    const roles = canManage ? (await listRoles(db, actor, { page_size: 100 })).rows : []
    const body = html` ${q.invited !== undefined ? notice('status', `Invited ${q.invited}; the invitation e-mail is on its way.`) : ''}
    ${q.deactivated !== undefined ? notice('status', 'The user is deactivated; their sessions and applications stopped working.') : ''}
    ${searchForm('/console/users', 'Search users by name or e-mail', q.search)}
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
    ${pager('/console/users', result, q.search)}
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
                  ${roles.map((r) => html`<option value="${r.id}">${r.name}</option>`)}
                </select>
                <p><button type="submit">Send invitation</button></p>`,
            )}
          </section>`
        : ''
    }`
    return sendPage(reply, page({ title: 'Users', actor, csrf, current: 'users' }, body))
  })

  app.post('/users/invite', { schema: { hide: true, body: Invite } }, async (request, reply) => {
    const body = request.body as { email: string; first_name?: string; last_name?: string; role_id?: string }
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
    const { actor, csrf } = request.session
    const user = await getUser(db, actor, (request.params as { id: number }).id)
    const body = html`<p>
        Deactivate <strong>${user.email}</strong>? They are signed out everywhere, and their applications stop working.
      </p>
      ${postForm(`/console/users/${user.id}/deactivate`, csrf, html`<button type="submit" class="danger">Deactivate user</button> <a href="/console/users">Cancel</a>`)}`
    return sendPage(reply, page({ title: 'Deactivate user', actor, csrf, current: 'users' }, body))
  })

  app.post('/users/:id/deactivate', { schema: { hide: true, params: Id } }, async (request, reply) => {
    await deactivateUser(db, request.session.actor, (request.params as { id: number }).id)
    return reply.redirect('/console/users?deactivated=1', 303)
  })

  app.get('/locations', { schema: { hide: true, querystring: ListQuery } }, async (request, reply) => {
    const { actor, csrf } = request.session
    const q = request.query as ListQuery
    const result = await listLocations(db, actor, pageQuery(q))
    const body = html`${searchForm('/console/locations', 'Search locations by name', q.search)}
    ${table(
      ['Name', 'Currency', 'City', 'Departments', 'State'],
      result.rows.map(
        (l) =>
          html`<tr>
            <td>${l.name}${l.headquarter ? html` <span class="muted">(headquarters)</span>` : ''}</td>
            <td>${l.currency.name}</td>
            <td>${l.primary_shipping_address.city}</td>
            <td>${l.department_count}</td>
            <td>${l.active ? 'active' : 'inactive'}</td>
          </tr>`,
      ),
    )}
    ${pager('/console/locations', result, q.search)}`
    return sendPage(reply, page({ title: 'Locations', actor, csrf, current: 'locations' }, body))
  })

  app.get('/vendors', { schema: { hide: true, querystring: ListQuery } }, async (request, reply) => {
    const { actor, csrf } = request.session
    const q = request.query as ListQuery
    const result = await listVendors(db, deps.lookups, actor, pageQuery(q))
    const body = html`${searchForm('/console/vendors', 'Search vendors by name', q.search)}
    ${table(
      ['Name', 'City', 'Country', 'Contact', 'State'],
      result.rows.map(
        (v) =>
          html`<tr>
            <td>${v.name}</td>
            <td>${v.city || '—'}</td>
            <td>${v.country || '—'}</td>
            <td>${v.contact || '—'}</td>
            <td>${v.active ? 'active' : 'inactive'}</td>
          </tr>`,
      ),
    )}
    ${pager('/console/vendors', result, q.search)}`
    return sendPage(reply, page({ title: 'Vendors', actor, csrf, current: 'vendors' }, body))
  })
}
