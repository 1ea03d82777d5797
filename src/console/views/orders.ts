/**
 * Purchase orders in the console: the list (status filter, search, paging) and one order with its lines,
 * received quantities, approvals and revisions and the actions the user may take (receiving is receiving.ts).
 */
import type { Actor } from '../../access/actor.ts'
import type { Page } from '../../core/list-query.ts'
import type { PurchaseOrder, Revision } from '../../purchase-orders/schema.ts'
import { when } from './format.ts'
import { html } from './html.ts'
import { notice, page, postForm } from './layout.ts'
import { emptyState, pager, table } from './lists.ts'
import { approvalChain, personName } from './requests.ts'

interface Frame {
  actor: Actor
  csrf: string
}

export const ORDER_STATUS_NAMES: Readonly<Record<string, string>> = {
  draft: 'Draft',
  pending_approval: 'Waiting for approval',
  issued: 'Issued',
  closed: 'Closed',
  cancelled: 'Cancelled',
}
export const RECEIPT_NAMES: Readonly<Record<string, string>> = {
  none: 'Nothing received',
  partial: 'Partly received',
  full: 'Fully received',
  over: 'Over-received',
}
export const statusName = (s: string) => ORDER_STATUS_NAMES[s] ?? s
const money = (amount: string, currency: string) => `${amount} ${currency}`

export function ordersView(
  result: Page<PurchaseOrder>,
  filter: { search: string | undefined; status: string | undefined },
  { actor, csrf }: Frame,
  base: { path: string; title: string; current: string },
): string {
  const statuses = [
    { value: '', label: 'Any status' },
    ...Object.entries(ORDER_STATUS_NAMES).map(([value, label]) => ({ value, label })),
  ]
  const receiving = base.current === 'receiving'
  const body = html`<form method="get" action="${base.path}" role="search" class="card">
      <label for="search">Search number or vendor</label>
      <input id="search" name="search" type="search" value="${filter.search ?? ''}" />
      ${
        receiving
          ? ''
          : html`<label for="status">Status</label>
              <select id="status" name="status">
                ${statuses.map((s) => html`<option value="${s.value}" ${s.value === (filter.status ?? '') ? html`selected` : ''}>${s.label}</option>`)}
              </select>`
      }
      <button type="submit">Show</button>
    </form>
    ${
      result.count === 0
        ? emptyState(receiving ? 'No issued orders to receive against.' : 'No purchase orders match.')
        : html`${table(
            ['Order', 'Vendor', 'Total', 'Status', 'Received', 'Location', 'Created'],
            result.rows.map(
              (o) =>
                html`<tr>
                  <td><a href="/console/orders/${o.id}${receiving ? '/receive' : ''}">${o.number}</a></td>
                  <td>${o.vendor.name}</td>
                  <td class="number">${money(o.total, o.currency)}</td>
                  <td>${statusName(o.status)}</td>
                  <td>${RECEIPT_NAMES[o.receipt_status]}</td>
                  <td>${o.location.name}</td>
                  <td>${when(o.created_at)}</td>
                </tr>`,
            ),
          )}
          ${pager(base.path, result, filter.search, filter.status === undefined ? {} : { status: filter.status })}`
    }`
  return page({ title: base.title, actor, csrf, current: base.current }, body)
}

const address = (a: PurchaseOrder['ship_to']) =>
  a === null
    ? '—'
    : html`${a.name}<br />${a.addressLineOne}<br />${a.postalCode} ${a.city}<br />${[a.state_province, a.country].filter(Boolean).join(', ')}`

export interface OrderPageView {
  order: PurchaseOrder
  revisions: Revision[]
  can: { purchase: boolean; receive: boolean }
  decidable: ReadonlySet<number>
  flash?: string | undefined
  problem?: string | undefined
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
  const body = html`${view.flash === undefined ? '' : notice('status', view.flash)}
    ${view.problem === undefined ? '' : notice('alert', view.problem)}
    <p class="actions">
      ${buy && o.status === 'draft' ? button('issue', 'Issue') : ''}
      ${buy && o.status === 'issued' ? button('send', 'E-mail to vendor') : ''}
      ${view.can.receive && o.status === 'issued' ? html`<a class="button" href="/console/orders/${o.id}/receive">Receive</a>` : ''}
      ${buy && o.status === 'issued' ? button('close', 'Close', 'secondary') : ''}
      ${buy && o.status === 'closed' ? button('reopen', 'Reopen', 'secondary') : ''}
      ${buy && ['draft', 'pending_approval', 'issued'].includes(o.status) ? button('cancel', 'Cancel order', 'secondary') : ''}
      <a href="/console/orders/${o.id}/pdf">PDF</a>
      <a href="/console/orders">All orders</a>
    </p>
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
        <dt>Request</dt>
        <dd>${o.request === null ? '—' : html`<a href="/console/requests/${o.request}">#${o.request}</a>`}</dd>
        <dt>Ship to</dt>
        <dd>${address(o.ship_to)}</dd>
        <dt>Bill to</dt>
        <dd>${address(o.bill_to)}</dd>
        <dt>Issued</dt>
        <dd>${when(o.issued_at, 'Not yet')}</dd>
        <dt>Sent</dt>
        <dd>${when(o.sent_at, 'Not yet')}</dd>
        <dt>Notes</dt>
        <dd>${o.notes || '—'}</dd>
      </dl>
    </section>
    <section aria-labelledby="lines">
      <h2 id="lines">Lines</h2>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Item</th>
              <th scope="col" class="number">Ordered</th>
              <th scope="col" class="number">Received</th>
              <th scope="col" class="number">Rejected</th>
              <th scope="col" class="number">Unit price</th>
              <th scope="col" class="number">Tax %</th>
              <th scope="col" class="number">Amount</th>
              <th scope="col">Line</th>
            </tr>
          </thead>
          <tbody>
            ${o.lines.map(
              (l) =>
                html`<tr>
                  <td>${l.description || '—'}</td>
                  <td class="number">${l.quantity}</td>
                  <td class="number">${l.received_quantity}</td>
                  <td class="number">${l.rejected_quantity}</td>
                  <td class="number">${l.unit_price}</td>
                  <td class="number">${l.tax_rate}</td>
                  <td class="number">${l.amount}</td>
                  <td>
                    ${
                      l.closed
                        ? 'Closed'
                        : buy && o.status === 'issued'
                          ? postForm(
                              `/console/orders/${o.id}/lines/${l.id}/close`,
                              csrf,
                              html`<button
                                type="submit"
                                class="secondary"
                                aria-label="Close line ${l.description || l.id}"
                              >
                                Close
                              </button>`,
                              html`class="inline"`,
                            )
                          : 'Open'
                    }
                  </td>
                </tr>`,
            )}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row" colspan="6">Subtotal</th>
              <td class="number">${o.subtotal}</td>
              <td></td>
            </tr>
            <tr>
              <th scope="row" colspan="6">Tax</th>
              <td class="number">${o.tax}</td>
              <td></td>
            </tr>
            <tr>
              <th scope="row" colspan="6">Total</th>
              <td class="number" data-testid="total"><strong>${money(o.total, o.currency)}</strong></td>
              <td></td>
            </tr>
          </tfoot>
        </table>
      </div>
    </section>
    ${o.pending_revision === null ? '' : notice('status', `A revision to ${money(o.pending_revision.total, o.currency)} waits for approval.`)}
    ${approvalChain(o.approvals, view.decidable)}
    <section aria-labelledby="revisions">
      <h2 id="revisions">Revisions</h2>
      ${
        view.revisions.length === 0
          ? emptyState('No revisions since it was issued.')
          : table(
              ['Version', 'Changed by', 'Changes', 'When'],
              view.revisions.map(
                (r) =>
                  html`<tr>
                    <td>${r.version}</td>
                    <td>${personName(r.changed_by)}</td>
                    <td>
                      ${r.changes.map((c) => `${c.path}: ${JSON.stringify(c.from)} → ${JSON.stringify(c.to)}`).join('; ')}
                    </td>
                    <td>${when(r.changed_at)}</td>
                  </tr>`,
              ),
            )
      }
    </section>`
  return page({ title: `Purchase order ${o.number}`, actor, csrf, current: 'orders' }, body)
}
