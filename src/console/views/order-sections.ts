/**
 * The parts of an order's page below its details: the lines with received quantities and totals, the
 * revisions, the order's bills (each linking to its page in the bills console), and the form that e-mails
 * the order to chosen recipients.
 */
import type { Bill } from '../../bills/schema.ts'
import type { PurchaseOrder, Revision } from '../../purchase-orders/schema.ts'
import { errorSummary, input, textarea, type FormState } from './forms.ts'
import { decimal, quantity, unitPrice, when } from './format.ts'
import { html, type Html } from './html.ts'
import { postForm } from './layout.ts'
import { lineTable } from './line-table.ts'
import { emptyState, table } from './lists.ts'
import { money } from './orders.ts'
import { personName } from './requests.ts'

const BILL_STATUS_NAMES: Readonly<Record<string, string>> = {
  draft: 'Draft',
  pending_approval: 'Waiting for approval',
  approved: 'Approved',
  paid: 'Paid',
  cancelled: 'Cancelled',
}
const MATCH_NAMES: Readonly<Record<string, string>> = {
  not_required: 'Not required',
  matched: 'Matched',
  exception: 'Exceptions',
}

/** The lines with what was ordered, received and rejected, each with Close while that is allowed. */
export function linesSection(o: PurchaseOrder, closable: boolean, csrf: string): Html {
  const close = (l: PurchaseOrder['lines'][number]) =>
    postForm(
      `/console/orders/${o.id}/lines/${l.id}/close`,
      csrf,
      html`<button type="submit" class="secondary" aria-label="Close line ${l.description || l.id}">Close</button>`,
      html`class="inline"`,
    )
  const rows = o.lines.map(
    (l) =>
      html`<tr>
        <td>${l.description || '—'}</td>
        <td class="number">${quantity(l.quantity)}</td>
        <td class="number">${quantity(l.received_quantity)}</td>
        <td class="number">${quantity(l.rejected_quantity)}</td>
        <td class="number">${unitPrice(l.unit_price)}</td>
        <td class="number">${l.tax_rate}</td>
        <td class="number">${decimal(l.amount)}</td>
        <td>${l.closed ? 'Closed' : closable ? close(l) : 'Open'}</td>
      </tr>`,
  )
  return html`<section aria-labelledby="lines">
    <h2 id="lines">Lines</h2>
    ${lineTable(['Ordered', 'Received', 'Rejected'], 'Line', rows, o)}
  </section>`
}

export function revisionsSection(revisions: readonly Revision[]): Html {
  return html`<section aria-labelledby="revisions">
    <h2 id="revisions">Revisions</h2>
    ${
      revisions.length === 0
        ? emptyState('No revisions since it was issued.')
        : table(
            ['Version', 'Changed by', 'Changes', 'When'],
            revisions.map(
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
}

/** The order's bills the user may see; "Enter a bill" for those who may enter one against it. */
export function billsSection(o: PurchaseOrder, bills: readonly Bill[], canEnter: boolean): Html {
  return html`<section aria-labelledby="bills">
    <h2 id="bills">Bills</h2>
    ${canEnter ? html`<p class="actions"><a class="button" href="/console/bills/new?order=${o.id}">Enter a bill</a></p>` : ''}
    ${
      bills.length === 0
        ? emptyState('No bills against this order yet.')
        : table(
            ['Bill', 'Vendor invoice number', 'Status', 'Match', 'Total'],
            bills.map(
              (b) =>
                html`<tr>
                  <td><a href="/console/bills/${b.id}">Bill #${b.id}</a></td>
                  <td>${b.number}</td>
                  <td>${BILL_STATUS_NAMES[b.status] ?? b.status}</td>
                  <td>${MATCH_NAMES[b.match_status] ?? b.match_status}</td>
                  <td class="number">${money(b.total, b.currency)}</td>
                </tr>`,
            ),
          )
    }
  </section>`
}

/** E-mail the order's PDF: the recipients (prefilled with the vendor's addresses) and a message. */
export function sendSection(o: PurchaseOrder, form: FormState, csrf: string, problem?: string): Html {
  return html`<section aria-labelledby="send">
    <h2 id="send">E-mail to vendor</h2>
    ${errorSummary(form, { to: 'To', message: 'Message' }, problem)}
    ${postForm(
      `/console/orders/${o.id}/send`,
      csrf,
      html`${input({
          name: 'to',
          label: 'To',
          form,
          required: true,
          maxlength: 5000,
          hint: 'One or more e-mail addresses, separated by commas. The order’s PDF is attached.',
        })}
        ${textarea({ name: 'message', label: 'Message', form, rows: 3 })}
        <p class="actions"><button type="submit">E-mail to vendor</button></p>`,
      html`novalidate`,
    )}
  </section>`
}
