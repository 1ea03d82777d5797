/**
 * What the approvals pages show of each kind of document: a request, a purchase order, a bill, an expense report,
 * a travel request, a payment request, a payment run.
 */
import type { Approval } from '../../approvals/schema.ts'
import type { Bill } from '../../bills/schema.ts'
import type { ExpenseReport } from '../../expense-reports/schema.ts'
import type { PaymentRequest } from '../../payment-requests/schema.ts'
import type { PaymentRun } from '../../payment-runs/schema.ts'
import type { TravelRequest } from '../../travel-requests/schema.ts'
import type { PurchaseOrder } from '../../purchase-orders/schema.ts'
import type { PurchaseRequest } from '../../requests/schema.ts'
import { matchText } from './bill-lines.ts'
import { day, decimal, money, quantity, unitPrice } from './format.ts'
import { html } from './html.ts'
import { table } from './lists.ts'

/** An approval and its document, each when the user may see it. */
export interface ApprovalDocument {
  approval: Approval
  request: PurchaseRequest | undefined
  /** Its purchase order, for an order's approval. */
  order?: PurchaseOrder | undefined
  /** Its bill, for a bill's approval. */
  bill?: Bill | undefined
  /** Its expense report or travel request, for theirs. */
  expense?: ExpenseReport | undefined
  travel?: TravelRequest | undefined
  /** Its payment request or payment run, for theirs. */
  payment?: PaymentRequest | undefined
  run?: PaymentRun | undefined
}

/** What an inbox row shows of its document: a request, a purchase order or a bill (each when visible). */
export function documentOf(d: ApprovalDocument) {
  const { approval: a, request: r, order: o, bill: b, expense: e, travel: t, payment: p, run } = d
  const id = a.document.id
  if (a.document.type === 'payment_request')
    return {
      href: `/console/payment-requests/${id}`,
      label: p === undefined ? `Payment request ${id}` : `Payment request ${p.number}`,
      total: p === undefined ? '—' : money(p.amount, p.currency),
      description: p === undefined ? 'Payment request' : `Payment to ${p.vendor.name}`,
      submitter: p?.requester,
      location: p?.location.name,
    }
  if (a.document.type === 'payment_run')
    return {
      href: `/console/payment-runs/${id}`,
      label: run === undefined ? `Payment run ${id}` : `Payment run ${run.number}`,
      total: run === undefined ? '—' : money(run.total, run.currency),
      description:
        run === undefined
          ? 'Payment run'
          : `${run.items.length} ${run.items.length === 1 ? 'payment' : 'payments'} from ${run.bank_account.name}`,
      submitter: run?.created_by,
      location: run === undefined ? undefined : [...new Set(run.items.map((i) => i.location.name))].join(', '),
    }
  if (a.document.type === 'expense_report')
    return {
      href: `/console/expenses/${id}`,
      label: e === undefined ? `Expense report ${id}` : `Expense report ${e.number}`,
      total: e === undefined ? '—' : money(e.total, e.currency),
      description: e === undefined ? 'Expense report' : e.title || 'Expense report',
      submitter: e?.employee,
      location: e?.location.name,
    }
  if (a.document.type === 'travel_request')
    return {
      href: `/console/travel/${id}`,
      label: t === undefined ? `Travel request ${id}` : `Travel request ${t.number}`,
      total: t === undefined ? '—' : money(t.total, t.currency),
      description: t === undefined ? 'Travel request' : `Trip to ${t.destination}`,
      submitter: t?.traveller,
      location: t?.location.name,
    }
  if (a.document.type === 'bill')
    return {
      href: `/console/bills/${id}`,
      label: b === undefined ? `Bill ${id}` : `Bill ${b.number}`,
      total: b === undefined ? '—' : money(b.total, b.currency),
      description:
        b === undefined
          ? 'Bill'
          : `Bill from ${b.vendor.name}${b.match_status === 'exception' ? ` · ${matchText(b)}` : ''}`,
      submitter: b?.created_by,
      location: b?.location.name,
    }
  if (a.document.type === 'purchase_order')
    return {
      href: `/console/orders/${id}`,
      label: o?.number ?? `Order ${id}`,
      total: o === undefined ? '—' : money(o.total, o.currency),
      description: o === undefined ? 'Purchase order' : `Purchase order to ${o.vendor.name}`,
      submitter: o?.created_by,
      location: o?.location.name,
    }
  return {
    href: `/console/requests/${a.request}`,
    label: `#${a.request}`,
    total: r === undefined ? '—' : money(r.total, r.currency),
    description: r?.description || '—',
    submitter: r?.requester,
    location: r?.location.name,
  }
}

/** What an approver reads of an order: vendor, location, total, and its lines. */
export function orderSummary(o: PurchaseOrder) {
  return html`<section aria-labelledby="order">
      <h2 id="order">Purchase order ${o.number}</h2>
      <dl>
        <dt>Vendor</dt>
        <dd>${o.vendor.name}</dd>
        <dt>Location</dt>
        <dd>${o.location.name}</dd>
        <dt>Total</dt>
        <dd>${money(o.total, o.currency)}</dd>
        ${
          o.pending_revision === null
            ? ''
            : html`<dt>Proposed revision</dt>
                <dd>${money(o.pending_revision.total, o.currency)}</dd>`
        }
      </dl>
    </section>
    ${table(
      ['Item', 'Quantity', 'Unit price', 'Amount'],
      o.lines.map(
        (l) =>
          html`<tr>
            <td>${l.description || '—'}</td>
            <td class="number">${quantity(l.quantity)}</td>
            <td class="number">${unitPrice(l.unit_price)}</td>
            <td class="number">${decimal(l.amount)}</td>
          </tr>`,
      ),
    )}`
}

/** What an approver reads of a payment request: whom it pays, how much, when, why. */
export function paymentRequestSummary(p: PaymentRequest) {
  return html`<section aria-labelledby="payment-request">
    <h2 id="payment-request">Payment request ${p.number}</h2>
    <dl>
      <dt>Vendor</dt>
      <dd>${p.vendor.name}</dd>
      <dt>Amount</dt>
      <dd>${money(p.amount, p.currency)}</dd>
      <dt>Location</dt>
      <dd>${p.location.name}</dd>
      <dt>Due</dt>
      <dd>${day(p.due_date, 'No due date')}</dd>
      <dt>Vendor’s reference</dt>
      <dd>${p.invoice_number || '—'}</dd>
      <dt>Reason</dt>
      <dd>${p.reason || '—'}</dd>
    </dl>
  </section>`
}

/** What an approver reads of a payment run: the account it pays from, when, and every payment in it. */
export function paymentRunSummary(run: PaymentRun) {
  return html`<section aria-labelledby="payment-run">
      <h2 id="payment-run">Payment run ${run.number}</h2>
      <dl>
        <dt>Paid from</dt>
        <dd>${run.bank_account.name}</dd>
        <dt>Paid on</dt>
        <dd>${day(run.execution_date)}</dd>
        <dt>Total</dt>
        <dd>${money(run.total, run.currency)}</dd>
      </dl>
    </section>
    ${table(
      ['Vendor', 'Location', 'Reference', 'Amount'],
      run.items.map(
        (i) =>
          html`<tr>
            <td>${i.vendor.name}</td>
            <td>${i.location.name}</td>
            <td>${i.reference || '—'}</td>
            <td class="number">${money(i.amount, run.currency)}</td>
          </tr>`,
      ),
    )}`
}
