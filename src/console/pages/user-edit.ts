/**
 * A user edited in the console — name, role, home location and department, phone, position — through the
 * user service's edit (the API's PUT with everything else kept), so references and containment are checked
 * as the API checks them; and the two links an administrator sends: a new invitation for an invited user, a
 * new set-password link for an active one. Each write answers with a redirect (a reload never repeats it).
 */
import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { requireAny } from '../../access/actor.ts'
import { Problem } from '../../core/problem.ts'
import { bodyChecker } from '../../http/body-check.ts'
import { listLocations } from '../../locations/service.ts'
import { listDepartments, listRoles } from '../../lookups/service.ts'
import { editUser, getUserWithState, resendInvitation, sendSetPasswordLink } from '../../users/manage.service.ts'
import { SingleUser, type UserProfile } from '../../users/schema.ts'
import { mailBaseOf, sendPage, type ConsoleApp, type ConsoleDeps, type ConsoleSession } from '../context.ts'
import type { FormState, Values } from '../views/forms.ts'
import { USER_LABELS, userFormView, type UserChoices } from '../views/user-forms.ts'
import { allRows, attempt, errorsFor, FormBody, Id, valuesOf } from './forms.ts'

const FIELDS = Object.keys(USER_LABELS)
const Edit = Type.Object(
  {
    ...Type.Pick(SingleUser, ['firstName', 'lastName', 'location', 'department', 'phone', 'position']).properties,
    role_id: SingleUser.properties.role_id,
  },
  { additionalProperties: false },
)
const check = bodyChecker(Edit)

/** The body the form stands for: names as typed (trimmed), ids as numbers ('' for none). */
function bodyOf(values: Values): Record<string, unknown> {
  const text = (name: string) => (values[name] ?? '').trim()
  const id = (name: string) => {
    const value = text(name)
    return value === '' ? null : /^\d{1,10}$/.test(value) ? Number(value) : value
  }
  const role = id('role_id')
  return {
    firstName: text('firstName'),
    lastName: text('lastName'),
    location: id('location'),
    department: id('department'),
    phone: text('phone'),
    position: text('position'),
    ...(role === null ? {} : { role_id: role }),
  }
}

const valuesOfUser = (u: UserProfile): Values => ({
  firstName: u.firstName,
  lastName: u.lastName,
  role_id: String(u.role.id),
  location: u.location === null ? '' : String(u.location.id),
  department: u.department === null ? '' : String(u.department.id),
  phone: u.phone,
  position: u.position,
})

export function userEditPages(app: ConsoleApp, deps: ConsoleDeps): void {
  const { db } = deps

  async function choices(session: ConsoleSession): Promise<UserChoices> {
    const { actor } = session
    const [roles, locations, departments] = await Promise.all([
      allRows((query) => listRoles(db, actor, query)),
      allRows((query) => listLocations(db, actor, query)),
      allRows((query) => listDepartments(db, actor, query)),
    ])
    return {
      roles: roles.map((r) => ({ value: String(r.id), label: r.name })),
      locations: locations.map((l) => ({ value: String(l.id), label: l.name })),
      departments: departments.map((d) => ({ value: String(d.id), label: `${d.name} (${d.branch.name})` })),
    }
  }

  const showForm = async (
    session: ConsoleSession,
    user: { id: number; email: string; firstName: string; lastName: string },
    form: FormState,
    general?: string,
  ) => {
    const title = `Edit ${`${user.firstName} ${user.lastName}`.trim() || user.email}`
    return userFormView(form, await choices(session), { id: user.id, email: user.email, title }, session, general)
  }

  app.get('/users/:id/edit', { schema: { hide: true, params: Id } }, async (request, reply) => {
    // The form is for those who may save it (the service says the same on POST).
    requireAny(request.session.actor, 'superuser', 'nav_setting')
    const user = await getUserWithState(db, request.session.actor, request.params.id)
    return sendPage(reply, await showForm(request.session, user, { values: valuesOfUser(user), errors: {} }))
  })

  app.post('/users/:id/edit', { schema: { hide: true, params: Id, body: FormBody } }, async (request, reply) => {
    const { id } = request.params
    const { actor } = request.session
    requireAny(actor, 'superuser', 'nav_setting')
    const user = await getUserWithState(db, actor, id)
    const values = valuesOf(request.body, FIELDS)
    const checked = check(bodyOf(values))
    try {
      const result = checked.ok
        ? await attempt(values, FIELDS, () => editUser(db, actor, id, checked.value))
        : { ok: false as const, form: { values, errors: errorsFor(checked.errors, FIELDS) } }
      if (!result.ok) return sendPage(reply, await showForm(request.session, user, result.form), 400)
    } catch (error) {
      // Containment: the page says what is missing, and what was typed stays.
      if (!(error instanceof Problem) || error.status !== 403) throw error
      return sendPage(reply, await showForm(request.session, user, { values, errors: {} }, error.detail), 403)
    }
    return reply.redirect(`/console/users/${id}?done=saved`, 303)
  })

  const base = (request: FastifyRequest) => mailBaseOf(deps, request.session.actor.domain)

  app.post('/users/:id/invitation', { schema: { hide: true, params: Id } }, async (request, reply) => {
    await resendInvitation(db, request.session.actor, request.params.id, base(request))
    return reply.redirect(`/console/users/${request.params.id}?done=invited`, 303)
  })

  app.post('/users/:id/set-password-link', { schema: { hide: true, params: Id } }, async (request, reply) => {
    await sendSetPasswordLink(db, request.session.actor, request.params.id, base(request))
    return reply.redirect(`/console/users/${request.params.id}?done=link`, 303)
  })
}
