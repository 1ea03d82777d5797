/** One receipt's page (/console/receipts/:id): for whoever may see it, as the API's GET answers. */
import { Problem } from '../../core/problem.ts'
import { getOrder } from '../../purchase-orders/service.ts'
import { getReceipt } from '../../receipts/service.ts'
import { sendPage, type ConsoleApp, type ConsoleDeps } from '../context.ts'
import { receiptView } from '../views/receipt.ts'
import { ATTACHMENT_FLASH } from '../views/attachments.ts'
import { documentBoxesFor } from './attachments.ts'
import { Done, flashOf, Id } from './forms.ts'
import { historySection } from './history.ts'

const flash = flashOf(ATTACHMENT_FLASH)

export function receiptPages(app: ConsoleApp, deps: ConsoleDeps): void {
  app.get('/receipts/:id', { schema: { hide: true, params: Id, querystring: Done } }, async (request, reply) => {
    const { actor } = request.session
    const receipt = await getReceipt(deps.db, actor, request.params.id)
    const [order, history, boxes] = await Promise.all([
      getOrder(deps.db, actor, receipt.purchase_order).catch((error: unknown) => {
        if (error instanceof Problem && error.status === 404) return undefined
        throw error
      }),
      historySection(deps, actor, 'receipt', receipt.id),
      documentBoxesFor(deps, request.session, 'receipt', receipt.id),
    ])
    const view = { receipt, order, history, boxes, flash: flash(request.query.done) }
    return sendPage(reply, receiptView(view, request.session))
  })
}
