/**
 * Making a purchase order by hand, editing a draft and revising an issued order in the console, through the
 * orders service's create and PUT with the API's own validation of the body: a revision sends the version
 * the form was opened at as If-Match, so a change made meanwhile is refused (412), and one beyond the
 * approval tolerance is held for approval. Every refusal is said on the form, with what was typed kept.
 */
import { actorLocationAccess, holdsAnyAt, locationsWithAny } from '../../access/location-permissions.ts'
import { Problem, validationFailed, type FieldErrors } from '../../core/problem.ts'
import { bodyChecker } from '../../http/body-check.ts'
import { MAX_ORDER_LINES, OrderInput } from '../../purchase-orders/input.schema.ts'
import type { PurchaseOrder } from '../../purchase-orders/schema.ts'
import { createOrder, getOrder, putOrder } from '../../purchase-orders/service.ts'
import { mailBaseOf, sendPage, type ConsoleApp, type ConsoleDeps, type ConsoleSession } from '../context.ts'
import type { Errors } from '../views/forms.ts'
import { orderFormView, type OrderTarget } from '../views/order-form.ts'
import { errorsFor, Id } from './forms.ts'
import { onRows } from './request-form.ts'
import { startingLocation } from './request-shared.ts'
import { orderChoices, orderFields, OrderForm, orderRowsFor, readOrderForm, valuesOfOrder } from './order-form.ts'

const check = bodyChecker(OrderInput)
const REFUSALS = [400, 403, 409, 412, 428]

const newTarget: OrderTarget = {
  action: '/console/orders/new',
  title: 'New purchase order',
  cancel: '/console/orders',
  submit: 'Save draft',
}
const editTarget = (o: PurchaseOrder): OrderTarget =>
  o.status === 'issued'
    ? {
        action: `/console/orders/${o.id}/edit`,
        title: `Revise ${o.number}`,
        cancel: `/console/orders/${o.id}`,
        submit: 'Save revision',
        revision: { vendor: o.vendor.name, location: o.location.name },
      }
    : {
        action: `/console/orders/${o.id}/edit`,
        title: `Edit ${o.number}`,
        cancel: `/console/orders/${o.id}`,
        submit: 'Save draft',
      }

/** Whether the order can be edited now: a draft, or an issued order without a revision waiting for approval. */
const editable = (o: PurchaseOrder) => o.status === 'draft' || (o.status === 'issued' && o.pending_revision === null)

/** The service's sentence, with its line ids said as the items people see on the form. */
function said(problem: Problem, order: PurchaseOrder | undefined): string {
  if (problem.status === 412)
    return 'Someone changed this order while you were editing it. Open the order again to see the change, then make yours.'
  const lines = new Map(order?.lines.map((l) => [l.id, l.description]) ?? [])
  return problem.detail.replace(/\bline (\d+)\b/g, (whole, id: string) =>
    lines.has(Number(id)) ? `the line “${lines.get(Number(id)) || `#${id}`}”` : whole,
  )
}

export function orderEditPages(app: ConsoleApp, deps: ConsoleDeps): void {
  const { db } = deps

  /** Saves the editor (or shows it again with one more line); `save` writes the checked body. */
  async function post(
    session: ConsoleSession,
    body: Readonly<Record<string, string>>,
    target: OrderTarget,
    save: (input: OrderInput, version: string | undefined) => Promise<PurchaseOrder>,
    current?: PurchaseOrder,
  ) {
    const form = readOrderForm(body)
    const show = async (errors: Errors, rows: number, message?: string) =>
      orderFormView(
        { values: form.values, errors },
        rows,
        await orderChoices(deps, session, current),
        target,
        session,
        message,
      )
    if (body.intent === 'add') return { status: 200, page: await show({}, Math.min(MAX_ORDER_LINES, form.rows + 1)) }
    const fields = orderFields(form.rows)
    try {
      const checked = check(form.body)
      if (!checked.ok) throw validationFailed(checked.errors, 'The order is not complete; see the fields below.')
      return { status: 303, order: await save(checked.value, form.values.version) }
    } catch (error) {
      if (!(error instanceof Problem) || !REFUSALS.includes(error.status)) throw error
      const raw: FieldErrors = error.status === 400 ? ([error.extra.errors ?? []].flat()[0] ?? {}) : {}
      const errors = errorsFor(onRows(raw, form.rowOf), fields)
      return { status: error.status, page: await show(errors, Math.max(1, form.rows), said(error, current)) }
    }
  }

  app.get('/orders/new', { schema: { hide: true } }, async (request, reply) => {
    const access = await actorLocationAccess(db, request.session.actor)
    if (locationsWithAny(access, 'nav_purchase').length === 0)
      throw new Problem(
        403,
        'Forbidden',
        'Making an order needs the Purchase permission at a location; you hold it at none.',
      )
    const options = await orderChoices(deps, request.session)
    const values = { location: await startingLocation(deps, request.session.actor, options.location) }
    return sendPage(reply, orderFormView({ values, errors: {} }, 3, options, newTarget, request.session))
  })

  app.post('/orders/new', { schema: { hide: true, body: OrderForm } }, async (request, reply) => {
    const { actor } = request.session
    const outcome = await post(request.session, request.body, newTarget, (input) => createOrder(db, actor, input))
    if (outcome.status === 303) return reply.redirect(`/console/orders/${outcome.order!.id}?done=created`, 303)
    return sendPage(reply, outcome.page!, outcome.status)
  })

  app.get('/orders/:id/edit', { schema: { hide: true, params: Id } }, async (request, reply) => {
    const o = await getOrder(db, request.session.actor, request.params.id)
    if (!holdsAnyAt(await actorLocationAccess(db, request.session.actor), o.location.id, 'nav_purchase'))
      throw new Problem(403, 'Forbidden', 'Changing an order needs the Purchase permission at its location.')
    // Said on the order's page (pages/orders.ts names the two cases with fixed sentences).
    if (!editable(o))
      return reply.redirect(`/console/orders/${o.id}?problem=${o.pending_revision === null ? 'state' : 'pending'}`, 303)
    const page = orderFormView(
      { values: valuesOfOrder(o), errors: {} },
      orderRowsFor(o.lines.length),
      await orderChoices(deps, request.session, o),
      editTarget(o),
      request.session,
    )
    return sendPage(reply, page)
  })

  app.post('/orders/:id/edit', { schema: { hide: true, params: Id, body: OrderForm } }, async (request, reply) => {
    const { actor } = request.session
    const current = await getOrder(db, actor, request.params.id)
    const outcome = await post(
      request.session,
      request.body,
      editTarget(current),
      (input, version) =>
        putOrder(
          db,
          actor,
          current.id,
          input,
          current.status === 'issued' ? `"${version ?? ''}"` : undefined,
          mailBaseOf(deps, actor.domain),
        ),
      current,
    )
    if (outcome.status !== 303) return sendPage(reply, outcome.page!, outcome.status)
    const saved = outcome.order!
    const done = saved.status === 'draft' ? 'saved' : saved.pending_revision !== null ? 'held' : 'revised'
    return reply.redirect(`/console/orders/${saved.id}?done=${done}`, 303)
  })
}
