/** One receipt (or return) of goods against an order: what arrived, who posted it, and its history. */
import type { PurchaseOrder } from '../../purchase-orders/schema.ts'
import type { Receipt } from '../../receipts/schema.ts'
import { quantity, when } from './format.ts'
import { html, type Html } from './html.ts'
import { notice, page, type Frame } from './layout.ts'
import { table } from './lists.ts'
import { personName } from './requests.ts'

export interface ReceiptPageView {
  receipt: Receipt
  /** Its order, when the user may see it (for the lines' descriptions and the link back). */
  order: PurchaseOrder | undefined
  /** The boxes at the end (views/history.ts). */
  history?: Html | undefined
  /** Its Attachments box and Comments thread (views/attachments.ts). */
  boxes?: Html | undefined
  flash?: string | undefined
}

export function receiptView(view: ReceiptPageView, { actor, csrf }: Frame): string {
  const r = view.receipt
  const o = view.order
  const what = (line: number) => o?.lines.find((l) => l.id === line)?.description || `Order line ${line}`
  const kind = r.type === 'return' ? 'Return' : 'Receipt'
  const body = html`${view.flash === undefined ? '' : notice('status', view.flash)}
    ${r.status === 'voided' ? notice('warning', html`This ${kind.toLowerCase()} was voided ${when(r.voided_at)}: it no longer counts.`) : ''}
    <p class="actions">
      <a href="/console/orders/${r.purchase_order}">Back to ${o?.number ?? 'the order'}</a>
      ${o !== undefined && o.status === 'issued' ? html`<a href="/console/orders/${o.id}/receive">Receiving for this order</a>` : ''}
    </p>
    <section aria-labelledby="details">
      <h2 id="details">Details</h2>
      <dl>
        <dt>Kind</dt>
        <dd>${r.type === 'return' ? 'Return of accepted goods' : 'Goods received'}</dd>
        <dt>Status</dt>
        <dd>${r.status === 'voided' ? 'Voided' : 'Posted'}</dd>
        <dt>Order</dt>
        <dd>
          <a href="/console/orders/${r.purchase_order}">${o?.number ?? `Order ${r.purchase_order}`}</a
          >${o === undefined ? '' : html` · ${o.vendor.name}`}
        </dd>
        <dt>Location</dt>
        <dd>${r.location.name}</dd>
        <dt>Received</dt>
        <dd>${when(r.received_at)}</dd>
        <dt>Packing slip</dt>
        <dd>${r.packing_slip || '—'}</dd>
        <dt>Posted by</dt>
        <dd>${personName(r.created_by)}, ${when(r.created_at)}</dd>
        <dt>Notes</dt>
        <dd>${r.notes || '—'}</dd>
      </dl>
    </section>
    <section aria-labelledby="lines">
      <h2 id="lines">Lines</h2>
      ${table(
        ['Item', 'Accepted', 'Rejected'],
        r.lines.map(
          (l) =>
            html`<tr>
              <td>${what(l.po_line)}</td>
              <td class="number">${quantity(l.accepted_quantity)}</td>
              <td class="number">${quantity(l.rejected_quantity)}</td>
            </tr>`,
        ),
      )}
    </section>
    ${view.boxes ?? ''} ${view.history ?? ''}`
  return page({ title: `${kind} ${r.number}`, actor, csrf, current: 'receiving' }, body)
}
