/**
 * Deleting a role from Set-up (DECISIONS, "Daily use of the console"): through the service behind the API's
 * `DELETE /api/v3/roles/{id}/`, so the same rules hold — a role someone holds (as their own role or at a
 * location) is not deleted, and the page names who holds it so they can be given another role first; a role
 * carrying a permission the person lacks is refused with the service's reason. The roles list says how many
 * hold each role and offers Delete for the unused ones.
 */
import { sql, type Kysely } from 'kysely'
import { requireMayGrant } from '../../access/containment.ts'
import { permissionName } from '../../core/permission-names.ts'
import { Problem } from '../../core/problem.ts'
import type { DB, PermissionKey } from '../../db/schema.ts'
import { deleteRole, getRole } from '../../roles/service.ts'
import { sendPage, type ConsoleApp, type ConsoleDeps, type ConsoleSession } from '../context.ts'
import { html } from '../views/html.ts'
import { deleteRoleView, type RoleHolder } from '../views/setup.ts'
import { Id } from './forms.ts'
import type { Kind } from './setup-kind.ts'

/** The most holders a page names (the rest are counted). */
const NAMED = 50

const people = (n: number) => `${n} ${n === 1 ? 'person' : 'people'}`

/** How many people hold each role of the tenant (as their own role or by a grant), by role id. */
async function holderCounts(db: Kysely<DB>, tenantId: number, roleId?: number): Promise<Map<number, number>> {
  let own = db.selectFrom('user_profiles').select(['user_id', 'role_id']).where('tenant_id', '=', tenantId)
  let granted = db.selectFrom('role_grants').select(['user_id', 'role_id']).where('tenant_id', '=', tenantId)
  if (roleId !== undefined) {
    own = own.where('role_id', '=', roleId)
    granted = granted.where('role_id', '=', roleId)
  }
  const rows = await db
    .selectFrom(own.unionAll(granted).as('h'))
    .select(['h.role_id', sql<number>`count(distinct h.user_id)::int`.as('n')])
    .groupBy('h.role_id')
    .execute()
  return new Map(rows.map((r) => [r.role_id, Number(r.n)]))
}

/** Who holds the role (the first NAMED, by name), each with how they hold it, and how many hold it in all. */
async function holdersOf(db: Kysely<DB>, tenantId: number, roleId: number) {
  const total = (await holderCounts(db, tenantId, roleId)).get(roleId) ?? 0
  if (total === 0) return { holders: [], total }
  const users = await db
    .selectFrom('users as u')
    .leftJoin('user_profiles as p', (join) =>
      join.onRef('p.user_id', '=', 'u.id').onRef('p.tenant_id', '=', 'u.tenant_id'),
    )
    .select(['u.id', 'u.email', 'u.is_active', 'p.first_name', 'p.last_name', 'p.role_id'])
    .where('u.tenant_id', '=', tenantId)
    .where((eb) =>
      eb.or([
        eb('p.role_id', '=', roleId),
        eb.exists(
          eb
            .selectFrom('role_grants as g')
            .select('g.id')
            .whereRef('g.user_id', '=', 'u.id')
            .where('g.tenant_id', '=', tenantId)
            .where('g.role_id', '=', roleId),
        ),
      ]),
    )
    .orderBy('p.last_name')
    .orderBy('p.first_name')
    .orderBy('u.email')
    .orderBy('u.id')
    .limit(NAMED)
    .execute()
  const grants =
    users.length === 0
      ? []
      : await db
          .selectFrom('role_grants as g')
          .leftJoin('locations as l', (join) =>
            join.onRef('l.id', '=', 'g.location_id').onRef('l.tenant_id', '=', 'g.tenant_id'),
          )
          .select(['g.user_id', 'g.location_id', 'l.name'])
          .where('g.tenant_id', '=', tenantId)
          .where('g.role_id', '=', roleId)
          .where(
            'g.user_id',
            'in',
            users.map((u) => u.id),
          )
          .orderBy('l.name')
          .execute()
  const holders: RoleHolder[] = users.map((u) => {
    const own = u.role_id === roleId
    const mine = grants.filter((g) => g.user_id === u.id)
    return {
      id: u.id,
      name: `${u.first_name ?? ''} ${u.last_name ?? ''}`.trim() || u.email,
      email: u.email,
      active: u.is_active,
      own,
      // A grant without a location is the one their own role carries; any other such grant holds everywhere.
      everywhere: !own && mine.some((g) => g.location_id === null),
      at: mine.flatMap((g) => (g.location_id === null ? [] : [g.name ?? `location ${g.location_id}`])),
    }
  })
  return { holders, total }
}

/** The roles list with a "Held by" column: how many hold each role, and Delete for a role no one holds. */
export function withDelete(roles: Kind, base: string): Kind {
  return {
    ...roles,
    headings: [...roles.headings, 'Held by'],
    rows: async (db, actor) => {
      const [rows, counts] = await Promise.all([roles.rows(db, actor), holderCounts(db, actor.tenantId)])
      return rows.map((r) => ({ ...r, holders: counts.get(r.id) ?? 0 }))
    },
    cells: (r) => [
      ...roles.cells(r),
      r.holders === 0
        ? html`No one · <a href="${base}/${r.id}/delete">Delete<span class="visually-hidden"> ${r.name}</span></a>`
        : people(Number(r.holders)),
    ],
  }
}

/** The "Delete" section under a role's edit form. */
export const deleteSection = (base: string, id: number, holders: number) =>
  html`<section aria-labelledby="delete">
    <h2 id="delete">Delete</h2>
    <p>
      ${
        holders === 0
          ? 'No one holds this role: you can delete it.'
          : `${people(holders)} hold${holders === 1 ? 's' : ''} this role: give them another role first. Delete shows who they are.`
      }
    </p>
    <p class="actions"><a class="button danger" href="${base}/${id}/delete">Delete role</a></p>
  </section>`

/** Registers the role's delete page (GET: the question, or who holds it) and the delete itself (POST). */
export function roleDeletePages(app: ConsoleApp, deps: ConsoleDeps, base: string): void {
  const { db } = deps

  async function deletePage(session: ConsoleSession, id: number, refusal?: string) {
    const { actor } = session
    const role = await getRole(db, actor, id)
    let why = refusal
    try {
      requireMayGrant(actor, [{ role: role.name, permissions: role.permissions as PermissionKey[] }])
    } catch (error) {
      if (!(error instanceof Problem) || error.status !== 403) throw error
      why = error.detail
    }
    const { holders, total } = await holdersOf(db, actor.tenantId, id)
    return deleteRoleView(
      {
        role: { id, name: role.name, permissions: role.permissions.map(permissionName).join(', ') || 'no permissions' },
        holders,
        total,
        refusal:
          why === undefined
            ? undefined
            : `You cannot delete the role “${role.name}”. ${why} Ask a superuser to delete it, or leave it as it is.`,
        base,
      },
      session,
    )
  }

  app.get('/settings/setup/roles/:id/delete', { schema: { hide: true, params: Id } }, async (request, reply) =>
    sendPage(reply, await deletePage(request.session, request.params.id)),
  )

  app.post('/settings/setup/roles/:id/delete', { schema: { hide: true, params: Id } }, async (request, reply) => {
    const { id } = request.params
    try {
      await deleteRole(db, request.session.actor, id)
    } catch (error) {
      // In use (409): the page names who holds it. Not this person's to delete (403): the service's reason.
      if (!(error instanceof Problem) || (error.status !== 409 && error.status !== 403)) throw error
      const refusal = error.status === 403 ? error.detail : undefined
      return sendPage(reply, await deletePage(request.session, id, refusal), error.status)
    }
    return reply.redirect(`${base}?done=deleted`, 303)
  })
}
