/**
 * Bills in the console: the list (status and match filters, search, paging) and one bill with its actions —
 * submit, pay with a payment reference, cancel — all through the bills services, so the API's rules and
 * refusals apply as they are (entering and editing a bill is bill-form.ts). Who sees a bill is the API's
 * rule: accounts_payable, nav_purchase or superuser at its location, and its approval candidates (others 404).
 */
import { Type } from 'typebox'
import { actorLocationAccess, holdsAnyAt } from '../../access/location-permissions.ts'
import { cancelBill, payBill, submitBill } from '../../bills/lifecycle.service.ts'
import { PayInput, type Bill } from '../../bills/schema.ts'
import { getBill, listBills } from '../../bills/service.ts'
import { Problem, validationFailed } from '../../core/problem.ts'
import { bodyChecker } from '../../http/body-check.ts'
import { myDelegators } from '../../users/delegation.service.ts'
import { mailBaseOf, sendPage, type ConsoleApp, type ConsoleDeps, type ConsoleSession } from '../context.ts'
import { BILL_STATUS_NAMES, MATCH_FILTERS } from '../views/bill-lines.ts'
import { billsView, billView } from '../views/bills.ts'
import { billFormPages } from './bill-form.ts'
import { Done, flashOf, Id, PAGE_SIZE } from './forms.ts'
import { historySection } from './history.ts'
import { ATTACHMENT_FLASH } from '../views/attachments.ts'
import { documentBoxesFor } from './attachments.ts'
import { deciderOf } from './request-shared.ts'

export const billFlash = flashOf({
  ...ATTACHMENT_FLASH,
  created: 'The bill is saved as a draft. Check it, then submit it for approval.',
  saved: 'The bill is saved.',
  submit: 'The bill is submitted: matched against its order and sent for approval as the rules say.',
  pay: 'The bill is marked paid.',
  cancel: 'The bill is cancelled.',
})

const literals = (names: Readonly<Record<string, string>>) => Type.Union(Object.keys(names).map((s) => Type.Literal(s)))
const BillsQuery = Type.Object({
  search: Type.Optional(Type.String({ maxLength: 200 })),
  status: Type.Optional(Type.Union([literals(BILL_STATUS_NAMES), Type.Literal('')])),
  match: Type.Optional(literals(MATCH_FILTERS)),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  done: Type.Optional(Type.String({ maxLength: 20 })),
})
const PayForm = Type.Object({
  _csrf: Type.Optional(Type.String({ maxLength: 200 })),
  payment_reference: Type.Optional(Type.String({ maxLength: 10_000 })),
})
const checkPay = bodyChecker(PayInput)

export function billPages(app: ConsoleApp, deps: ConsoleDeps): void {
  const { db } = deps

  app.get('/bills', { schema: { hide: true, querystring: BillsQuery } }, async (request, reply) => {
    const { search, page } = request.query
    const status = request.query.status === '' ? undefined : request.query.status
    const match = request.query.match === '' ? undefined : request.query.match
    const result = await listBills(db, request.session.actor, {
      page: page ?? 1,
      page_size: PAGE_SIZE,
      order_by: '-created_at',
      ...(search === undefined || search === '' ? {} : { search }),
      ...(status === undefined ? {} : { status }),
      ...(match === undefined ? {} : { match_status: match }),
    })
    const filter = { search: search === '' ? undefined : search, status, match }
    return sendPage(reply, billsView(result, filter, request.session, billFlash(request.query.done)))
  })

  async function show(session: ConsoleSession, b: Bill, notes: { flash?: string | undefined; problem?: string }) {
    const [delegators, access] = await Promise.all([
      myDelegators(db, session.actor),
      actorLocationAccess(db, session.actor),
    ])
    const decidable = new Set(
      b.approvals.filter((a) => deciderOf(session.actor, delegators, a) !== undefined).map((a) => a.id),
    )
    const payable = holdsAnyAt(access, b.location.id, 'accounts_payable')
    const [history, boxes] = await Promise.all([
      historySection(deps, session.actor, 'bill', b.id),
      documentBoxesFor(deps, session, 'bill', b.id),
    ])
    return billView({ bill: b, payable, decidable, history, boxes, ...notes }, session)
  }

  app.get('/bills/:id', { schema: { hide: true, params: Id, querystring: Done } }, async (request, reply) => {
    const b = await getBill(db, request.session.actor, request.params.id)
    return sendPage(reply, await show(request.session, b, { flash: billFlash(request.query.done) }))
  })

  /** Runs an action; a refusal (400, 403, 409) is said on the bill's page, a hidden bill stays a 404. */
  async function act(
    session: ConsoleSession,
    id: number,
    run: () => Promise<unknown>,
    done: string,
    reply: { redirect(url: string, code: number): unknown },
  ) {
    try {
      await run()
    } catch (error) {
      if (!(error instanceof Problem) || ![400, 403, 409].includes(error.status)) throw error
      const b = await getBill(db, session.actor, id)
      return sendPage(reply as never, await show(session, b, { problem: error.detail }), error.status)
    }
    return reply.redirect(`/console/bills/${id}?done=${done}`, 303)
  }

  for (const [action, run] of Object.entries({ submit: submitBill, cancel: cancelBill }))
    app.post(`/bills/:id/${action}`, { schema: { hide: true, params: Id } }, async (request, reply) =>
      act(
        request.session,
        request.params.id,
        () => run(db, request.session.actor, request.params.id, mailBaseOf(deps, request.session.actor.domain)),
        action,
        reply,
      ),
    )

  app.post('/bills/:id/pay', { schema: { hide: true, params: Id, body: PayForm } }, async (request, reply) => {
    const reference = (request.body.payment_reference ?? '').trim()
    return act(
      request.session,
      request.params.id,
      async () => {
        if (reference === '')
          throw validationFailed({}, 'Enter the payment reference (the transfer or cheque) to mark the bill paid.')
        const checked = checkPay({ payment_reference: reference })
        if (!checked.ok)
          throw validationFailed({}, `The payment reference ${Object.values(checked.errors).flat().join('; ')}.`)
        return payBill(db, request.session.actor, request.params.id, { payment_reference: reference })
      },
      'pay',
      reply,
    )
  })

  billFormPages(app, deps)
}
