/**
 * Purchase orders and receiving in the console: the orders list (status filter, search), one order with its
 * actions (issue, e-mail, close, reopen, cancel, close a line, PDF), orders made from an approved request in
 * one click, and the receiving page (a form per order: accepted and rejected quantities per open line, packing
 * slip; its receipts with void) — all through the services, so the API's rules and refusals apply as they are.
 */
import { Type } from 'typebox'
import { actorLocationAccess, holdsAnyAt } from '../../access/location-permissions.ts'
import { parseDecimal } from '../../core/decimal.ts'
import { Problem, validationFailed } from '../../core/problem.ts'
import { ordersFromRequest } from '../../purchase-orders/from-request.service.ts'
import { cancelOrder, closeLine, closeOrder, issueOrder, reopenOrder } from '../../purchase-orders/lifecycle.service.ts'
import type { PurchaseOrder } from '../../purchase-orders/schema.ts'
import { orderPdf, sendOrder } from '../../purchase-orders/send.service.ts'
import { getOrder, listOrders, listRevisions } from '../../purchase-orders/service.ts'
import { createReceipt, getReceipt, listReceipts, voidReceipt } from '../../receipts/service.ts'
import { myDelegators } from '../../users/delegation.service.ts'
import { sendPage, type ConsoleApp, type ConsoleDeps, type ConsoleSession } from '../context.ts'
import { ORDER_STATUS_NAMES, ordersView, orderView } from '../views/orders.ts'
import { receivingView } from '../views/receiving.ts'
import { Done, flashOf, FormBody, Id, PAGE_SIZE } from './forms.ts'
import { deciderOf } from './request-shared.ts'

const flash = flashOf({
  made: 'Draft orders are made from the request, one per vendor.',
  issue: 'The order is issued (or waits for approval when the rules ask for it).',
  send: 'The order is e-mailed to the vendor with its PDF.',
  close: 'The order is closed.',
  reopen: 'The order is open again.',
  cancel: 'The order is cancelled.',
  line: 'The line is closed.',
  received: 'The receipt is posted.',
  voided: 'The receipt is voided.',
})

const Status = Type.Union(Object.keys(ORDER_STATUS_NAMES).map((s) => Type.Literal(s)))
const OrdersQuery = Type.Object({
  search: Type.Optional(Type.String({ maxLength: 200 })),
  status: Type.Optional(Type.Union([Status, Type.Literal('')])),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
})
const LineParams = Type.Object({
  id: Type.Integer({ minimum: 1, maximum: 2147483647 }),
  line: Type.Integer({ minimum: 1, maximum: 2147483647 }),
})

export function orderPages(app: ConsoleApp, deps: ConsoleDeps): void {
  const { db } = deps

  const list = (path: string, title: string, current: string, only?: 'issued') =>
    app.get(path, { schema: { hide: true, querystring: OrdersQuery } }, async (request, reply) => {
      const { search, page } = request.query
      const status = only ?? (request.query.status === '' ? undefined : request.query.status)
      const result = await listOrders(db, request.session.actor, {
        page: page ?? 1,
        page_size: PAGE_SIZE,
        order_by: '-created_at',
        ...(search === undefined || search === '' ? {} : { search }),
        ...(status === undefined ? {} : { status }),
      })
      const filter = { search: search === '' ? undefined : search, status: only === undefined ? status : undefined }
      return sendPage(reply, ordersView(result, filter, request.session, { path: `/console${path}`, title, current }))
    })
  list('/orders', 'Purchase orders', 'orders')
  list('/receiving', 'Receiving', 'receiving', 'issued')

  async function show(session: ConsoleSession, o: PurchaseOrder, notes: { flash?: string; problem?: string }) {
    const [revisions, delegators, access] = await Promise.all([
      listRevisions(db, session.actor, o.id),
      myDelegators(db, session.actor),
      actorLocationAccess(db, session.actor),
    ])
    const decidable = new Set(
      o.approvals.filter((a) => deciderOf(session.actor, delegators, a) !== undefined).map((a) => a.id),
    )
    const can = {
      purchase: holdsAnyAt(access, o.location.id, 'nav_purchase'),
      receive: holdsAnyAt(access, o.location.id, 'nav_receive'),
    }
    return orderView({ order: o, revisions, can, decidable, flash: notes.flash, problem: notes.problem }, session)
  }

  app.get('/orders/:id', { schema: { hide: true, params: Id, querystring: Done } }, async (request, reply) => {
    const o = await getOrder(db, request.session.actor, request.params.id)
    const note = flash(request.query.done)
    return sendPage(reply, await show(request.session, o, note === undefined ? {} : { flash: note }))
  })

  app.get('/orders/:id/pdf', { schema: { hide: true, params: Id } }, async (request, reply) => {
    const { number, pdf } = await orderPdf(db, request.session.actor, request.params.id)
    return reply.type('application/pdf').header('content-disposition', `inline; filename="${number}.pdf"`).send(pdf)
  })

  /** Runs an action; a refusal (409, 403, 400) is said on the order's page, a hidden order stays a 404. */
  async function act(session: ConsoleSession, id: number, run: () => Promise<unknown>, done: string) {
    try {
      await run()
    } catch (error) {
      if (!(error instanceof Problem) || ![400, 403, 409].includes(error.status)) throw error
      const o = await getOrder(db, session.actor, id)
      return { status: error.status, page: await show(session, o, { problem: error.detail }) }
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
        await act(request.session, request.params.id, () => run(db, request.session.actor, request.params.id), action),
      ),
    )
  app.post('/orders/:id/send', { schema: { hide: true, params: Id } }, async (request, reply) =>
    answer(
      reply,
      await act(
        request.session,
        request.params.id,
        () => sendOrder(db, request.session.actor, request.params.id, {}),
        'send',
      ),
    ),
  )
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
      return reply.redirect(`/console/orders/${orders[0]!.id}?done=made`, 303)
    } catch (error) {
      if (!(error instanceof Problem) || ![400, 403, 409].includes(error.status)) throw error
      const code = error.status === 400 ? 'novendor' : error.status === 403 ? 'permission' : 'ordered'
      return reply.redirect(`/console/requests/${request.params.id}?problem=${code}`, 303)
    }
  })

  async function receiving(session: ConsoleSession, id: number, form: Parameters<typeof receivingView>[2]) {
    const o = await getOrder(db, session.actor, id)
    const receipts = await listReceipts(db, session.actor, { purchase_order: id, page: 1, page_size: 100 })
    return receivingView(o, receipts.rows, form, session)
  }

  app.get('/orders/:id/receive', { schema: { hide: true, params: Id, querystring: Done } }, async (request, reply) =>
    sendPage(
      reply,
      await receiving(request.session, request.params.id, { values: {}, flash: flash(request.query.done) }),
    ),
  )

  app.post('/orders/:id/receive', { schema: { hide: true, params: Id, body: FormBody } }, async (request, reply) => {
    const { actor } = request.session
    const { id } = request.params
    const body = request.body
    const lines = Object.keys(body)
      .filter((k) => k.startsWith('accepted.') || k.startsWith('rejected.'))
      .map((k) => Number(k.split('.')[1]))
      .filter((n, i, all) => Number.isInteger(n) && all.indexOf(n) === i)
      .map((line) => ({
        po_line: line,
        accepted_quantity: (body[`accepted.${line}`] ?? '').trim() || '0',
        rejected_quantity: (body[`rejected.${line}`] ?? '').trim() || '0',
      }))
      .filter((l) => l.accepted_quantity !== '0' || l.rejected_quantity !== '0')
    try {
      const bad = lines.find((l) => !isDecimal(l.accepted_quantity) || !isDecimal(l.rejected_quantity))
      if (bad !== undefined)
        throw validationFailed({}, `Quantities are numbers like 2 or 1.5; line ${bad.po_line} has something else.`)
      if (lines.length === 0) throw validationFailed({}, 'Enter a quantity accepted or rejected for at least one line.')
      await createReceipt(db, actor, { purchase_order: id, packing_slip: body.packing_slip ?? '', lines })
    } catch (error) {
      if (!(error instanceof Problem) || ![400, 403, 409].includes(error.status)) throw error
      const page = await receiving(request.session, id, { values: body, problem: error.detail })
      return sendPage(reply, page, error.status)
    }
    return reply.redirect(`/console/orders/${id}/receive?done=received`, 303)
  })

  app.post('/receipts/:id/void', { schema: { hide: true, params: Id } }, async (request, reply) => {
    const { actor } = request.session
    const receipt = await getReceipt(db, actor, request.params.id)
    try {
      await voidReceipt(db, actor, receipt.id)
    } catch (error) {
      if (!(error instanceof Problem) || ![403, 409].includes(error.status)) throw error
      const page = await receiving(request.session, receipt.purchase_order, { values: {}, problem: error.detail })
      return sendPage(reply, page, error.status)
    }
    return reply.redirect(`/console/orders/${receipt.purchase_order}/receive?done=voided`, 303)
  })
}

function isDecimal(text: string) {
  try {
    parseDecimal(text)
    return true
  } catch {
    return false
  }
}
