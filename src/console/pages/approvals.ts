/**
 * The approvals inbox in the console: what the signed-in user decides (as a candidate, or as the delegatee
 * of an away candidate) — requests, purchase orders and bills — and one approval's decision page — approve, or reject with a comment — through the
 * approval service. A decision refused because the state moved on (a 409) or the user may not decide (403)
 * is said on the decision page, not as an error page.
 */
import { Type } from 'typebox'
import { Decision, Rejection } from '../../approvals/schema.ts'
import { billsByIds, getBill } from '../../bills/service.ts'
import { approve, getApproval, listApprovals, reject } from '../../approvals/service.ts'
import { notFound, Problem } from '../../core/problem.ts'
import { bodyChecker } from '../../http/body-check.ts'
import { getOrder, ordersByIds } from '../../purchase-orders/service.ts'
import { getRequest, requestsByIds } from '../../requests/service.ts'
import { myDelegators } from '../../users/delegation.service.ts'
import { mailBaseOf, sendPage, type ConsoleApp, type ConsoleDeps, type ConsoleSession } from '../context.ts'
import type { FormState } from '../views/forms.ts'
import { approvalsView, decisionView, INBOX_FILTERS, type InboxRow } from '../views/approvals.ts'
import { errorsFor, flashOf, Id, PAGE_SIZE } from './forms.ts'
import { deciderOf, vendorNamesOf } from './request-shared.ts'

const InboxQuery = Type.Object({
  status: Type.Optional(Type.Union(Object.keys(INBOX_FILTERS).map((s) => Type.Literal(s)))),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  done: Type.Optional(Type.String({ maxLength: 20 })),
})
const DecisionForm = Type.Object({
  _csrf: Type.Optional(Type.String({ maxLength: 200 })),
  comment: Type.Optional(Type.String({ maxLength: 10_000 })),
  decision: Type.Union([Type.Literal('approve'), Type.Literal('reject')]),
})
const checkRejection = bodyChecker(Rejection)
const checkDecision = bodyChecker(Decision)
/** The `done` each decision leads to ("reject" + "d" was once `rejectd`, which showed nothing). */
const DONE = { approve: 'approved', reject: 'rejected' } as const
const flash = flashOf({ approved: 'Approved. The request moves on.', rejected: 'Rejected. The requester is told why.' })

export function approvalPages(app: ConsoleApp, deps: ConsoleDeps): void {
  const { db } = deps

  app.get('/approvals', { schema: { hide: true, querystring: InboxQuery } }, async (request, reply) => {
    const { actor } = request.session
    const status = request.query.status ?? 'pending'
    const [result, delegators] = await Promise.all([
      listApprovals(db, actor, {
        approver: 'me',
        status: status,
        page: request.query.page ?? 1,
        page_size: PAGE_SIZE,
        order_by: status === 'pending' ? 'created_at' : '-created_at',
      }),
      myDelegators(db, actor),
    ])
    const requests = new Map(
      (
        await requestsByIds(
          db,
          actor,
          result.rows.flatMap((a) => (a.request === null ? [] : [a.request])),
        )
      ).map((r) => [r.id, r]),
    )
    const orderIds = result.rows.flatMap((a) => (a.document.type === 'purchase_order' ? [a.document.id] : []))
    const orders = new Map((await ordersByIds(db, actor, orderIds)).map((o) => [o.id, o]))
    const billIds = result.rows.flatMap((a) => (a.document.type === 'bill' ? [a.document.id] : []))
    const bills = new Map((await billsByIds(db, actor, billIds)).map((b) => [b.id, b]))
    const rows: InboxRow[] = result.rows.map((a) => ({
      approval: a,
      request: a.request === null ? undefined : requests.get(a.request),
      order: a.document.type === 'purchase_order' ? orders.get(a.document.id) : undefined,
      bill: a.document.type === 'bill' ? bills.get(a.document.id) : undefined,
      onBehalfOf:
        a.status === 'pending' ? (deciderOf(actor, delegators, a)?.onBehalfOf ?? null) : (a.on_behalf_of ?? null),
    }))
    return sendPage(reply, approvalsView({ ...result, rows }, status, request.session, flash(request.query.done)))
  })

  async function decisionPage(session: ConsoleSession, id: number, form: FormState, problem?: string) {
    const approval = await getApproval(db, session.actor, id)
    if (approval.request === null) {
      const { type, id: documentId } = approval.document
      if (type !== 'purchase_order' && type !== 'bill') throw notFound(`Approval ${id} is decided through the API.`)
      const [document, delegators] = await Promise.all([
        type === 'bill'
          ? getBill(db, session.actor, documentId).then((bill) => ({ bill }))
          : getOrder(db, session.actor, documentId).then((order) => ({ order })),
        myDelegators(db, session.actor),
      ])
      const onBehalfOf = deciderOf(session.actor, delegators, approval)?.onBehalfOf
      return decisionView({ approval, ...document, vendors: new Map(), onBehalfOf, form, problem }, session)
    }
    const [request, delegators] = await Promise.all([
      getRequest(db, session.actor, approval.request),
      myDelegators(db, session.actor),
    ])
    const vendors = await vendorNamesOf(deps, session.actor, request)
    return decisionView(
      {
        approval,
        request,
        vendors,
        onBehalfOf: deciderOf(session.actor, delegators, approval)?.onBehalfOf,
        form,
        problem,
      },
      session,
    )
  }

  app.get('/approvals/:id', { schema: { hide: true, params: Id } }, async (request, reply) =>
    sendPage(reply, await decisionPage(request.session, request.params.id, { values: {}, errors: {} })),
  )

  app.post('/approvals/:id', { schema: { hide: true, params: Id, body: DecisionForm } }, async (request, reply) => {
    const { actor } = request.session
    const { id } = request.params
    const comment = request.body.comment ?? ''
    const values = { comment }
    // The API's own checks: a rejection needs a comment, and a comment has the API's length limit.
    const rejecting = request.body.decision === 'reject'
    const checked = (rejecting ? checkRejection : checkDecision)({ comment: comment.trim() })
    if (!checked.ok) {
      const messages =
        rejecting && comment.trim() === '' ? { comment: ['is required to reject: say why'] } : checked.errors
      const form = { values, errors: errorsFor(messages, ['comment']) }
      return sendPage(reply, await decisionPage(request.session, id, form), 400)
    }
    try {
      const base = mailBaseOf(deps, actor.domain)
      if (request.body.decision === 'approve') await approve(db, actor, id, comment.trim(), base)
      else await reject(db, actor, id, comment, base)
    } catch (error) {
      if (!(error instanceof Problem) || ![400, 403, 409].includes(error.status)) throw error
      return sendPage(
        reply,
        await decisionPage(request.session, id, { values, errors: {} }, error.detail),
        error.status,
      )
    }
    return reply.redirect(`/console/approvals?done=${DONE[request.body.decision]}`, 303)
  })
}
