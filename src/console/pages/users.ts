/**
 * Users in the console: the list (search, paging), invite, one user with their roles at locations,
 * deactivate and reactivate — on the same services as the API, so containment and every other rule is the
 * API's. Edits and the set-password links are in user-edit.ts.
 */
import { Type } from 'typebox'
import { requireAny, type Actor } from '../../access/actor.ts'
import { Problem } from '../../core/problem.ts'
import { emailKey } from '../../db/email.ts'
import { listLocations } from '../../locations/service.ts'
import { listRoles } from '../../lookups/service.ts'
import { tenantOutbox } from '../../mail/service.ts'
import { activateUser, getLocationRoles, replaceLocationRoles } from '../../users/grants.service.ts'
import { getUserWithState, listUsersWithState } from '../../users/manage.service.ts'
import { createBatch, deactivateUser, getUser } from '../../users/service.ts'
import { mailBaseOf, sendPage, type ConsoleApp, type ConsoleDeps, type ConsoleSession } from '../context.ts'
import type { Errors, FormState } from '../views/forms.ts'
import type { GrantsEditor } from '../views/user-forms.ts'
import { deactivateView, usersView, userView, type UserDetailView } from '../views/users.ts'
import { allRows, Done, errorsFor, flashOf, FormBody, Id } from './forms.ts'

const PAGE_SIZE = 20
/** A set-password link as the e-mail carries it. */
const SETUP_LINK = /https?:\/\/\S+\/console\/setup\/[A-Za-z0-9_-]+/
const ListQuery = Type.Object({
  search: Type.Optional(Type.String({ maxLength: 200 })),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  invited: Type.Optional(Type.String({ maxLength: 254 })),
  deactivated: Type.Optional(Type.String({ maxLength: 20 })),
})
const Invite = Type.Object({
  email: Type.String({ maxLength: 254 }),
  first_name: Type.Optional(Type.String({ maxLength: 100 })),
  last_name: Type.Optional(Type.String({ maxLength: 100 })),
  // A role id as the select offers it: up to 9 digits (any more would not fit PostgreSQL's integer).
  role_id: Type.Optional(Type.String({ pattern: '^[0-9]{0,9}$' })),
  // The new user's home location (and the location their role applies at), as the select offers it.
  location: Type.Optional(Type.String({ pattern: '^[0-9]{0,9}$' })),
})
const flash = flashOf({
  saved: 'Your changes are saved.',
  activated: 'The user is active again and can sign in; their roles apply again.',
  grants: 'Their roles at locations are saved.',
})
/** The `done` values after which the page shows the link just made. */
const SENT = { invited: 'invitation', link: 'link' } as const

export const canManageUsers = (actor: Actor) =>
  actor.permissions.has('superuser') || actor.permissions.has('nav_setting')

/** A grant field's name: `grant.<location id>.<n>`. */
const GRANT_FIELD = /^grant\.(\d{1,9})\.(\d{1,3})$/

export function userPages(app: ConsoleApp, deps: ConsoleDeps): void {
  const { db } = deps
  const smtp = deps.config.SMTP_URL !== undefined

  /** The set-password link of the newest unsent e-mail to `email` in the actor's tenant (no mail server). */
  const linkFor = async (actor: Actor, email: string) => {
    const messages = await tenantOutbox(db, actor, false)
    const message = messages.find((m) => emailKey(m.to_address) === emailKey(email))
    return message === undefined ? undefined : SETUP_LINK.exec(message.body_text)?.[0]
  }

  app.get('/users', { schema: { hide: true, querystring: ListQuery } }, async (request, reply) => {
    const { actor } = request.session
    const q = request.query
    const result = await listUsersWithState(db, actor, {
      page: q.page ?? 1,
      page_size: PAGE_SIZE,
      ...(q.search === undefined ? {} : { search: q.search }),
    })
    const canManage = canManageUsers(actor)
    const roles = canManage ? await allRows((query) => listRoles(db, actor, query)) : []
    const locations = canManage
      ? (await allRows((query) => listLocations(db, actor, { ...query, active: true }))).map((l) => ({
          id: l.id,
          name: l.name,
        }))
      : []
    const view = {
      locations,
      result,
      search: q.search,
      canManage,
      roles,
      invited: q.invited,
      smtp,
      link: q.invited !== undefined && canManage && !smtp ? await linkFor(actor, q.invited) : undefined,
      deactivated: q.deactivated !== undefined,
    }
    return sendPage(reply, usersView(view, request.session))
  })

  app.post('/users/invite', { schema: { hide: true, body: Invite } }, async (request, reply) => {
    const body = request.body
    const roleId = body.role_id === undefined || body.role_id === '' ? undefined : Number(body.role_id)
    const location = body.location === undefined || body.location === '' ? undefined : Number(body.location)
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
          ...(location === undefined ? {} : { home_location: location, locations: [location] }),
        },
      ],
      mailBaseOf(deps, request.session.actor.domain),
    )
    return reply.redirect(`/console/users?invited=${encodeURIComponent(body.email)}`, 303)
  })

  /** The user's page; `grantsForm` is a posted editor to show again (with its errors) instead of the stored grants. */
  async function userPage(
    session: ConsoleSession,
    id: number,
    done: string | undefined,
    grantsForm?: { form: FormState; general?: string },
  ): Promise<string> {
    const { actor } = session
    const user = await getUserWithState(db, actor, id)
    const canManage = canManageUsers(actor)
    const roles = await allRows((query) => listRoles(db, actor, query))
    const role = roles.find((r) => r.id === user.role.id)
    const view: UserDetailView = { user, role, canManage, flash: flash(done) }
    if (canManage) {
      const locations = (await allRows((query) => listLocations(db, actor, query))).map((l) => ({
        id: l.id,
        name: l.name,
      }))
      let form = grantsForm?.form
      if (form === undefined) {
        const values: Record<string, string> = {}
        const held = await getLocationRoles(db, actor, id)
        for (const g of held) {
          if (!locations.some((l) => l.id === g.location))
            locations.push({ id: g.location, name: `location ${g.location}` })
          const n = Object.keys(values).filter((k) => k.startsWith(`grant.${g.location}.`)).length
          values[`grant.${g.location}.${n}`] = String(g.role)
        }
        form = { values, errors: {} }
      }
      const editor: GrantsEditor = {
        locations,
        roles: roles.map((r) => ({ value: String(r.id), label: r.name })),
        form,
        general: grantsForm?.general,
      }
      view.grants = editor
      if (done !== undefined && Object.hasOwn(SENT, done)) {
        const what = SENT[done as keyof typeof SENT]
        view.sent = { what, smtp, link: smtp ? undefined : await linkFor(actor, user.email) }
      }
    }
    return userView(view, session)
  }

  app.get('/users/:id', { schema: { hide: true, params: Id, querystring: Done } }, async (request, reply) =>
    sendPage(reply, await userPage(request.session, request.params.id, request.query.done)),
  )

  app.post(
    '/users/:id/location-roles',
    { schema: { hide: true, params: Id, body: FormBody } },
    async (request, reply) => {
      const { id } = request.params
      // Refused before the form is read: someone without the permission learns nothing from its errors.
      requireAny(request.session.actor, 'superuser', 'nav_setting')
      const values: Record<string, string> = {}
      const errors: Record<string, string[]> = {}
      const grants: { location: number; role: number }[] = []
      const fieldOf: string[] = []
      for (const [name, value] of Object.entries(request.body)) {
        const match = GRANT_FIELD.exec(name)
        if (match === null) continue
        values[name] = value
        if (value === '') continue
        if (!/^\d{1,9}$/.test(value)) {
          errors[name] = ['is not one of the roles offered']
          continue
        }
        grants.push({ location: Number(match[1]), role: Number(value) })
        fieldOf.push(name)
      }
      const again = async (form: FormState, status: number, general?: string) =>
        sendPage(
          reply,
          await userPage(request.session, id, undefined, { form, ...(general === undefined ? {} : { general }) }),
          status,
        )
      if (Object.keys(errors).length > 0) return again({ values, errors }, 400)
      try {
        await replaceLocationRoles(db, request.session.actor, id, grants)
      } catch (error) {
        if (!(error instanceof Problem) || ![400, 403].includes(error.status)) throw error
        return again({ values, errors: grantErrors(error, fieldOf) }, error.status, error.detail)
      }
      return reply.redirect(`/console/users/${id}?done=grants`, 303)
    },
  )

  app.get('/users/:id/deactivate', { schema: { hide: true, params: Id } }, async (request, reply) => {
    const user = await getUser(db, request.session.actor, request.params.id)
    return sendPage(reply, deactivateView(user, request.session))
  })

  app.post('/users/:id/deactivate', { schema: { hide: true, params: Id } }, async (request, reply) => {
    await deactivateUser(db, request.session.actor, request.params.id)
    return reply.redirect('/console/users?deactivated=1', 303)
  })

  app.post('/users/:id/activate', { schema: { hide: true, params: Id } }, async (request, reply) => {
    await activateUser(db, request.session.actor, request.params.id)
    return reply.redirect(`/console/users/${request.params.id}?done=activated`, 303)
  })
}

/** The service's errors (`<i>.location`, `<i>.role`: the i-th grant sent) on the selects they came from. */
function grantErrors(error: Problem, fieldOf: readonly string[]): Errors {
  const errors = [error.extra.errors ?? []].flat()[0] ?? {}
  const renamed: Record<string, string[]> = {}
  for (const [path, messages] of Object.entries(errors)) {
    const field = fieldOf[Number(path.split('.')[0])] ?? path
    ;(renamed[field] ??= []).push(...messages)
  }
  return errorsFor(renamed, fieldOf)
}
