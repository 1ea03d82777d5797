/**
 * The approvals inbox in the console: what the signed-in user decides (as a candidate, or as the delegatee
 * of an away candidate) — requests, purchase orders, bills, expense reports, travel and payment requests, payment
 * runs — and one approval's decision page — approve, or reject with a comment — through the
 * approval service. A decision refused because the state moved on (a 409) or the user may not decide (403)
 * is said on the decision page, not as an error page.
 */
import { Type } from 'typebox'
import { Decision, Rejection } from '../../approvals/schema.ts'
import { billsByIds, getBill } from '../../bills/service.ts'
import { reportsByIds } from '../../expense-reports/service.ts'
import { travelByIds } from '../../travel-requests/service.ts'
import { otherDocument } from './expenses.ts'
import { approve, getApproval, listApprovals, reject } from '../../approvals/service.ts'
import { notFound, Problem } from '../../core/problem.ts'
import { bodyChecker } from '../../http/body-check.ts'
import { getPaymentRequest } from '../../payment-requests/service.ts'
import { getRun } from '../../payment-runs/service.ts'
import { getOrder, ordersByIds } from '../../purchase-orders/service.ts'
import { getRequest, requestsByIds } from '../../requests/service.ts'
import { myDelegators } from '../../users/delegation.service.ts'
import { mailBaseOf, sendPage, type ConsoleApp, type ConsoleDeps, type ConsoleSession } from '../context.ts'
import type { FormState } from '../views/forms.ts'
import { paymentRequestSummary, paymentRunSummary } from '../views/approval-documents.ts'
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

/** `read`'s document, or undefined when the user may not see it (a 404): the inbox row then shows less. */
const visibleOrUndefined = <T>(read: Promise<T>): Promise<T | undefined> =>
  read.catch((error: unknown) => {
    if (error instanceof Problem && error.status === 404) return undefined
    throw error
  })

/** A payment request or a payment run as the decision page shows it: named, linked and summarised. */
async function paymentDocument(db: ConsoleDeps['db'], session: ConsoleSession, type: string, id: number) {
  if (type === 'payment_request') {
    const p = await getPaymentRequest(db, session.actor, id)
    return {
      name: `payment request ${p.number}`,
      href: `/console/payment-requests/${p.id}`,
      link: `Open payment request ${p.number}`,
      summary: paymentRequestSummary(p),
    }
  }
  const run = await getRun(db, session.actor, id)
  return {
    name: `payment run ${run.number}`,
    href: `/console/payment-runs/${run.id}`,
    link: `Open payment run ${run.number}`,
    summary: paymentRunSummary(run),
  }
}
const checkDecision = bodyChecker(Decision)
/** The `done` each decision leads to ("reject" + "d" was once `rejectd`, which showed nothing). */
const DONE = { approve: 'approved', reject: 'rejected' } as const
/**
 * What a decision did, said of the document decided (a bill, an order, an expense report — never "the
 * request" for them): `done` is the decision, then the document's short name (`approved-bill`).
 */
const flash = flashOf({
  approved: 'Approved. The request moves on to its next step, or is approved when this was the last.',
  rejected: 'Rejected. The requester is told why.',
  'approved-order':
    'Approved. The purchase order moves on to its next step, or is issued (or its revision applied) when this was the last.',
  'rejected-order': 'Rejected. The purchase order is not issued (a revision is dropped); your comment is kept with it.',
  'approved-bill': 'Approved. The bill moves on to its next step, or is ready to be paid when this was the last.',
  'rejected-bill': 'Rejected. The bill goes back to draft for accounts payable, with your comment.',
  'approved-expense':
    'Approved. The expense report moves on to its next step, or is ready to be reimbursed when this was the last.',
  'rejected-expense': 'Rejected. The expense report goes back to its employee with your comment.',
  'approved-travel': 'Approved. The travel request moves on to its next step, or is approved when this was the last.',
  'rejected-travel': 'Rejected. The travel request goes back to its traveller with your comment.',
  'approved-payment': 'Approved. The payment moves on to its next step, or is approved when this was the last.',
  'rejected-payment': 'Rejected. The payment is not made; your comment is kept with it.',
})
/** The `done` suffix of each document type (a request has none: `approved`, `rejected`). */
const DONE_OF: Readonly<Record<string, string>> = {
  purchase_order: '-order',
  bill: '-bill',
  expense_report: '-expense',
  travel_request: '-travel',
  payment_request: '-payment',
  payment_run: '-payment',
}

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
    const idsOf = (type: string) => result.rows.flatMap((a) => (a.document.type === type ? [a.document.id] : []))
    const expenses = new Map((await reportsByIds(db, actor, idsOf('expense_report'))).map((e) => [e.id, e]))
    const trips = new Map((await travelByIds(db, actor, idsOf('travel_request'))).map((t) => [t.id, t]))
    // Payment approvals are few on a page: each document read on its own.
    const payments = new Map(
      await Promise.all(
        idsOf('payment_request').map(
          async (pid) => [pid, await visibleOrUndefined(getPaymentRequest(db, actor, pid))] as const,
        ),
      ),
    )
    const runs = new Map(
      await Promise.all(
        idsOf('payment_run').map(async (rid) => [rid, await visibleOrUndefined(getRun(db, actor, rid))] as const),
      ),
    )
    const rows: InboxRow[] = result.rows.map((a) => ({
      approval: a,
      request: a.request === null ? undefined : requests.get(a.request),
      order: a.document.type === 'purchase_order' ? orders.get(a.document.id) : undefined,
      bill: a.document.type === 'bill' ? bills.get(a.document.id) : undefined,
      expense: a.document.type === 'expense_report' ? expenses.get(a.document.id) : undefined,
      travel: a.document.type === 'travel_request' ? trips.get(a.document.id) : undefined,
      payment: a.document.type === 'payment_request' ? payments.get(a.document.id) : undefined,
      run: a.document.type === 'payment_run' ? runs.get(a.document.id) : undefined,
      onBehalfOf:
        a.status === 'pending' ? (deciderOf(actor, delegators, a)?.onBehalfOf ?? null) : (a.on_behalf_of ?? null),
    }))
    return sendPage(reply, approvalsView({ ...result, rows }, status, request.session, flash(request.query.done)))
  })

  async function decisionPage(session: ConsoleSession, id: number, form: FormState, problem?: string) {
    const approval = await getApproval(db, session.actor, id)
    if (approval.request === null) {
      const { type, id: documentId } = approval.document
      if (
        type === 'expense_report' ||
        type === 'travel_request' ||
        type === 'payment_request' ||
        type === 'payment_run'
      ) {
        const [other, delegators] = await Promise.all([
          type === 'payment_request' || type === 'payment_run'
            ? paymentDocument(db, session, type, documentId)
            : otherDocument(db, session.actor, type, documentId),
          myDelegators(db, session.actor),
        ])
        const onBehalfOf = deciderOf(session.actor, delegators, approval)?.onBehalfOf
        return decisionView({ approval, other, vendors: new Map(), onBehalfOf, form, problem }, session)
      }
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
    let decided: Awaited<ReturnType<typeof approve>>
    try {
      const base = mailBaseOf(deps, actor.domain)
      if (request.body.decision === 'approve') decided = await approve(db, actor, id, comment.trim(), base)
      else decided = await reject(db, actor, id, comment, base)
    } catch (error) {
      if (!(error instanceof Problem) || ![400, 403, 409].includes(error.status)) throw error
      return sendPage(
        reply,
        await decisionPage(request.session, id, { values, errors: {} }, error.detail),
        error.status,
      )
    }
    const of = DONE_OF[decided.document.type] ?? ''
    return reply.redirect(`/console/approvals?done=${DONE[request.body.decision]}${of}`, 303)
  })
}
