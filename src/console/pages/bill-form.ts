/**
 * Entering a bill from its order (`/console/bills/new?order=<id>`: each order line pre-filled with what was
 * received and not yet billed, at the order's unit price and tax rate) and editing a draft — held to the API's
 * own schema (BillInput: the same sentences) and written through the bills service (accounts_payable at the
 * order's location, the invoice number unique per vendor, only issued or closed orders).
 */
import { Type } from 'typebox'
import { actorLocationAccess, holdsAnyAt } from '../../access/location-permissions.ts'
import { BillInput, MAX_BILL_LINES, type Bill } from '../../bills/schema.ts'
import { createBill, getBill, putBill } from '../../bills/service.ts'
import { conflict, forbidden, Problem, validationFailed } from '../../core/problem.ts'
import { bodyChecker } from '../../http/body-check.ts'
import type { PurchaseOrder } from '../../purchase-orders/schema.ts'
import { getOrder } from '../../purchase-orders/service.ts'
import { sendPage, type ConsoleApp, type ConsoleDeps, type ConsoleSession } from '../context.ts'
import { billFormView, ROW_FIELDS, type BillRow } from '../views/bill-form.ts'
import { baseOf, draftRows, orderRows, prefilled, readForm, TOP, type Base } from './bill-form-data.ts'
import type { FormState } from '../views/forms.ts'
import { errorsFor, Id } from './forms.ts'
import { onRows } from './request-form.ts'

const NewQuery = Type.Object({ order: Type.Integer({ minimum: 1, maximum: 2147483647 }) })
const BillForm = Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 2000 }), {
  maxProperties: MAX_BILL_LINES * ROW_FIELDS.length + 10,
})
const checkBill = bodyChecker(BillInput)

export function billFormPages(app: ConsoleApp, deps: ConsoleDeps): void {
  const { db } = deps

  async function mayPay(session: ConsoleSession, locationId: number, what: string) {
    if (!holdsAnyAt(await actorLocationAccess(db, session.actor), locationId, 'accounts_payable'))
      throw forbidden(`${what} needs the accounts_payable permission at the order’s location; ask an administrator.`)
  }
  async function orderToBill(session: ConsoleSession, id: number) {
    const o = await getOrder(db, session.actor, id)
    await mayPay(session, o.location.id, 'Entering a bill')
    if (o.status !== 'issued' && o.status !== 'closed')
      throw conflict(`Purchase order ${o.number} is ${o.status}; only an issued or closed order can be billed.`)
    return o
  }
  async function draftToEdit(session: ConsoleSession, id: number) {
    const b = await getBill(db, session.actor, id)
    await mayPay(session, b.location.id, 'Editing a bill')
    if (b.status !== 'draft') throw conflict(`Bill ${b.number} is ${b.status}; only a draft bill can be edited.`)
    const o = b.purchase_order === null ? undefined : await getOrder(db, session.actor, b.purchase_order)
    return { b, o, ...draftRows(b, o) }
  }

  const page =
    (session: ConsoleSession, o: PurchaseOrder | undefined, b: Bill | undefined, rows: BillRow[]) =>
    (form: FormState, problem?: string) =>
      billFormView(
        {
          title: b === undefined ? `Enter a bill for ${o!.number}` : `Edit bill ${b.number}`,
          action: b === undefined ? `/console/bills/new?order=${o!.id}` : `/console/bills/${b.id}/edit`,
          back:
            b === undefined
              ? { href: `/console/orders/${o!.id}`, label: `Back to ${o!.number}` }
              : { href: `/console/bills/${b.id}`, label: 'Back to the bill' },
          heading: `From ${(o ?? b)!.vendor.name}${o === undefined ? '' : `, against purchase order ${o.number}`}, in ${(o ?? b)!.currency}.`,
          rows,
          form,
          problem,
        },
        session,
      )

  /** Saves through `write`; a refusal comes back as the form with what was typed and the sentence at the top. */
  async function save(
    reply: Parameters<typeof sendPage>[0],
    show: ReturnType<typeof page>,
    body: Readonly<Record<string, string>>,
    rows: number,
    base: Base,
    write: (input: BillInput) => Promise<Bill>,
    done: string,
  ) {
    const { values, input, rowOf } = readForm(body, rows, base)
    const fields = [...TOP, ...Object.keys(values)]
    try {
      if (input.lines.length === 0)
        throw validationFailed({}, 'Enter a quantity for at least one line; a blank quantity leaves a line off.')
      const checked = checkBill(input)
      if (!checked.ok) throw validationFailed(checked.errors, 'Some fields are not valid; see each field.')
      const bill = await write(checked.value)
      return reply.redirect(`/console/bills/${bill.id}?done=${done}`, 303)
    } catch (error) {
      if (!(error instanceof Problem) || ![400, 403, 409].includes(error.status)) throw error
      const errors = onRows([error.extra.errors ?? []].flat()[0] ?? {}, rowOf)
      return sendPage(reply, show({ values, errors: errorsFor(errors, fields) }, error.detail), error.status)
    }
  }

  app.get('/bills/new', { schema: { hide: true, querystring: NewQuery } }, async (request, reply) => {
    const o = await orderToBill(request.session, request.query.order)
    const show = page(request.session, o, undefined, orderRows(o))
    return sendPage(reply, show({ values: prefilled(o), errors: {} }))
  })
  app.post('/bills/new', { schema: { hide: true, querystring: NewQuery, body: BillForm } }, async (request, reply) => {
    const { session } = request
    const o = await orderToBill(session, request.query.order)
    const rows = orderRows(o)
    return save(
      reply,
      page(session, o, undefined, rows),
      request.body,
      rows.length,
      { purchase_order: o.id },
      (input) => createBill(db, session.actor, input),
      'created',
    )
  })
  app.get('/bills/:id/edit', { schema: { hide: true, params: Id } }, async (request, reply) => {
    const { b, o, rows, values } = await draftToEdit(request.session, request.params.id)
    return sendPage(reply, page(request.session, o, b, rows)({ values, errors: {} }))
  })
  app.post('/bills/:id/edit', { schema: { hide: true, params: Id, body: BillForm } }, async (request, reply) => {
    const { session } = request
    const { b, o, rows } = await draftToEdit(session, request.params.id)
    return save(
      reply,
      page(session, o, b, rows),
      request.body,
      rows.length,
      baseOf(b),
      (input) => putBill(db, session.actor, b.id, input),
      'saved',
    )
  })
}
