/** The lines table of an order's and a bill's page: their money columns, and the totals under Amount. */
import { html, type Html } from './html.ts'
import { money } from './orders.ts'

/** What the table's foot says: the document's subtotal, tax and total (in its currency). */
export interface LineTotals {
  subtotal: string
  tax: string
  total: string
  currency: string
}

/**
 * The table: Item, the `quantities` columns (e.g. Ordered, Received), Unit price, Tax %, Amount and `last`;
 * `rows` are its lines (cells in that order), and the foot has the totals.
 */
export function lineTable(
  quantities: readonly string[],
  last: string,
  rows: readonly Html[],
  totals: LineTotals,
): Html {
  const total = (label: string, value: Html | string, testid = '') =>
    html`<tr>
      <th scope="row" colspan="${quantities.length + 3}">${label}</th>
      <td class="number" ${testid === '' ? '' : html`data-testid="${testid}"`}>${value}</td>
      <td></td>
    </tr>`
  return html`<div class="table-wrap">
    <table>
      <thead>
        <tr>
          <th scope="col">Item</th>
          ${quantities.map((q) => html`<th scope="col" class="number">${q}</th>`)}
          <th scope="col" class="number">Unit price</th>
          <th scope="col" class="number">Tax %</th>
          <th scope="col" class="number">Amount</th>
          <th scope="col">${last}</th>
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
      <tfoot>
        ${total('Subtotal', totals.subtotal)} ${total('Tax', totals.tax)}
        ${total('Total', html`<strong>${money(totals.total, totals.currency)}</strong>`, 'total')}
      </tfoot>
    </table>
  </div>`
}
