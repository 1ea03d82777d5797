/**
 * Approvals: the inbox (what the signed-in user decides, their own and those delegated to them, marked "on
 * behalf of") — requests, purchase orders and bills — and one approval's decision page: the document, its
 * chain, and approve or reject with a comment (what each kind of document shows is approval-documents.ts).
 */
import type { Approval, Person } from '../../approvals/schema.ts'
import type { Bill } from '../../bills/schema.ts'
import type { Page } from '../../core/list-query.ts'
import type { PurchaseOrder } from '../../purchase-orders/schema.ts'
import type { PurchaseRequest } from '../../requests/schema.ts'
import { documentOf, orderSummary, type ApprovalDocument } from './approval-documents.ts'
import { billSummary } from './bill-lines.ts'
import { when } from './format.ts'
import { errorSummary, textarea, type FormState } from './forms.ts'
import { html, type Html } from './html.ts'
import { notice, page, postForm, type Frame } from './layout.ts'
import { emptyState, pager, table } from './lists.ts'
import { approvalChain, personName, requestSummary } from './requests.ts'

export const INBOX_FILTERS: Readonly<Record<string, string>> = {
  pending: 'Waiting for me',
  approved: 'Approved by me',
  rejected: 'Rejected by me',
}

/** One inbox row: the approval, its document (when the user may see it), and for whom the user decides it. */
export interface InboxRow extends ApprovalDocument {
  onBehalfOf: Person | null
}

export function approvalsView(result: Page<InboxRow>, status: string, { actor, csrf }: Frame, flash?: string): string {
  const body = html`${flash === undefined ? '' : notice('status', flash)}
    <form method="get" action="/console/approvals" class="card">
      <label for="status">Show</label>
      <select id="status" name="status">
        ${Object.entries(INBOX_FILTERS).map(([value, label]) => html`<option value="${value}" ${value === status ? html`selected` : ''}>${label}</option>`)}
      </select>
      <button type="submit">Show</button>
    </form>
    ${
      result.count === 0
        ? emptyState(
            status === 'pending'
              ? 'Nothing is waiting for your approval.'
              : 'You have not decided any approval of this kind yet.',
          )
        : html`${table(
            ['Document', 'Total', 'For', 'Description', 'Requester', 'Location', 'Step', 'Since'],
            result.rows.map((row) => {
              const { approval: a, onBehalfOf } = row
              const d = documentOf(row)
              const href = status === 'pending' ? `/console/approvals/${a.id}` : d.href
              return html`<tr data-href="${href}">
                <td><a href="${href}">${d.label}</a></td>
                <td class="number">${d.total}</td>
                <td>${onBehalfOf === null ? 'You' : html`<strong>On behalf of ${personName(onBehalfOf)}</strong>`}</td>
                <td>${d.description}</td>
                <td>${personName(d.submitter)}</td>
                <td>${d.location ?? '—'}</td>
                <td>${a.step}</td>
                <td>${when(a.acted_at ?? a.created_at)}</td>
              </tr>`
            }),
          )}
          ${pager('/console/approvals', result, undefined, { status })}`
    }`
  return page({ title: 'Approvals', actor, csrf, current: 'approvals' }, body)
}

export interface DecisionView {
  approval: Approval
  request?: PurchaseRequest | undefined
  /** The purchase order, for an order's approval (instead of a request). */
  order?: PurchaseOrder | undefined
  /** The bill, for a bill's approval. */
  bill?: Bill | undefined
  vendors: ReadonlyMap<number, string>
  /** Another kind of document (an expense report, a travel request): how it is named, linked and shown. */
  other?: { name: string; href: string; link: string; summary: Html } | undefined
  /** Whom the user decides it for: null as a candidate; undefined when they may not decide it. */
  onBehalfOf: Person | null | undefined
  form: FormState
  /** A decision refused (decided meanwhile, not a candidate) or the form's mistake, said at the top. */
  problem?: string | undefined
}

export function decisionView(view: DecisionView, { actor, csrf }: Frame): string {
  const { approval: a, request: r, order: o, bill: b } = view
  const open = a.status === 'pending' && view.onBehalfOf !== undefined
  const decide = postForm(
    `/console/approvals/${a.id}`,
    csrf,
    html`${textarea({
        name: 'comment',
        label: 'Comment',
        form: view.form,
        rows: 3,
        hint: 'Required to reject; the requester reads it.',
      })}
      <p class="actions">
        <button type="submit" name="decision" value="approve">Approve</button>
        <button type="submit" name="decision" value="reject" class="danger">Reject</button>
      </p>`,
    html`novalidate`,
  )
  const body = html`${
      Object.keys(view.form.errors).length > 0
        ? errorSummary(view.form, { comment: 'Comment' }, view.problem)
        : view.problem === undefined
          ? ''
          : notice('alert', view.problem)
    }
    ${
      view.onBehalfOf === null || view.onBehalfOf === undefined
        ? ''
        : notice(
            'status',
            html`You decide this on behalf of <strong>${personName(view.onBehalfOf)}</strong>, who is away.`,
          )
    }
    <p class="actions">
      ${r === undefined ? '' : html`<a href="/console/requests/${r.id}">Open the request</a>`}
      ${o === undefined ? '' : html`<a href="/console/orders/${o.id}">Open purchase order ${o.number}</a>`}
      ${b === undefined ? '' : html`<a href="/console/bills/${b.id}">Open bill ${b.number}</a>`}
      ${view.other === undefined ? '' : html`<a href="${view.other.href}">${view.other.link}</a>`}
      <a href="/console/approvals">Back to the inbox</a>
    </p>
    ${
      open
        ? html`<section aria-labelledby="decide">
            <h2 id="decide">Your decision (step ${a.step})</h2>
            ${decide}
          </section>`
        : html`<p>${a.status === 'pending' ? 'You cannot decide this approval.' : `This approval is ${a.status}.`}</p>`
    }
    ${r === undefined ? '' : html`${requestSummary(r, view.vendors)} ${approvalChain(r.approvals, new Set())}`}
    ${o === undefined ? '' : orderSummary(o)} ${b === undefined ? '' : billSummary(b)} ${view.other?.summary ?? ''}`
  const name =
    view.other !== undefined
      ? view.other.name
      : r !== undefined
        ? `request #${r.id}`
        : b !== undefined
          ? `bill ${b.number} from ${b.vendor.name}`
          : `purchase order ${o?.number ?? ''}`
  const title = open
    ? `Approve ${name}?`
    : `${name.charAt(0).toUpperCase()}${name.slice(1)}: ${a.status === 'pending' ? 'waiting for approval' : `step ${a.step} ${a.status}`}`
  return page({ title, actor, csrf, current: 'approvals' }, body)
}
