/**
 * The purchase orders list in the console (status filter, search, paging) and the names it gives statuses;
 * one order is order.ts, its form order-form.ts, receiving receiving.ts.
 */
import type { Page } from '../../core/list-query.ts'
import type { PurchaseOrder } from '../../purchase-orders/schema.ts'
import { money, when } from './format.ts'
import { html } from './html.ts'
import { page, type Frame } from './layout.ts'
import { emptyState, pager, table } from './lists.ts'

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
export { money }

export function ordersView(
  result: Page<PurchaseOrder>,
  filter: { search: string | undefined; status: string | undefined },
  { actor, csrf }: Frame,
  base: { path: string; title: string; current: string; canCreate?: boolean },
): string {
  const statuses = [
    { value: '', label: 'Any status' },
    ...Object.entries(ORDER_STATUS_NAMES).map(([value, label]) => ({ value, label })),
  ]
  const receiving = base.current === 'receiving'
  const body = html`${base.canCreate === true ? html`<p class="actions"><a class="button" href="/console/orders/new">New order</a></p>` : ''}
    <form method="get" action="${base.path}" role="search" class="card">
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
