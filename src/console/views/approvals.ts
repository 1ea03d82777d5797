/**
 * Approvals: the inbox (what the signed-in user decides, their own and those delegated to them, marked "on
 * behalf of"), and one approval's decision page: the request, its chain, and approve or reject with a comment.
 */
import type { Actor } from '../../access/actor.ts'
import type { Approval, Person } from '../../approvals/schema.ts'
import type { Page } from '../../core/list-query.ts'
import type { PurchaseOrder } from '../../purchase-orders/schema.ts'
import type { PurchaseRequest } from '../../requests/schema.ts'
import { when } from './format.ts'
import { errorSummary, textarea, type FormState } from './forms.ts'
import { html } from './html.ts'
import { notice, page, postForm } from './layout.ts'
import { emptyState, pager, table } from './lists.ts'
import { approvalChain, personName, requestSummary } from './requests.ts'

interface Frame {
  actor: Actor
  csrf: string
}

export const INBOX_FILTERS: Readonly<Record<string, string>> = {
  pending: 'Waiting for me',
  approved: 'Approved by me',
  rejected: 'Rejected by me',
}

/** One inbox row: the approval, its request (when the user may see it), and for whom the user decides it. */
export interface InboxRow {
  approval: Approval
  request: PurchaseRequest | undefined
  /** Its purchase order, for an order's approval (when the user may see it). */
  order?: PurchaseOrder | undefined
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
            result.rows.map(({ approval: a, request: r, order: o, onBehalfOf }) => {
              const isOrder = a.document.type === 'purchase_order'
              const own = isOrder ? `/console/orders/${a.document.id}` : `/console/requests/${a.request}`
              const href = status === 'pending' ? `/console/approvals/${a.id}` : own
              return html`<tr data-href="${href}">
                <td><a href="${href}">${isOrder ? (o?.number ?? `Order ${a.document.id}`) : `#${a.request}`}</a></td>
                <td class="number">
                  ${isOrder ? (o === undefined ? '—' : `${o.total} ${o.currency}`) : r === undefined ? '—' : `${r.total} ${r.currency}`}
                </td>
                <td>${onBehalfOf === null ? 'You' : html`<strong>On behalf of ${personName(onBehalfOf)}</strong>`}</td>
                <td>
                  ${isOrder ? (o === undefined ? 'Purchase order' : `Purchase order to ${o.vendor.name}`) : r?.description || '—'}
                </td>
                <td>${personName(isOrder ? o?.created_by : r?.requester)}</td>
                <td>${(isOrder ? o?.location.name : r?.location.name) ?? '—'}</td>
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
  vendors: ReadonlyMap<number, string>
  /** Whom the user decides it for: null as a candidate; undefined when they may not decide it. */
  onBehalfOf: Person | null | undefined
  form: FormState
  /** A decision refused (decided meanwhile, not a candidate) or the form's mistake, said at the top. */
  problem?: string | undefined
}

export function decisionView(view: DecisionView, { actor, csrf }: Frame): string {
  const { approval: a, request: r, order: o } = view
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
    ${o === undefined ? '' : orderSummary(o)}`
  const name = r !== undefined ? `request #${r.id}` : `purchase order ${o?.number ?? ''}`
  const title = open
    ? `Approve ${name}?`
    : `${name.charAt(0).toUpperCase()}${name.slice(1)}: ${a.status === 'pending' ? 'waiting for approval' : `step ${a.step} ${a.status}`}`
  return page({ title, actor, csrf, current: 'approvals' }, body)
}

/** What an approver reads of an order: vendor, location, total, and its lines. */
function orderSummary(o: PurchaseOrder) {
  return html`<section aria-labelledby="order">
      <h2 id="order">Purchase order ${o.number}</h2>
      <dl>
        <dt>Vendor</dt>
        <dd>${o.vendor.name}</dd>
        <dt>Location</dt>
        <dd>${o.location.name}</dd>
        <dt>Total</dt>
        <dd>${o.total} ${o.currency}</dd>
        ${
          o.pending_revision === null
            ? ''
            : html`<dt>Proposed revision</dt>
                <dd>${o.pending_revision.total} ${o.currency}</dd>`
        }
      </dl>
    </section>
    ${table(
      ['Item', 'Quantity', 'Unit price', 'Amount'],
      o.lines.map(
        (l) =>
          html`<tr>
            <td>${l.description || '—'}</td>
            <td class="number">${l.quantity}</td>
            <td class="number">${l.unit_price}</td>
            <td class="number">${l.amount}</td>
          </tr>`,
      ),
    )}`
}
