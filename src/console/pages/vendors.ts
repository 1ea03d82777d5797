/**
 * Vendors in the console: the list (search, paging, CSV export of every vendor it matches), one vendor, create, edit,
 * deactivate and activate — through the vendor service, with the API's own validation of each body.
 */
import { bodyChecker } from '../../http/body-check.ts'
import { toCsv } from '../../http/list.ts'
import { VendorInput, VendorPatch, type Vendor } from '../../vendors/schema.ts'
import { createVendor, getVendor, listVendors, updateVendor } from '../../vendors/service.ts'
import { sendPage, type ConsoleApp, type ConsoleDeps, type ConsoleSession } from '../context.ts'
import type { FormState, Values } from '../views/forms.ts'
import { VENDOR_LABELS, vendorFormView, vendorsView, vendorView, type VendorChoices } from '../views/vendors.ts'
import { allVendors, choicesOf, vendorCsvRow, vendorNames } from './vendor-csv.ts'
import { historySection, vendorLedTo } from './history.ts'
import { attempt, Done, errorsFor, flashOf, FormBody, Id, idOrText, ListQuery, PAGE_SIZE, valuesOf } from './forms.ts'

const FIELDS = Object.keys(VENDOR_LABELS)
const flash = flashOf({
  created: 'The vendor is created.',
  saved: 'Your changes are saved.',
  deactivated: 'The vendor is deactivated: it stays on record but is no longer offered.',
  activated: 'The vendor is active again.',
  imported: 'The vendors are imported: every row of the file.',
})

const checkCreate = bodyChecker(VendorInput)
const checkEdit = bodyChecker(VendorPatch)

/** The API body a vendor form (or a CSV row) stands for: text as typed (trimmed), numbers and ids as numbers, e-mails as a list. */
export function vendorBodyOf(values: Values): Record<string, unknown> {
  const body: Record<string, unknown> = {}
  for (const name of FIELDS) body[name] = (values[name] ?? '').trim()
  for (const name of ['currency', 'payment_term_ref', 'shipping_term_ref', 'payment_method_ref', 'shipping_method_ref'])
    body[name] = body[name] === '' ? null : idOrText(body[name] as string)
  body.type = idOrText(body.type as string)
  body.email = (body.email as string).split(/[,;\s]+/).filter((e) => e !== '')
  return body
}

/** A vendor as its edit form shows it. */
function valuesOfVendor(v: Vendor): Values {
  const id = (ref: { id: number } | number | null) =>
    ref === null ? '' : String(typeof ref === 'number' ? ref : ref.id)
  return {
    name: v.name,
    external_id: v.external_id,
    type: String(v.type),
    contact: v.contact,
    email: v.email.join(', '),
    phoneOne: v.phoneOne,
    phoneTwo: v.phoneTwo,
    fax: v.fax,
    url: v.url,
    addressLineOne: v.addressLineOne,
    addressLineTwo: v.addressLineTwo,
    city: v.city,
    state_province: v.state_province,
    postalCode: v.postalCode,
    country: v.country,
    currency: id(v.currency),
    payment_term_ref: id(v.payment_term_ref),
    shipping_term_ref: id(v.shipping_term_ref),
    payment_method_ref: id(v.payment_method_ref),
    shipping_method_ref: id(v.shipping_method_ref),
    comments: v.comments,
  }
}

export function vendorPages(app: ConsoleApp, deps: ConsoleDeps): void {
  const { db, lookups } = deps

  /** The tenant's currencies and vendor look-ups, as the form's choices. */
  const choices = async (session: ConsoleSession): Promise<VendorChoices> =>
    choicesOf(await vendorNames(db, session.actor))

  const showForm = async (
    session: ConsoleSession,
    form: FormState,
    target: { action: string; title: string; cancel: string },
  ) => vendorFormView(form, await choices(session), target, session)

  app.get('/vendors', { schema: { hide: true, querystring: ListQuery } }, async (request, reply) => {
    const { search, page, done } = request.query
    const result = await listVendors(db, lookups, request.session.actor, {
      page: page ?? 1,
      page_size: PAGE_SIZE,
      ...(search === undefined ? {} : { search }),
    })
    return sendPage(reply, vendorsView(result, search, request.session, flash(done)))
  })

  app.get('/vendors/export', { schema: { hide: true, querystring: ListQuery } }, async (request, reply) => {
    const { search } = request.query
    const { actor } = request.session
    const [rows, names] = await Promise.all([allVendors(deps, actor, search), vendorNames(db, actor)])
    return reply
      .header('content-disposition', 'attachment; filename="vendors.csv"')
      .header('cache-control', 'no-store')
      .type('text/csv; charset=utf-8')
      .send(
        toCsv(
          rows.map((v) => vendorCsvRow(v, names)),
          FIELDS,
        ),
      )
  })

  const newTarget = { action: '/console/vendors/new', title: 'New vendor', cancel: '/console/vendors' }
  app.get('/vendors/new', { schema: { hide: true } }, async (request, reply) =>
    sendPage(reply, await showForm(request.session, { values: { type: '4' }, errors: {} }, newTarget)),
  )

  app.post('/vendors/new', { schema: { hide: true, body: FormBody } }, async (request, reply) => {
    const values = valuesOf(request.body, FIELDS)
    const checked = checkCreate(vendorBodyOf(values))
    const result = checked.ok
      ? await attempt(values, FIELDS, () => createVendor(db, lookups, request.session.actor, checked.value))
      : { ok: false as const, form: { values, errors: errorsFor(checked.errors, FIELDS) } }
    if (!result.ok) return sendPage(reply, await showForm(request.session, result.form, newTarget), 400)
    return reply.redirect(`/console/vendors/${result.value.id}?done=created`, 303)
  })

  app.get('/vendors/:id', { schema: { hide: true, params: Id, querystring: Done } }, async (request, reply) => {
    const vendor = await getVendor(db, lookups, request.session.actor, request.params.id)
    const currencies = (await choices(request.session)).currency
    const currency = currencies.find((c) => c.value === String(vendor.currency))?.label ?? '—'
    const boxes = await Promise.all([
      vendorLedTo(deps, request.session.actor, vendor.id),
      historySection(deps, request.session.actor, 'vendor', vendor.id),
    ])
    return sendPage(reply, vendorView(vendor, currency, request.session, flash(request.query.done), boxes))
  })

  const editTarget = (id: number, name: string) => ({
    action: `/console/vendors/${id}/edit`,
    title: `Edit ${name}`,
    cancel: `/console/vendors/${id}`,
  })
  app.get('/vendors/:id/edit', { schema: { hide: true, params: Id } }, async (request, reply) => {
    const vendor = await getVendor(db, lookups, request.session.actor, request.params.id)
    const form = { values: valuesOfVendor(vendor), errors: {} }
    return sendPage(reply, await showForm(request.session, form, editTarget(vendor.id, vendor.name)))
  })

  app.post('/vendors/:id/edit', { schema: { hide: true, params: Id, body: FormBody } }, async (request, reply) => {
    const { id } = request.params
    const { actor } = request.session
    const current = await getVendor(db, lookups, actor, id)
    const values = valuesOf(request.body, FIELDS)
    const checked = checkEdit(vendorBodyOf(values))
    const result = checked.ok
      ? await attempt(values, FIELDS, () => updateVendor(db, lookups, actor, id, checked.value, false))
      : { ok: false as const, form: { values, errors: errorsFor(checked.errors, FIELDS) } }
    if (!result.ok)
      return sendPage(reply, await showForm(request.session, result.form, editTarget(id, current.name)), 400)
    return reply.redirect(`/console/vendors/${id}?done=saved`, 303)
  })

  for (const [action, active] of [
    ['deactivate', false],
    ['activate', true],
  ] as const) {
    app.post(`/vendors/:id/${action}`, { schema: { hide: true, params: Id } }, async (request, reply) => {
      await updateVendor(db, lookups, request.session.actor, request.params.id, { active }, false)
      return reply.redirect(`/console/vendors/${request.params.id}?done=${action}d`, 303)
    })
  }
}
