/**
 * Bills in the console: the list (status and match filters, search on the invoice number or vendor, paging)
 * and one bill with its details, lines (bill-lines.ts: each line's match exceptions beside it), approvals and
 * the actions the user may take (the entry form is bill-form.ts).
 */
import type { Bill } from '../../bills/schema.ts'
import type { Page } from '../../core/list-query.ts'
import { day, money, when } from './format.ts'
import { html, type Html } from './html.ts'
import { notice, page, postForm, type Frame } from './layout.ts'
import { BILL_STATUS_NAMES, billLines, billStatusName, MATCH_FILTERS, matchText } from './bill-lines.ts'
import { emptyState, pager, table } from './lists.ts'
import { approvalChain, personName } from './requests.ts'

export interface BillFilter {
  search: string | undefined
  status: string | undefined
  match: string | undefined
}

export function billsView(result: Page<Bill>, filter: BillFilter, { actor, csrf }: Frame, flash?: string): string {
  const options = (names: Readonly<Record<string, string>>, current: string | undefined) =>
    Object.entries(names).map(
      ([value, label]) =>
        html`<option value="${value}" ${value === (current ?? '') ? html`selected` : ''}>${label}</option>`,
    )
  const keep = {
    ...(filter.status === undefined ? {} : { status: filter.status }),
    ...(filter.match === undefined ? {} : { match: filter.match }),
  }
  const body = html`${flash === undefined ? '' : notice('status', flash)}
    <p>Enter a bill from its purchase order: open the order and choose “Enter a bill”.</p>
    <form method="get" action="/console/bills" role="search" class="card">
      <label for="search">Search invoice number or vendor</label>
      <input id="search" name="search" type="search" value="${filter.search ?? ''}" />
      <label for="status">Status</label>
      <select id="status" name="status">
        ${options({ '': 'Any status', ...BILL_STATUS_NAMES }, filter.status)}
      </select>
      <label for="match">Match</label>
      <select id="match" name="match">
        ${options(MATCH_FILTERS, filter.match)}
      </select>
      <button type="submit">Show</button>
    </form>
    ${
      result.count === 0
        ? emptyState(
            filter.search === undefined && filter.status === undefined && filter.match === undefined
              ? 'No bills you may see yet.'
              : 'No bill matches. Try another status, match or part of the number.',
          )
        : html`${table(
            ['Invoice', 'Vendor', 'Total', 'Status', 'Match', 'Order', 'Due', 'Entered'],
            result.rows.map(
              (b) =>
                html`<tr data-href="/console/bills/${b.id}">
                  <td><a href="/console/bills/${b.id}">${b.number}</a></td>
                  <td>${b.vendor.name}</td>
                  <td class="number">${money(b.total, b.currency)}</td>
                  <td>${billStatusName(b.status)}</td>
                  <td>${matchText(b)}</td>
                  <td>
                    ${b.purchase_order === null ? '—' : html`<a href="/console/orders/${b.purchase_order}">Order</a>`}
                  </td>
                  <td>${day(b.due_date)}</td>
                  <td>${when(b.created_at)}</td>
                </tr>`,
            ),
          )}
          ${pager('/console/bills', result, filter.search, keep)}`
    }`
  return page({ title: 'Bills', actor, csrf, current: 'bills' }, body)
}

export interface BillPageView {
  bill: Bill
  /** Whether the user holds accounts_payable at the bill's location. */
  payable: boolean
  decidable: ReadonlySet<number>
  flash?: string | undefined
  problem?: string | undefined
  /** Its History box (views/history.ts). */
  history?: Html | undefined
  /** Its Attachments box and Comments thread (views/attachments.ts). */
  boxes?: Html | undefined
}

export function billView(view: BillPageView, { actor, csrf }: Frame): string {
  const b = view.bill
  const button = (action: string, label: string, kind = '') =>
    postForm(
      `/console/bills/${b.id}/${action}`,
      csrf,
      html`<button type="submit" class="${kind}">${label}</button>`,
      html`class="inline"`,
    )
  const can = view.payable
  const pay = postForm(
    `/console/bills/${b.id}/pay`,
    csrf,
    html`<label for="payment_reference">Payment reference</label>
      <p class="hint" id="payment_reference-hint">The reference of the transfer or cheque, as your bank shows it.</p>
      <input
        id="payment_reference"
        name="payment_reference"
        maxlength="200"
        aria-describedby="payment_reference-hint"
      />
      <button type="submit">Mark paid</button>`,
    html`class="card"`,
  )
  // A bill submitted with a matching exception is news that needs attention: a warning, not a success.
  const exception = b.match_status === 'exception' && b.status === 'pending_approval'
  const body = html`${view.flash === undefined || exception ? '' : notice('status', view.flash)}
    ${view.problem === undefined ? '' : notice('alert', view.problem)}
    ${
      exception
        ? notice(
            'warning',
            'Matching found exceptions (beside their lines below): the bill waits for approval, and an ' +
              'accounts-payable colleague resolves them there before it can be paid.',
          )
        : ''
    }
    <p class="actions">
      ${can && b.status === 'draft' ? html`<a class="button" href="/console/bills/${b.id}/edit">Edit</a>` : ''}
      ${can && b.status === 'draft' ? button('submit', 'Submit for approval') : ''}
      ${can && ['draft', 'pending_approval', 'approved'].includes(b.status) ? button('cancel', 'Cancel bill', 'secondary') : ''}
      ${b.purchase_order === null ? '' : html`<a href="/console/orders/${b.purchase_order}">Open the purchase order</a>`}
      <a href="/console/bills">All bills</a>
    </p>
    ${
      can && b.status === 'approved'
        ? html`<section aria-labelledby="pay">
            <h2 id="pay">Pay</h2>
            ${pay}
          </section>`
        : ''
    }
    <section aria-labelledby="details">
      <h2 id="details">Details</h2>
      <dl>
        <dt>Status</dt>
        <dd>${billStatusName(b.status)}</dd>
        <dt>Match</dt>
        <dd>${matchText(b)}</dd>
        <dt>Vendor</dt>
        <dd>${b.vendor.name}</dd>
        <dt>Location</dt>
        <dd>${b.location.name}</dd>
        <dt>Invoice date</dt>
        <dd>${day(b.invoice_date)}</dd>
        <dt>Due date</dt>
        <dd>${day(b.due_date)}</dd>
        <dt>Entered by</dt>
        <dd>${personName(b.created_by)}, ${when(b.created_at)}</dd>
        ${
          b.status === 'paid'
            ? html`<dt>Paid</dt>
                <dd>${when(b.paid_at)}${b.payment_reference ? ` · reference ${b.payment_reference}` : ''}</dd>`
            : ''
        }
      </dl>
    </section>
    <section aria-labelledby="lines">
      <h2 id="lines">Lines</h2>
      ${billLines(b)}
    </section>
    ${approvalChain(b.approvals, view.decidable, 'No approvals: the bill has not been submitted, or no approval rule applied to it.')}
    ${view.boxes ?? ''} ${view.history ?? ''}`
  return page({ title: `Bill ${b.number} from ${b.vendor.name}`, actor, csrf, current: 'bills' }, body)
}
