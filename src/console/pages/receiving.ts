/**
 * Receiving in the console: the form for one issued order (accepted and rejected quantities per open line,
 * the packing slip) and its receipts, each with its void — through the receipts service, so the API's rules
 * and refusals (a quantity beyond what is open is a 409 naming the line) apply as they are.
 */
import { parseDecimal } from '../../core/decimal.ts'
import { Problem, validationFailed } from '../../core/problem.ts'
import { getOrder } from '../../purchase-orders/service.ts'
import { createReceipt, getReceipt, listReceipts, voidReceipt } from '../../receipts/service.ts'
import { sendPage, type ConsoleApp, type ConsoleDeps, type ConsoleSession } from '../context.ts'
import { receivingView } from '../views/receiving.ts'
import { Done, flashOf, FormBody, Id } from './forms.ts'

const flash = flashOf({
  received: 'The receipt is posted.',
  voided: 'The receipt is voided.',
})

export function receivingPages(app: ConsoleApp, deps: ConsoleDeps): void {
  const { db } = deps

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
