/** A bill as the console names it: its status and match in words, its lines with their exceptions, a summary. */
import type { Bill } from '../../bills/schema.ts'
import { decimal, money, quantity, unitPrice } from './format.ts'
import { html, type Html } from './html.ts'
import { lineTable } from './line-table.ts'

export const BILL_STATUS_NAMES: Readonly<Record<string, string>> = {
  draft: 'Draft',
  pending_approval: 'Waiting for approval',
  approved: 'Approved',
  paid: 'Paid',
  cancelled: 'Cancelled',
}
export const MATCH_NAMES: Readonly<Record<string, string>> = {
  not_required: 'No order to match',
  matched: 'Matched',
  exception: 'Exceptions',
}
/** The list's match filter: every bill, matched ones, or those with exceptions. */
export const MATCH_FILTERS: Readonly<Record<string, string>> = {
  '': 'Matched or not',
  matched: 'Matched',
  exception: 'With exceptions',
}
export const billStatusName = (s: string) => BILL_STATUS_NAMES[s] ?? s
/** "Matched", "2 exceptions", … — what matching said at the last submit (nothing before the first). */
export const matchText = (b: Pick<Bill, 'status' | 'match_status' | 'exceptions'>) =>
  b.match_status === 'exception'
    ? `${b.exceptions.length} exception${b.exceptions.length === 1 ? '' : 's'}`
    : b.status === 'draft' && b.match_status === 'not_required'
      ? 'Not yet matched'
      : (MATCH_NAMES[b.match_status] ?? b.match_status)

/** A bill's lines with each line's exceptions beside it, and the totals. */
export function billLines(b: Bill): Html {
  const cell = (text: string) => html`<td class="number">${text}</td>`
  const rows = b.lines.map((l) => {
    const found = b.exceptions.filter((e) => e.line === l.id)
    return html`<tr>
      <td>${l.description || '—'}</td>
      ${cell(quantity(l.quantity))}${cell(unitPrice(l.unit_price))}${cell(l.tax_rate)}${cell(decimal(l.amount))}
      <td>
        ${
          found.length > 0
            ? html`<ul class="exceptions">
                ${found.map((e) => html`<li><strong>Exception:</strong> ${e.message}</li>`)}
              </ul>`
            : b.match_status === 'matched' && l.po_line !== null
              ? 'Matched'
              : '—'
        }
      </td>
    </tr>`
  })
  return lineTable(['Quantity'], 'Match', rows, b)
}

/** What an approver reads of a bill on the decision page: vendor, order, total, its lines and exceptions. */
export function billSummary(b: Bill): Html {
  return html`<section aria-labelledby="bill">
    <h2 id="bill">Bill ${b.number}</h2>
    <dl>
      <dt>Vendor</dt>
      <dd>${b.vendor.name}</dd>
      <dt>Location</dt>
      <dd>${b.location.name}</dd>
      <dt>Match</dt>
      <dd>${matchText(b)}</dd>
      <dt>Total</dt>
      <dd>${money(b.total, b.currency)}</dd>
    </dl>
    ${billLines(b)}
  </section>`
}
