/**
 * One purchase order in the console: its details, lines with received quantities, approvals (of its issue
 * and of its revisions), revisions, bills, and the actions the user may take — edit or revise, issue, e-mail
 * to chosen recipients, receive, close, reopen, cancel, close a line, PDF.
 */
import type { Bill } from '../../bills/schema.ts'
import type { PurchaseOrder, Revision } from '../../purchase-orders/schema.ts'
import { address, day, when } from './format.ts'
import type { FormState } from './forms.ts'
import { html, type Html } from './html.ts'
import { notice, page, postForm, type Frame } from './layout.ts'
import { billsSection, linesSection, revisionsSection, sendSection } from './order-sections.ts'
import { money, RECEIPT_NAMES, statusName } from './orders.ts'
import { approvalChain } from './requests.ts'

export interface OrderPageView {
  order: PurchaseOrder
  revisions: Revision[]
  /** The order's bills the user may see; null for someone who sees no bills at its location (no section). */
  bills: Bill[] | null
  /** purchase: nav_purchase at its location; receive: nav_receive; bill: accounts_payable (may enter a bill). */
  can: { purchase: boolean; receive: boolean; bill: boolean }
  decidable: ReadonlySet<number>
  /** The e-mail form: the recipients typed (or the vendor's addresses) and any errors at its fields. */
  send: FormState
  sendProblem?: string | undefined
  flash?: string | undefined
  problem?: string | undefined
  /** The boxes at the end (views/history.ts): what it led to, its history. */
  ledTo?: Html | undefined
  history?: Html | undefined
  /** Its Attachments box and Comments thread (views/attachments.ts). */
  boxes?: Html | undefined
}

export function orderView(view: OrderPageView, { actor, csrf }: Frame): string {
  const o = view.order
  const button = (action: string, label: string, kind = '') =>
    postForm(
      `/console/orders/${o.id}/${action}`,
      csrf,
      html`<button type="submit" class="${kind}">${label}</button>`,
      html`class="inline"`,
    )
  const buy = view.can.purchase
  const editable = buy && (o.status === 'draft' || (o.status === 'issued' && o.pending_revision === null))
  const body = html`${view.flash === undefined ? '' : notice('status', view.flash)}
    ${view.problem === undefined ? '' : notice('alert', view.problem)}
    <p class="actions">
      ${editable ? html`<a class="button" href="/console/orders/${o.id}/edit">${o.status === 'draft' ? 'Edit' : 'Revise'}</a>` : ''}
      ${buy && o.status === 'draft' ? button('issue', 'Issue') : ''}
      ${view.can.receive && o.status === 'issued' ? html`<a class="button" href="/console/orders/${o.id}/receive">Receive</a>` : ''}
      ${buy && o.status === 'issued' ? button('close', 'Close', 'secondary') : ''}
      ${buy && o.status === 'closed' ? button('reopen', 'Reopen', 'secondary') : ''}
      ${buy && ['draft', 'pending_approval', 'issued'].includes(o.status) ? button('cancel', 'Cancel order', 'secondary') : ''}
      <a href="/console/orders/${o.id}/pdf">PDF</a>
      <a href="/console/orders">All orders</a>
    </p>
    ${
      o.pending_revision === null
        ? ''
        : notice(
            'status',
            `A revision to ${money(o.pending_revision.total, o.currency)} waits for approval: it goes beyond the ` +
              'approval tolerance, so it applies only when its steps below are approved (a rejection drops it).',
          )
    }
    <section aria-labelledby="details">
      <h2 id="details">Details</h2>
      <dl>
        <dt>Status</dt>
        <dd>${statusName(o.status)} · ${RECEIPT_NAMES[o.receipt_status]}</dd>
        <dt>Version</dt>
        <dd>${o.version}</dd>
        <dt>Vendor</dt>
        <dd>${o.vendor.name}</dd>
        <dt>Location</dt>
        <dd>${o.location.name}</dd>
        <dt>Department</dt>
        <dd>${o.department?.name ?? '—'}</dd>
        <dt>Request</dt>
        <dd>${o.request === null ? '—' : html`<a href="/console/requests/${o.request}">#${o.request}</a>`}</dd>
        <dt>Ship to</dt>
        <dd>${address(o.ship_to)}</dd>
        <dt>Bill to</dt>
        <dd>${address(o.bill_to)}</dd>
        <dt>Promised for</dt>
        <dd>${day(o.promise_date)}</dd>
        <dt>Issued</dt>
        <dd>${when(o.issued_at, 'Not yet')}</dd>
        <dt>Sent</dt>
        <dd>${when(o.sent_at, 'Not yet')}</dd>
        <dt>Notes</dt>
        <dd>${o.notes || '—'}</dd>
      </dl>
    </section>
    ${linesSection(o, buy && o.status === 'issued', csrf)}
    ${approvalChain(
      o.approvals,
      view.decidable,
      'No approvals: the order has not been issued yet, or it was issued without needing one.',
    )}
    ${revisionsSection(view.revisions)}
    ${view.bills === null ? '' : billsSection(o, view.bills, view.can.bill && ['issued', 'closed'].includes(o.status))}
    ${buy && o.status === 'issued' ? sendSection(o, view.send, csrf, view.sendProblem) : ''} ${view.boxes ?? ''}
    ${view.ledTo ?? ''} ${view.history ?? ''}`
  return page({ title: `Purchase order ${o.number}`, actor, csrf, current: 'orders' }, body)
}
