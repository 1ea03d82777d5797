/**
 * Purchase orders in the console: the orders list (status filter, search) and the Receiving list, one order
 * with its actions (issue, e-mail to chosen recipients, close, reopen, cancel, close a line, PDF), and orders
 * made from an approved request in one click — all through the services, so the API's rules and refusals
 * apply as they are. The order form is order-edit.ts, the receiving form receiving.ts.
 */
import { Type } from 'typebox'
import { actorLocationAccess, locationsWithAny } from '../../access/location-permissions.ts'
import { Problem } from '../../core/problem.ts'
import { ordersFromRequest } from '../../purchase-orders/from-request.service.ts'
import { cancelOrder, closeLine, closeOrder, issueOrder, reopenOrder } from '../../purchase-orders/lifecycle.service.ts'
import { orderPdf, sendOrder } from '../../purchase-orders/send.service.ts'
import { getOrder, listOrders } from '../../purchase-orders/service.ts'
import { mailBaseOf, sendPage, type ConsoleApp, type ConsoleDeps, type ConsoleSession } from '../context.ts'
import { ORDER_STATUS_NAMES, ordersView } from '../views/orders.ts'
import { Done, flashOf, FormBody, Id, PAGE_SIZE } from './forms.ts'
import { orderEditPages } from './order-edit.ts'
import { ATTACHMENT_FLASH } from '../views/attachments.ts'
import { orderPage, readRecipients, type PageNotes } from './order-page.ts'
import { receivingPages } from './receiving.ts'

const flash = flashOf({
  ...ATTACHMENT_FLASH,
  made: 'A draft order is made from the request (its lines have one vendor). Issue it when it is complete.',
  created: 'The draft order is saved. Issue it when it is complete.',
  saved: 'Your changes to the draft are saved.',
  revised: 'The revision is applied: the order is at its next version.',
  held:
    'The revision goes beyond the approval tolerance, so it waits for approval; the order stays as it was until ' +
    'the steps below are approved.',
  issue: 'The order is issued (or waits for approval when the rules ask for it).',
  send: 'The order is e-mailed to the vendor with its PDF.',
  queued:
    'No mail server is set up, so the e-mail to the vendor is queued in the outbox, not sent. Its PDF can be ' +
    'downloaded there (or with “PDF” above) to forward it yourself.',
  close: 'The order is closed.',
  reopen: 'The order is open again.',
  cancel: 'The order is cancelled.',
  line: 'The line is closed.',
})
/** Why the order's form did not open (order-edit.ts): fixed sentences, never echoed input. */
const problemOf = flashOf({
  state: 'Only a draft can be edited, or an issued order revised; this order is neither now.',
  pending: 'A revision of this order waits for approval; it must be approved or rejected before another.',
})

const Status = Type.Union(Object.keys(ORDER_STATUS_NAMES).map((s) => Type.Literal(s)))
const OrdersQuery = Type.Object({
  search: Type.Optional(Type.String({ maxLength: 200 })),
  status: Type.Optional(Type.Union([Status, Type.Literal('')])),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
})
const OrderQuery = Type.Object({ ...Done.properties, problem: Type.Optional(Type.String({ maxLength: 20 })) })
const LineParams = Type.Object({
  id: Type.Integer({ minimum: 1, maximum: 2147483647 }),
  line: Type.Integer({ minimum: 1, maximum: 2147483647 }),
})

export function orderPages(app: ConsoleApp, deps: ConsoleDeps): void {
  const { db } = deps

  const list = (path: string, title: string, current: string, only?: 'issued') =>
    app.get(path, { schema: { hide: true, querystring: OrdersQuery } }, async (request, reply) => {
      const { actor } = request.session
      const { search, page } = request.query
      const status = only ?? (request.query.status === '' ? undefined : request.query.status)
      const result = await listOrders(db, actor, {
        page: page ?? 1,
        page_size: PAGE_SIZE,
        order_by: '-created_at',
        ...(search === undefined || search === '' ? {} : { search }),
        ...(status === undefined ? {} : { status }),
      })
      const filter = { search: search === '' ? undefined : search, status: only === undefined ? status : undefined }
      const canCreate =
        only === undefined && locationsWithAny(await actorLocationAccess(db, actor), 'nav_purchase').length !== 0
      const base = { path: `/console${path}`, title, current, canCreate }
      return sendPage(reply, ordersView(result, filter, request.session, base))
    })
  list('/orders', 'Purchase orders', 'orders')
  list('/receiving', 'Receiving', 'receiving', 'issued')

  const show = (session: ConsoleSession, id: number, notes: PageNotes) =>
    getOrder(db, session.actor, id).then((o) => orderPage(deps, session, o, notes))

  app.get('/orders/:id', { schema: { hide: true, params: Id, querystring: OrderQuery } }, async (request, reply) =>
    sendPage(
      reply,
      await show(request.session, request.params.id, {
        flash: flash(request.query.done),
        problem: problemOf(request.query.problem),
      }),
    ),
  )

  app.get('/orders/:id/pdf', { schema: { hide: true, params: Id } }, async (request, reply) => {
    const { number, pdf } = await orderPdf(db, request.session.actor, request.params.id)
    return reply.type('application/pdf').header('content-disposition', `inline; filename="${number}.pdf"`).send(pdf)
  })

  /** Runs an action; a refusal (409, 403, 400) is said on the order's page, a hidden order stays a 404. */
  async function act(session: ConsoleSession, id: number, run: () => Promise<unknown>, done: string, form?: PageNotes) {
    try {
      await run()
    } catch (error) {
      if (!(error instanceof Problem) || ![400, 403, 409].includes(error.status)) throw error
      const notes = { ...form, problem: error.detail }
      return { status: error.status, page: await show(session, id, notes) }
    }
    return { status: 303, page: `/console/orders/${id}?done=${done}` }
  }
  const answer = (reply: { redirect(url: string, code: number): unknown }, r: { status: number; page: string }) =>
    r.status === 303 ? reply.redirect(r.page, 303) : sendPage(reply as never, r.page, r.status)

  const actions = { issue: issueOrder, close: closeOrder, reopen: reopenOrder, cancel: cancelOrder } as const
  for (const [action, run] of Object.entries(actions))
    app.post(`/orders/:id/${action}`, { schema: { hide: true, params: Id } }, async (request, reply) =>
      answer(
        reply,
        await act(
          request.session,
          request.params.id,
          () => run(db, request.session.actor, request.params.id, mailBaseOf(deps, request.session.actor.domain)),
          action,
        ),
      ),
    )

  /** E-mail the order to the recipients typed (prefilled with the vendor's); a bad address is said at the field. */
  app.post('/orders/:id/send', { schema: { hide: true, params: Id, body: FormBody } }, async (request, reply) => {
    const { session } = request
    const { id } = request.params
    const values = { to: request.body.to ?? '', message: request.body.message ?? '' }
    const read = readRecipients(request.body)
    if (!read.ok) {
      const page = await show(session, id, {
        send: { values, errors: read.errors },
        sendProblem: 'The order was not e-mailed; see the fields below.',
      })
      return sendPage(reply, page, 400)
    }
    const form = { send: { values, errors: {} } }
    // Without a mail server nothing leaves: the page says it is queued, not e-mailed.
    const done = deps.config.SMTP_URL === undefined ? 'queued' : 'send'
    return answer(reply, await act(session, id, () => sendOrder(db, session.actor, id, read.input), done, form))
  })
  app.post('/orders/:id/lines/:line/close', { schema: { hide: true, params: LineParams } }, async (request, reply) =>
    answer(
      reply,
      await act(
        request.session,
        request.params.id,
        () => closeLine(db, request.session.actor, request.params.id, request.params.line),
        'line',
      ),
    ),
  )

  app.post('/requests/:id/order', { schema: { hide: true, params: Id } }, async (request, reply) => {
    try {
      const orders = await ordersFromRequest(db, request.session.actor, request.params.id, {})
      // One order goes straight to it; several are all listed on the request's page ("What it led to").
      if (orders.length === 1) return reply.redirect(`/console/orders/${orders[0]!.id}?done=made`, 303)
      return reply.redirect(`/console/requests/${request.params.id}?done=ordered#led-to`, 303)
    } catch (error) {
      if (!(error instanceof Problem) || ![400, 403, 409].includes(error.status)) throw error
      const code = error.status === 400 ? 'novendor' : error.status === 403 ? 'permission' : 'ordered'
      return reply.redirect(`/console/requests/${request.params.id}?problem=${code}`, 303)
    }
  })

  orderEditPages(app, deps)
  receivingPages(app, deps)
}
