/**
 * A receipt per expense line from the console (DECISIONS, "Expense reports and travel requests"): on a draft
 * or rejected report its employee uploads a photo or PDF for one line — a plain multipart form, a phone's
 * camera offered (`capture`) — which becomes an attachment of the report (the attachment service's upload,
 * every rule of it) and that line's `receipt` (the report service's `setReceipt`: that line alone, the report
 * locked). If the report refuses it (it was submitted meanwhile), the new attachment is removed
 * again. A refusal is said on a page that links back to the report.
 */
import { Type } from 'typebox'
import type { Actor } from '../../access/actor.ts'
import { uploadAttachment } from '../../attachments/add.ts'
import { deleteAttachment } from '../../attachments/service.ts'
import { conflict, forbidden, notFound, Problem } from '../../core/problem.ts'
import type { ExpenseReport } from '../../expense-reports/schema.ts'
import { getReport, setReceipt } from '../../expense-reports/service.ts'
import { sendPage, type ConsoleApp, type ConsoleDeps } from '../context.ts'
import { forwarded } from '../multipart.ts'
import { attachmentProblemView } from '../views/attachments.ts'

const Int = Type.Integer({ minimum: 1, maximum: 2147483647 })
const LineParams = Type.Object({ id: Int, line: Int })

/** Whether `actor` may attach receipts to `r`'s lines now: its employee, while it is a draft or rejected. */
export const receiptsEditable = (r: ExpenseReport, actor: Actor) =>
  r.employee.email.toLowerCase() === (actor.email ?? '').toLowerCase() && ['draft', 'rejected'].includes(r.status)

export function expenseReceiptPages(app: ConsoleApp, deps: ConsoleDeps): void {
  const { db, config } = deps
  app.post(
    '/expenses/:id/lines/:line/receipt',
    { config: { multipartForm: true }, schema: { hide: true, params: LineParams } },
    async (request, reply) => {
      const { id, line } = request.params
      const { actor } = request.session
      const r = await getReport(db, actor, id)
      const index = r.lines.findIndex((l) => l.id === line)
      try {
        if (index < 0) throw notFound(`Expense report ${r.number} has no line ${line}.`)
        if (r.employee.email.toLowerCase() !== (actor.email ?? '').toLowerCase())
          throw forbidden(`Only the employee who made expense report ${r.number} adds its receipts.`)
        if (!receiptsEditable(r, actor))
          throw conflict(
            `Expense report ${r.number} is no longer a draft, so its receipts cannot change; add the file in its Attachments box instead.`,
          )
        const attachment = await uploadAttachment(db, config, actor, 'expense_report', id, forwarded(request))
        try {
          await setReceipt(db, actor, id, line, attachment.id)
        } catch (error) {
          await deleteAttachment(db, config, actor, attachment.id).catch(() => undefined)
          throw error
        }
      } catch (error) {
        if (!(error instanceof Problem) || ![400, 403, 409, 413, 415, 422].includes(error.status)) throw error
        const back = { path: `/console/expenses/${id}`, label: `expense report ${r.number}` }
        const title = `The receipt of line ${index + 1} was not attached`
        return sendPage(reply, attachmentProblemView(title, error.detail, back, request.session), error.status)
      }
      return reply.redirect(`/console/expenses/${id}?done=receipt`, 303)
    },
  )
}
