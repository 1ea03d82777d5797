/**
 * Locations in the console: the list, one location, create and edit — with the billing and shipping
 * addresses, alternate shipping addresses added and removed, currency and legal entity chosen from the
 * tenant's — through the location service. An edit carries the ETag it was opened with (If-Match): if someone
 * changed the location meanwhile, nothing is written and the page says so.
 */
import { Problem, type FieldErrors } from '../../core/problem.ts'
import { bodyChecker } from '../../http/body-check.ts'
import { LocationInput, type LocationView } from '../../locations/schema.ts'
import { createLocation, etagOf, getLocation, listLocations, replaceLocation } from '../../locations/service.ts'
import { listCurrencies, listLegalEntities } from '../../lookups/service.ts'
import { sendPage, type ConsoleApp, type ConsoleDeps, type ConsoleSession } from '../context.ts'
import type { FormState, Values } from '../views/forms.ts'
import { html } from '../views/html.ts'
import { notice } from '../views/layout.ts'
import {
  ADDRESS_KEYS,
  locationFormView,
  locationLabels,
  locationsView,
  locationView,
  type LocationChoices,
} from '../views/locations.ts'
import { attempt, Done, errorsFor, flashOf, FormBody, Id, ListQuery, PAGE_SIZE } from './forms.ts'

const MAX_ALTERNATES = 50
const flash = flashOf({ created: 'The location is created.', saved: 'Your changes are saved.' })
const check = bodyChecker(LocationInput)

/** How many alternate address blocks a posted form has (`_alternates`), within bounds. */
const alternatesOf = (body: Readonly<Record<string, string>>) =>
  Math.min(MAX_ALTERNATES, Math.max(0, Number.parseInt(body._alternates ?? '0', 10) || 0))

/** Every field name the form has with `alternates` alternate addresses. */
function fieldsOf(alternates: number): string[] {
  const fields = Object.keys(locationLabels(alternates))
  for (let i = 0; i < alternates; i++) fields.push(`shipping_addresses.${i}.id`, `shipping_addresses.${i}.remove`)
  return fields
}

function valuesFrom(body: Readonly<Record<string, string>>, alternates: number): Values {
  const values: Record<string, string> = {}
  for (const name of fieldsOf(alternates)) if (Object.hasOwn(body, name)) values[name] = body[name]!
  return values
}

/**
 * The API body the form stands for, and which form block each alternate address came from (a removed or
 * blank block sends nothing, so the API's index differs from the form's).
 */
function bodyOf(values: Values, alternates: number, keep: Partial<LocationView> = {}) {
  const text = (name: string) => (values[name] ?? '').trim()
  const address = (prefix: string) => Object.fromEntries(ADDRESS_KEYS.map((k) => [k, text(`${prefix}.${k}`)]))
  const shipping: Record<string, unknown>[] = []
  const blocks: number[] = []
  for (let i = 0; i < alternates; i++) {
    const prefix = `shipping_addresses.${i}`
    if (values[`${prefix}.remove`] === 'on') continue
    const fields = address(prefix)
    const id = text(`${prefix}.id`)
    if (id === '' && Object.values(fields).every((v) => v === '')) continue
    shipping.push(id === '' ? fields : { id: /^\d{1,10}$/.test(id) ? Number(id) : id, ...fields })
    blocks.push(i)
  }
  const legal = text('legal_entity')
  const body = {
    ...(keep.logo === undefined ? {} : { logo: keep.logo }),
    ...(keep.active === undefined ? {} : { active: keep.active }),
    name: text('name'),
    external_id: text('external_id'),
    phoneOne: text('phoneOne'),
    fax: text('fax'),
    email: text('email'),
    url: text('url'),
    currency: text('currency'),
    legal_entity: legal === '' ? null : /^\d{1,10}$/.test(legal) ? Number(legal) : legal,
    locationTimezone: text('locationTimezone'),
    primary_billing_address: address('primary_billing_address'),
    primary_shipping_address: address('primary_shipping_address'),
    shipping_addresses: shipping,
  }
  return { body, blocks }
}

/** Errors of the API body, keyed by the form's fields (alternate addresses by their block in the form). */
function formErrors(errors: FieldErrors, blocks: readonly number[], alternates: number) {
  const renamed: FieldErrors = {}
  for (const [path, messages] of Object.entries(errors)) {
    const key = path.replace(
      /^shipping_addresses\.(\d+)/,
      (_, k: string) => `shipping_addresses.${blocks[Number(k)] ?? k}`,
    )
    renamed[key] = messages
  }
  return errorsFor(renamed, fieldsOf(alternates))
}

function valuesOfLocation(l: LocationView): Values {
  const values: Record<string, string> = {
    name: l.name,
    external_id: l.external_id,
    phoneOne: l.phoneOne,
    fax: l.fax,
    email: l.email,
    url: l.url,
    currency: l.currency.name,
    legal_entity: l.legal_entity === null ? '' : String(l.legal_entity.id),
    locationTimezone: l.locationTimezone,
  }
  const address = (prefix: string, a: LocationView['primary_billing_address']) => {
    for (const key of ADDRESS_KEYS) values[`${prefix}.${key}`] = a[key]
  }
  address('primary_billing_address', l.primary_billing_address)
  address('primary_shipping_address', l.primary_shipping_address)
  l.shipping_addresses.forEach((a, i) => {
    address(`shipping_addresses.${i}`, a)
    values[`shipping_addresses.${i}.id`] = String(a.id)
  })
  return values
}

export function locationPages(app: ConsoleApp, deps: ConsoleDeps): void {
  const { db } = deps

  async function choices(session: ConsoleSession): Promise<LocationChoices> {
    const all = { page_size: 100, order_by: 'name' } as const
    const [currencies, entities] = await Promise.all([
      listCurrencies(db, session.actor, all),
      listLegalEntities(db, session.actor, all),
    ])
    return {
      currency: currencies.rows.map((c) => ({ value: c.name, label: `${c.name} — ${c.description}` })),
      legal_entity: entities.rows.map((e) => ({ value: String(e.id), label: e.name })),
    }
  }

  type Target = Parameters<typeof locationFormView>[3]
  const showForm = async (
    session: ConsoleSession,
    form: FormState,
    alternates: number,
    target: Target,
    general?: ReturnType<typeof notice>,
  ) => locationFormView(form, alternates, await choices(session), target, session, general)

  app.get('/locations', { schema: { hide: true, querystring: ListQuery } }, async (request, reply) => {
    const { search, page, done } = request.query
    const result = await listLocations(db, request.session.actor, {
      page: page ?? 1,
      page_size: PAGE_SIZE,
      ...(search === undefined ? {} : { search }),
    })
    return sendPage(reply, locationsView(result, search, request.session, flash(done)))
  })

  const newTarget: Target = { action: '/console/locations/new', title: 'New location', cancel: '/console/locations' }
  app.get('/locations/new', { schema: { hide: true } }, async (request, reply) => {
    const base = (await choices(request.session)).currency[0]?.value ?? ''
    return sendPage(reply, await showForm(request.session, { values: { currency: base }, errors: {} }, 0, newTarget))
  })

  app.post('/locations/new', { schema: { hide: true, body: FormBody } }, async (request, reply) => {
    const alternates = alternatesOf(request.body)
    const values = valuesFrom(request.body, alternates)
    if (request.body._action === 'add') {
      const more = Math.min(MAX_ALTERNATES, alternates + 1)
      return sendPage(reply, await showForm(request.session, { values, errors: {} }, more, newTarget))
    }
    const { body, blocks } = bodyOf(values, alternates)
    const checked = check(body)
    const result = checked.ok
      ? await attempt(values, fieldsOf(alternates), () => createLocation(db, request.session.actor, checked.value))
      : { ok: false as const, form: { values, errors: formErrors(checked.errors, blocks, alternates) } }
    if (!result.ok) return sendPage(reply, await showForm(request.session, result.form, alternates, newTarget), 400)
    return reply.redirect(`/console/locations/${result.value.view.id}?done=created`, 303)
  })

  app.get('/locations/:id', { schema: { hide: true, params: Id, querystring: Done } }, async (request, reply) => {
    const { view } = await getLocation(db, request.session.actor, request.params.id)
    return sendPage(reply, locationView(view, request.session, flash(request.query.done)))
  })

  const editTarget = (l: { id: number; name: string }, etag: string): Target => ({
    action: `/console/locations/${l.id}/edit`,
    title: `Edit ${l.name}`,
    cancel: `/console/locations/${l.id}`,
    etag,
  })
  app.get('/locations/:id/edit', { schema: { hide: true, params: Id } }, async (request, reply) => {
    const { view } = await getLocation(db, request.session.actor, request.params.id)
    const form = { values: valuesOfLocation(view), errors: {} }
    return sendPage(
      reply,
      await showForm(request.session, form, view.shipping_addresses.length, editTarget(view, etagOf(view))),
    )
  })

  app.post('/locations/:id/edit', { schema: { hide: true, params: Id, body: FormBody } }, async (request, reply) => {
    const { actor } = request.session
    const { view: current } = await getLocation(db, actor, request.params.id)
    const alternates = alternatesOf(request.body)
    const values = valuesFrom(request.body, alternates)
    const etag = request.body._etag ?? ''
    const target = editTarget(current, etag)
    if (request.body._action === 'add') {
      const more = Math.min(MAX_ALTERNATES, alternates + 1)
      return sendPage(reply, await showForm(request.session, { values, errors: {} }, more, target))
    }
    const { body, blocks } = bodyOf(values, alternates, current)
    const checked = check(body)
    try {
      const result = checked.ok
        ? await attempt(values, fieldsOf(alternates), () => replaceLocation(db, actor, current.id, checked.value, etag))
        : { ok: false as const, form: { values, errors: formErrors(checked.errors, blocks, alternates) } }
      if (!result.ok) return sendPage(reply, await showForm(request.session, result.form, alternates, target), 400)
    } catch (error) {
      if (!(error instanceof Problem) || error.status !== 412) throw error
      const changed = notice(
        'alert',
        html`Someone changed this location since you opened it, so your changes were not saved.
          <a href="/console/locations/${current.id}/edit">Reload it</a> to see the current version and make your changes
          again.`,
      )
      return sendPage(reply, await showForm(request.session, { values, errors: {} }, alternates, target, changed), 409)
    }
    return reply.redirect(`/console/locations/${current.id}?done=saved`, 303)
  })
}
