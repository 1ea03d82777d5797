/**
 * Purchase requests in the console: the list (what the signed-in user may see, as the API lists it), one
 * request with its approval chain, create and edit a draft with the lines editor, submit and cancel — all
 * through the request service, with the API's own validation of each body.
 */
import { emailKey } from '../../db/email.ts'
import { Type } from 'typebox'
import { actorLocationAccess, holdsAnyAt, locationsWithAny } from '../../access/location-permissions.ts'
import { Problem, validationFailed, type FieldErrors } from '../../core/problem.ts'
import { bodyChecker } from '../../http/body-check.ts'
import { MAX_LINES, RequestInput, RequestPatch, type PurchaseRequest } from '../../requests/schema.ts'
import {
  cancelRequest,
  createRequest,
  getRequest,
  listRequests,
  submitRequest,
  updateRequest,
} from '../../requests/service.ts'
import { myDelegators } from '../../users/delegation.service.ts'
import { profileOf } from '../home.repository.ts'
import { mailBaseOf, sendPage, type ConsoleApp, type ConsoleDeps, type ConsoleSession } from '../context.ts'
import type { FormState } from '../views/forms.ts'
import { LINE_FIELDS, requestFormView } from '../views/request-form.ts'
import { requestsView, requestView, STATUS_NAMES } from '../views/requests.ts'
import { choices, type Keep, onRows, readForm, RequestForm, rowsFor, TOP, valuesOfRequest } from './request-form.ts'
import { deciderOf, startingLocation, vendorNamesOf } from './request-shared.ts'
import { chainPreviewSection } from './chain-preview.ts'
import { historySection, ordersFromRequestOf, requestLedTo } from './history.ts'
import { ATTACHMENT_FLASH } from '../views/attachments.ts'
import { documentBoxesFor } from './attachments.ts'
import { attempt, Done, errorsFor, flashOf, Id, PAGE_SIZE } from './forms.ts'

const checkCreate = bodyChecker(RequestInput)
const checkEdit = bodyChecker(RequestPatch)

const flash = flashOf({
  ...ATTACHMENT_FLASH,
  created: 'The draft is saved. Submit it when it is complete.',
  saved: 'Your changes are saved.',
  submitted: 'The request is submitted.',
  cancelled: 'The request is cancelled.',
  ordered: 'Draft orders are made from the request, one per vendor: each is listed under “What it led to”.',
})

const Status = Type.Union(Object.keys(STATUS_NAMES).map((s) => Type.Literal(s)))
const RequestsQuery = Type.Object({
  search: Type.Optional(Type.String({ maxLength: 200 })),
  status: Type.Optional(Type.Union([Status, Type.Literal('')])),
  /** "1": only the signed-in person's own requests (Home's counts link here). */
  mine: Type.Optional(Type.Union([Type.Literal('1'), Type.Literal('')])),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
})

export function requestPages(app: ConsoleApp, deps: ConsoleDeps): void {
  const { db } = deps

  const newTarget = { action: '/console/requests/new', title: 'New request', cancel: '/console/requests' }
  const editTarget = (id: number) => ({
    action: `/console/requests/${id}/edit`,
    title: `Edit request #${id}`,
    cancel: `/console/requests/${id}`,
  })

  app.get('/requests', { schema: { hide: true, querystring: RequestsQuery } }, async (request, reply) => {
    const { actor } = request.session
    const { search, page } = request.query
    const status = request.query.status === '' ? undefined : request.query.status
    const me =
      request.query.mine === '1' && actor.userId !== null
        ? await profileOf(db, actor.tenantId, actor.userId)
        : undefined
    const result = await listRequests(db, actor, {
      page: page ?? 1,
      page_size: PAGE_SIZE,
      order_by: '-created_at',
      ...(search === undefined || search === '' ? {} : { search }),
      ...(status === undefined ? {} : { status: status }),
      ...(me === undefined ? {} : { requester: me.id }),
    })
    const canCreate = locationsWithAny(await actorLocationAccess(db, actor), 'nav_request').length > 0
    const filter = { search: search === '' ? undefined : search, status, mine: me !== undefined }
    return sendPage(reply, requestsView(result, filter, request.session, canCreate))
  })

  app.get('/requests/new', { schema: { hide: true } }, async (request, reply) => {
    const options = await choices(deps, request.session)
    if (options.location.length === 0)
      throw new Problem(
        403,
        'Forbidden',
        'Making a request needs the Request permission at a location; you hold it at none.',
      )
    const form = {
      values: { location: await startingLocation(deps, request.session.actor, options.location) },
      errors: {},
    }
    return sendPage(reply, requestFormView(form, rowsFor(0), options, newTarget, request.session))
  })

  /** Saves the editor (or shows it again with one more line); the write is `save` with the checked body. */
  async function post(
    session: ConsoleSession,
    body: Readonly<Record<string, string>>,
    target: ReturnType<typeof editTarget>,
    save: (body: Record<string, unknown>) => Promise<number>,
    keep?: Keep,
  ) {
    const form = readForm(body)
    const show = async (state: FormState, rows: number, message?: string) =>
      requestFormView(state, rows, await choices(deps, session, keep), target, session, message)
    if (body.intent === 'add')
      return { status: 200, page: await show({ values: form.values, errors: {} }, Math.min(MAX_LINES, form.rows + 1)) }
    const fields = [
      ...TOP,
      ...Array.from({ length: form.rows }, (_, k) => LINE_FIELDS.map((f) => `lines.${k}.${f}`)).flat(),
    ]
    const result = await attempt(form.values, fields, () => save(form.body))
    if (result.ok) return { status: 303, id: result.value }
    const errors = errorsFor(onRows(result.form.errors as FieldErrors, form.rowOf), fields)
    return {
      status: 400,
      page: await show({ values: form.values, errors }, Math.max(1, form.rows), result.message),
    }
  }

  app.post('/requests/new', { schema: { hide: true, body: RequestForm } }, async (request, reply) => {
    const { actor } = request.session
    const outcome = await post(request.session, request.body, newTarget, async (body) => {
      const checked = checkCreate(body)
      if (!checked.ok) throw validationFailed(checked.errors, 'The request is not complete; see the fields below.')
      return (await createRequest(db, actor, checked.value)).id
    })
    if (outcome.status === 303) return reply.redirect(`/console/requests/${outcome.id}?done=created`, 303)
    return sendPage(reply, outcome.page!, outcome.status)
  })

  /** The actions the signed-in user may take on the request now. */
  const allowed = (session: ConsoleSession, r: PurchaseRequest) => {
    const mine =
      session.actor.permissions.has('superuser') || emailKey(r.requester.email) === emailKey(session.actor.email ?? '')
    return {
      edit: mine && r.status === 'draft',
      submit: mine && r.status === 'draft',
      cancel: mine && (r.status === 'draft' || r.status === 'pending'),
    }
  }

  async function show(session: ConsoleSession, r: PurchaseRequest, notes: { flash?: string; problem?: string }) {
    const [vendors, delegators] = await Promise.all([
      vendorNamesOf(deps, session.actor, r),
      myDelegators(db, session.actor),
    ])
    const decidable = new Set(
      r.approvals.filter((a) => deciderOf(session.actor, delegators, a) !== undefined).map((a) => a.id),
    )
    const [access, orders, history, preview, boxes] = await Promise.all([
      actorLocationAccess(db, session.actor),
      ordersFromRequestOf(deps, session.actor, r.id),
      historySection(deps, session.actor, 'request', r.id),
      r.status === 'draft' ? chainPreviewSection(deps, session.actor, r) : undefined,
      documentBoxesFor(deps, session, 'request', r.id),
    ])
    // Orders are made from a request once (every line at once): the button goes when there are any.
    const order = r.status === 'approved' && orders.length === 0 && holdsAnyAt(access, r.location.id, 'nav_purchase')
    return requestView(
      {
        request: r,
        vendors,
        can: { ...allowed(session, r), order },
        decidable,
        flash: notes.flash,
        problem: notes.problem,
        preview,
        ledTo: await requestLedTo(deps, session.actor, r.id),
        history,
        boxes,
      },
      session,
    )
  }

  /** Why making orders from the request was refused (pages/orders.ts): fixed texts, never echoed input. */
  const orderProblem = flashOf({
    novendor: 'Some lines have no vendor, so no orders were made. Ask the requester to name a vendor for each line.',
    permission: 'Making orders needs the Purchase permission at the request’s location.',
    ordered: 'Orders were made from this request already: each line is ordered once.',
  })
  const RequestQuery = Type.Object({ ...Done.properties, problem: Type.Optional(Type.String({ maxLength: 20 })) })
  app.get(
    '/requests/:id',
    { schema: { hide: true, params: Id, querystring: RequestQuery } },
    async (request, reply) => {
      const r = await getRequest(db, request.session.actor, request.params.id)
      const note = flash(request.query.done)
      const problem = orderProblem(request.query.problem)
      return sendPage(
        reply,
        await show(request.session, r, {
          ...(note === undefined ? {} : { flash: note }),
          ...(problem === undefined ? {} : { problem }),
        }),
      )
    },
  )

  app.get('/requests/:id/edit', { schema: { hide: true, params: Id } }, async (request, reply) => {
    const r = await getRequest(db, request.session.actor, request.params.id)
    if (!allowed(request.session, r).edit) {
      const problem = `Only a draft can be edited, by its requester; this request is ${STATUS_NAMES[r.status]?.toLowerCase()}.`
      return sendPage(reply, await show(request.session, r, { problem }), 409)
    }
    const keep = { location: r.location.id, vendors: await vendorNamesOf(deps, request.session.actor, r) }
    const form = { values: valuesOfRequest(r), errors: {} }
    return sendPage(
      reply,
      requestFormView(
        form,
        rowsFor(r.lines.length),
        await choices(deps, request.session, keep),
        editTarget(r.id),
        request.session,
      ),
    )
  })

  app.post('/requests/:id/edit', { schema: { hide: true, params: Id, body: RequestForm } }, async (request, reply) => {
    const { actor } = request.session
    const { id } = request.params
    const current = await getRequest(db, actor, id)
    const keep = { location: current.location.id, vendors: await vendorNamesOf(deps, actor, current) }
    const outcome = await post(
      request.session,
      request.body,
      editTarget(id),
      async (body) => {
        const checked = checkEdit(body)
        if (!checked.ok) throw validationFailed(checked.errors, 'The request is not complete; see the fields below.')
        await updateRequest(db, actor, id, checked.value)
        return id
      },
      keep,
    )
    if (outcome.status === 303) return reply.redirect(`/console/requests/${id}?done=saved`, 303)
    return sendPage(reply, outcome.page!, outcome.status)
  })

  for (const [action, run, done] of [
    ['submit', submitRequest, 'submitted'],
    ['cancel', cancelRequest, 'cancelled'],
  ] as const) {
    app.post(`/requests/:id/${action}`, { schema: { hide: true, params: Id } }, async (request, reply) => {
      const { actor } = request.session
      try {
        await run(db, actor, request.params.id, mailBaseOf(deps, actor.domain))
      } catch (error) {
        // A refusal of the action (wrong state, no approver for a step, not the requester) is said on the
        // request's page; a request the user may not see stays a 404 page.
        if (!(error instanceof Problem) || (error.status !== 409 && error.status !== 403)) throw error
        const r = await getRequest(db, actor, request.params.id)
        return sendPage(reply, await show(request.session, r, { problem: error.detail }), error.status)
      }
      return reply.redirect(`/console/requests/${request.params.id}?done=${done}`, 303)
    })
  }
}
