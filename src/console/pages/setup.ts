/**
 * Settings → Set-up (superuser or nav_setting): an index, and for each kind — departments, currencies, the
 * four vendor look-ups, roles, approval rules — a list with an "Add" form and an edit page per row, plus the
 * procurement settings' own page (setup-settings.ts). Every form is held to the API's own schema (the same
 * sentences) and written through the API's services (the same rules, audited with "console" as the channel).
 * Only a role no one holds is deleted (setup-roles.ts); any other row is retired by unticking "Active".
 */
import { Type } from 'typebox'
import { requireAny } from '../../access/actor.ts'
import { notFound, Problem } from '../../core/problem.ts'
import { bodyChecker } from '../../http/body-check.ts'
import { sendPage, type ConsoleApp, type ConsoleDeps, type ConsoleSession } from '../context.ts'
import type { FormState, Values } from '../views/forms.ts'
import { html } from '../views/html.ts'
import { setupEditView, setupIndexView, setupListView } from '../views/setup.ts'
import { ACCESS_KINDS } from './access-kinds.ts'
import { attempt, Done, flashOf, FormBody } from './forms.ts'
import { LOOKUP_KINDS } from './lookup-kinds.ts'
import { deleteSection, roleDeletePages, withDelete } from './setup-roles.ts'
import type { Kind } from './setup-kind.ts'
import { procurementSettingsPages } from './setup-settings.ts'

const BASE = '/console/settings/setup'
const ROLES = `${BASE}/roles`
const SETTINGS = `${BASE}/procurement-settings`
const KINDS: Record<string, Kind> = { ...ACCESS_KINDS, roles: withDelete(ACCESS_KINDS.roles!, ROLES), ...LOOKUP_KINDS }
const KindParams = Type.Object({ kind: Type.Union(Object.keys(KINDS).map((k) => Type.Literal(k))) })
const KindIdParams = Type.Object({
  kind: KindParams.properties.kind,
  id: Type.Integer({ minimum: 1, maximum: 2147483647 }),
})
const blank: FormState = { values: { active: 'on', step: '1' }, errors: {} }
const flash = flashOf({ saved: 'Saved.', deleted: 'The role is deleted.' })
const WHAT: Record<string, string> = {
  roles: 'what people may do',
  'approval-rules': 'who approves which requests',
  departments: 'each location’s departments',
  currencies: 'currencies and their rates',
  'payment-terms': 'when vendors are paid',
  'shipping-terms': 'who pays for delivery',
  'payment-methods': 'how vendors are paid',
  'shipping-methods': 'how goods arrive',
}

/** A posted form's values: every field but the CSRF token. */
const valuesOf = (body: Readonly<Record<string, string>>): Values =>
  Object.fromEntries(Object.entries(body).filter(([name]) => name !== '_csrf'))

export function setupPages(app: ConsoleApp, deps: ConsoleDeps): void {
  const { db } = deps
  const checkers = new Map(Object.entries(KINDS).map(([name, k]) => [name, bodyChecker(k.schema)]))
  app.addHook('preHandler', async (request) => {
    if (request.routeOptions.url?.startsWith(BASE) === true)
      requireAny(request.session.actor, 'superuser', 'nav_setting')
  })

  async function listPage(kind: string, session: ConsoleSession, form = blank, problem?: string, flash?: string) {
    const k = KINDS[kind]!
    const rows = await k.rows(db, session.actor)
    const add = { action: `${BASE}/${kind}`, fields: await k.fields(db, session.actor), state: form, problem }
    return setupListView(
      {
        title: k.title,
        intro: k.intro,
        headings: ['Name', ...k.headings],
        rows: rows.map(
          (r) =>
            html`<tr>
              <td><a href="${BASE}/${kind}/${r.id}">${r.name}</a></td>
              ${k.cells(r).map((c) => html`<td>${c}</td>`)}
            </tr>`,
        ),
        empty: `No ${k.title.toLowerCase()} yet.`,
        add: { ...add, submit: `Add ${k.singular}` },
        flash,
      },
      session,
    )
  }

  async function editPage(kind: string, id: number, session: ConsoleSession, form?: FormState, problem?: string) {
    const k = KINDS[kind]!
    const row = (await k.rows(db, session.actor)).find((r) => r.id === id)
    if (row === undefined) throw notFound(`No ${k.singular} ${id}.`)
    const state = form ?? { values: k.values(row), errors: {} }
    const fields = await k.fields(db, session.actor)
    // The roles' rows carry how many hold each (withDelete).
    const after = kind === 'roles' ? deleteSection(ROLES, id, Number(row.holders)) : ''
    return setupEditView(
      `${k.title}: ${row.name}`,
      `${BASE}/${kind}`,
      { action: `${BASE}/${kind}/${id}`, fields, state, submit: 'Save', problem },
      session,
      after,
    )
  }

  /** Holds the form to the API's schema, then writes; a refusal comes back as the form to show again. */
  async function save(kind: string, body: Record<string, string>, write: (input: never) => Promise<unknown>) {
    const values = valuesOf(body)
    const checked = checkers.get(kind)!(KINDS[kind]!.body(values))
    if (!checked.ok)
      return { ok: false as const, form: { values, errors: checked.errors }, message: 'Check the fields marked.' }
    const fields = Object.keys(values).map((name) => name.split('.')[0]!)
    return attempt(values, [...new Set(fields)], () => write(checked.value as never))
  }

  app.get('/settings/setup', { schema: { hide: true } }, async (request, reply) =>
    sendPage(
      reply,
      setupIndexView(
        [
          ...Object.entries(KINDS).map(([kind, k]) => ({
            href: `${BASE}/${kind}`,
            label: k.title,
            what: WHAT[kind] ?? '',
          })),
          {
            href: SETTINGS,
            label: 'Procurement settings',
            what: 'tolerances for receipts, orders and bill prices, how bills are matched, when an expense needs a receipt',
          },
        ],
        request.session,
      ),
    ),
  )
  roleDeletePages(app, deps, ROLES)
  procurementSettingsPages(app, deps, SETTINGS)
  app.get(
    '/settings/setup/:kind',
    { schema: { hide: true, params: KindParams, querystring: Done } },
    async (request, reply) => {
      const done = flash(request.query.done)
      return sendPage(reply, await listPage(request.params.kind, request.session, blank, undefined, done))
    },
  )
  app.post(
    '/settings/setup/:kind',
    { schema: { hide: true, params: KindParams, body: FormBody } },
    async (request, reply) => {
      const kind: string = request.params.kind
      const { actor } = request.session
      try {
        const result = await save(kind, request.body, (input) => KINDS[kind]!.create(db, actor, input))
        if (result.ok) return await reply.redirect(`${BASE}/${kind}?done=saved`, 303)
        return sendPage(reply, await listPage(kind, request.session, result.form, result.message), 400)
      } catch (error) {
        // A 409 (the name or code is taken) is said above the form, as it was typed.
        if (!(error instanceof Problem) || error.status !== 409) throw error
        const form = { values: valuesOf(request.body), errors: {} }
        return sendPage(reply, await listPage(kind, request.session, form, error.detail), 409)
      }
    },
  )
  app.get('/settings/setup/:kind/:id', { schema: { hide: true, params: KindIdParams } }, async (request, reply) =>
    sendPage(reply, await editPage(request.params.kind, request.params.id, request.session)),
  )
  app.post(
    '/settings/setup/:kind/:id',
    { schema: { hide: true, params: KindIdParams, body: FormBody } },
    async (request, reply) => {
      const { id } = request.params
      const kind: string = request.params.kind
      const { actor } = request.session
      try {
        const result = await save(kind, request.body, (input) => KINDS[kind]!.replace(db, actor, id, input))
        if (result.ok) return await reply.redirect(`${BASE}/${kind}?done=saved`, 303)
        return sendPage(reply, await editPage(kind, id, request.session, result.form, result.message), 400)
      } catch (error) {
        // A 409 (a name taken; the base currency cannot be retired, re-rated or renamed) is said above the form, as it was typed.
        if (!(error instanceof Problem) || error.status !== 409) throw error
        const form = { values: valuesOf(request.body), errors: {} }
        return sendPage(reply, await editPage(kind, id, request.session, form, error.detail), 409)
      }
    },
  )
}
