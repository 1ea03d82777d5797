/**
 * Payment requests in the console (views/payment-requests.ts): the list, the new-request form, one request with
 * its approval chain, the runs that pay it and its history, and its actions — submit, cancel — all through the
 * payment request services, so the API's rules and refusals apply as they are (a request the user may not see
 * is a 404). Registered by pages/payments.ts.
 */
import { Type } from 'typebox'
import type { Actor } from '../../access/actor.ts'
import { actorLocationAccess, holdsAnyAt, locationsWithAny } from '../../access/location-permissions.ts'
import { Problem, validationFailed } from '../../core/problem.ts'
import { bodyChecker } from '../../http/body-check.ts'
import { cancelPaymentRequest, submitPaymentRequest } from '../../payment-requests/lifecycle.service.ts'
import { PaymentRequestInput, type PaymentRequest } from '../../payment-requests/schema.ts'
import { createPaymentRequest, getPaymentRequest, listPaymentRequests } from '../../payment-requests/service.ts'
import { runsPayingRequest } from '../../payment-runs/service.ts'
import { myDelegators } from '../../users/delegation.service.ts'
import { mailBaseOf, sendPage, type ConsoleApp, type ConsoleDeps, type ConsoleSession } from '../context.ts'
import { ledToBox } from '../views/history.ts'
import {
  PAYMENT_REQUEST_LABELS,
  paymentRequestFormView,
  paymentRequestsView,
  paymentRequestView,
} from '../views/payment-requests.ts'
import { RUN_STATUS_NAMES } from '../views/payments.ts'
import { attempt, Done, flashOf, FormBody, Id, idOrText, PAGE_SIZE } from './forms.ts'
import { historySection } from './history.ts'
import { ATTACHMENT_FLASH } from '../views/attachments.ts'
import { documentBoxesFor } from './attachments.ts'
import { activeVendors, deciderOf, placeChoices, startingLocation } from './request-shared.ts'

const flash = flashOf({
  ...ATTACHMENT_FLASH,
  created: 'Saved as a draft. Check it, then submit it for approval.',
  submit: 'Submitted: approved at once, or sent to its approvers.',
  cancel: 'The payment request is cancelled.',
})
const ListPage = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  done: Type.Optional(Type.String({ maxLength: 20 })),
})
const check = bodyChecker(PaymentRequestInput)
const filled = (v: string | undefined): v is string => v !== undefined && v.trim() !== ''

/** The form's fields as the API's body (empty optional fields left out). */
function bodyOf(values: Readonly<Record<string, string>>) {
  return {
    location: idOrText(values.location ?? ''),
    ...(filled(values.department) ? { department: idOrText(values.department) } : {}),
    vendor: idOrText(values.vendor ?? ''),
    ...(filled(values.currency) ? { currency: values.currency } : {}),
    amount: (values.amount ?? '').trim(),
    ...(filled(values.due_date) ? { due_date: values.due_date } : {}),
    invoice_number: (values.invoice_number ?? '').trim(),
    reason: (values.reason ?? '').trim(),
  }
}

export function paymentRequestPages(app: ConsoleApp, deps: ConsoleDeps): void {
  const { db } = deps
  /** The locations where the actor makes payment requests (nav_request), their departments, vendors, currencies. */
  const choices = async (actor: Actor) => {
    const access = await actorLocationAccess(db, actor)
    const place = await placeChoices(deps, actor, (l) => holdsAnyAt(access, l, 'nav_request'))
    const vendors = await activeVendors(deps, actor)
    return { ...place, vendor: vendors.map((v) => ({ value: String(v.id), label: v.name })) }
  }

  app.get('/payment-requests', { schema: { hide: true, querystring: ListPage } }, async (request, reply) => {
    const { actor } = request.session
    const [result, access] = await Promise.all([
      listPaymentRequests(db, actor, { page: request.query.page ?? 1, page_size: PAGE_SIZE, order_by: '-created_at' }),
      actorLocationAccess(db, actor),
    ])
    const makers = locationsWithAny(access, 'nav_request')
    const can = { create: makers === 'all' || makers.length > 0 }
    return sendPage(reply, paymentRequestsView(result, can, request.session, flash(request.query.done)))
  })

  app.get('/payment-requests/new', { schema: { hide: true } }, async (request, reply) => {
    const offered = await choices(request.session.actor)
    const location = await startingLocation(deps, request.session.actor, offered.location)
    return sendPage(reply, paymentRequestFormView({ values: { location }, errors: {} }, offered, request.session))
  })

  app.post('/payment-requests', { schema: { hide: true, body: FormBody } }, async (request, reply) => {
    const values = request.body
    const result = await attempt(values, Object.keys(PAYMENT_REQUEST_LABELS), async () => {
      const checked = check(bodyOf(values))
      if (!checked.ok) throw validationFailed(checked.errors, 'Some fields need another look; see each one below.')
      return createPaymentRequest(db, request.session.actor, checked.value)
    })
    if (result.ok) return reply.redirect(`/console/payment-requests/${result.value.id}?done=created`, 303)
    const offered = await choices(request.session.actor)
    return sendPage(reply, paymentRequestFormView(result.form, offered, request.session, result.message), 400)
  })

  async function show(
    session: ConsoleSession,
    p: PaymentRequest,
    notes: { flash?: string | undefined; problem?: string },
  ) {
    const { actor } = session
    const [access, delegators, runs, history, boxes] = await Promise.all([
      actorLocationAccess(db, actor),
      myDelegators(db, actor),
      runsPayingRequest(db, actor, p.id),
      historySection(deps, actor, 'payment_request', p.id),
      documentBoxesFor(deps, session, 'payment_request', p.id),
    ])
    const owner = p.requester.email === actor.email || actor.permissions.has('superuser')
    const ledTo = ledToBox(
      runs.map((r) => ({
        kind: 'Payment run',
        href: `/console/payment-runs/${r.id}`,
        label: r.number,
        status: RUN_STATUS_NAMES[r.status] ?? r.status,
        amount: r.items.find((i) => i.document.type === 'payment_request' && i.document.id === p.id)?.amount ?? null,
        currency: r.currency,
        date: r.confirmed_at ?? r.created_at,
      })),
      p.status === 'approved'
        ? 'In no payment run yet: accounts payable pays it from the Payments page.'
        : 'Nothing yet: the payment run that pays it will be listed here once it is approved.',
    )
    return paymentRequestView(
      {
        request: p,
        can: {
          submit: owner && p.status === 'draft' && holdsAnyAt(access, p.location.id, 'nav_request'),
          cancel: owner && ['draft', 'pending_approval', 'approved'].includes(p.status),
        },
        decidable: new Set(p.approvals.filter((a) => deciderOf(actor, delegators, a) !== undefined).map((a) => a.id)),
        ledTo,
        history,
        boxes,
        ...notes,
      },
      session,
    )
  }

  app.get(
    '/payment-requests/:id',
    { schema: { hide: true, params: Id, querystring: Done } },
    async (request, reply) => {
      const p = await getPaymentRequest(db, request.session.actor, request.params.id)
      return sendPage(reply, await show(request.session, p, { flash: flash(request.query.done) }))
    },
  )

  const actions = {
    submit: (session: ConsoleSession, id: number) =>
      submitPaymentRequest(db, session.actor, id, mailBaseOf(deps, session.actor.domain)),
    cancel: (session: ConsoleSession, id: number) => cancelPaymentRequest(db, session.actor, id),
  }
  for (const [name, run] of Object.entries(actions))
    app.post(`/payment-requests/:id/${name}`, { schema: { hide: true, params: Id } }, async (request, reply) => {
      const { id } = request.params
      try {
        await run(request.session, id)
      } catch (error) {
        // A refusal is said on the request's page; a request the user may not see stays a 404.
        if (!(error instanceof Problem) || ![400, 403, 409].includes(error.status)) throw error
        const p = await getPaymentRequest(db, request.session.actor, id)
        return sendPage(reply, await show(request.session, p, { problem: error.detail }), error.status)
      }
      return reply.redirect(`/console/payment-requests/${id}?done=${name}`, 303)
    })
}
