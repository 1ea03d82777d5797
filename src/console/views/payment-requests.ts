/**
 * Payment requests in the console (paying a vendor without an order: a deposit, a fee): the list, the new-request
 * form, and one request — vendor, amount, due date, reference, status, its approval chain, the runs that pay it
 * (What it led to) and its History. Server-rendered, usable without JavaScript; tables scroll inside their own box.
 */
import type { Page } from '../../core/list-query.ts'
import type { PaymentRequest } from '../../payment-requests/schema.ts'
import { day, money, when } from './format.ts'
import { departmentSelect, errorSummary, input, select, textarea, type DepartmentGroups } from './forms.ts'
import type { FormState, Option } from './forms.ts'
import { html, type Html } from './html.ts'
import { notice, page, postForm, type Frame } from './layout.ts'
import { emptyState, pager, table } from './lists.ts'
import { approvalChain, personName } from './requests.ts'

export const PAYMENT_REQUEST_STATUS_NAMES: Readonly<Record<string, string>> = {
  draft: 'Draft',
  pending_approval: 'Waiting for approval',
  approved: 'Approved: waits for a payment run',
  rejected: 'Rejected',
  cancelled: 'Cancelled',
  paid: 'Paid',
}
const status = (s: string) => PAYMENT_REQUEST_STATUS_NAMES[s] ?? s

/** The form's fields by the API's names, as its error summary names them. */
export const PAYMENT_REQUEST_LABELS: Readonly<Record<string, string>> = {
  location: 'Location',
  department: 'Department',
  vendor: 'Vendor',
  currency: 'Currency',
  amount: 'Amount',
  due_date: 'Due date',
  invoice_number: 'Vendor’s reference',
  reason: 'What it pays for',
}

export function paymentRequestsView(
  result: Page<PaymentRequest>,
  can: { create: boolean },
  { actor, csrf }: Frame,
  flash?: string,
): string {
  const body = html`${flash === undefined ? '' : notice('status', flash)}
    <p>
      A payment request pays a vendor without a purchase order: a deposit, a fee. It is approved, then accounts payable
      pays it in a payment run.
    </p>
    ${can.create ? html`<p><a class="button" href="/console/payment-requests/new">New payment request</a></p>` : ''}
    ${
      result.count === 0
        ? emptyState(
            can.create
              ? 'No payment requests you may see yet. Make one with “New payment request”.'
              : 'No payment requests you may see yet.',
          )
        : html`${table(
            ['Request', 'Vendor', 'Amount', 'Due', 'Status', 'Requested by'],
            result.rows.map(
              (p) =>
                html`<tr data-href="/console/payment-requests/${p.id}">
                  <td><a href="/console/payment-requests/${p.id}">${p.number}</a></td>
                  <td>${p.vendor.name}</td>
                  <td class="number">${money(p.amount, p.currency)}</td>
                  <td>${day(p.due_date)}</td>
                  <td>${status(p.status)}</td>
                  <td>${personName(p.requester)}</td>
                </tr>`,
            ),
          )}
          ${pager('/console/payment-requests', result, undefined)}`
    }`
  return page({ title: 'Payment requests', actor, csrf, current: 'payment-requests' }, body)
}

export interface PaymentRequestPage {
  request: PaymentRequest
  /** What the signed-in user may do now. */
  can: { submit: boolean; cancel: boolean }
  /** Approvals on it the signed-in user may decide. */
  decidable: ReadonlySet<number>
  /** The boxes after the approval chain (views/history.ts): the runs that pay it, its history. */
  ledTo?: Html | undefined
  history?: Html | undefined
  /** Its Attachments box and Comments thread (views/attachments.ts). */
  boxes?: Html | undefined
  flash?: string | undefined
  problem?: string | undefined
}

export function paymentRequestView(view: PaymentRequestPage, { actor, csrf }: Frame): string {
  const p = view.request
  const action = (name: string, label: string) =>
    postForm(`/console/payment-requests/${p.id}/${name}`, csrf, html`<button type="submit">${label}</button>`)
  const actions: Html[] = []
  if (view.can.submit) actions.push(action('submit', 'Submit for approval'))
  if (view.can.cancel) actions.push(action('cancel', 'Cancel the payment request'))
  const body = html`${view.flash === undefined ? '' : notice('status', view.flash)}
    ${view.problem === undefined ? '' : notice('alert', view.problem)}
    <dl class="card">
      <dt>Status</dt>
      <dd>${status(p.status)}</dd>
      <dt>Vendor</dt>
      <dd>
        <a href="/console/vendors/${p.vendor.id}">${p.vendor.name}</a> ·
        <a href="/console/vendors/${p.vendor.id}/bank-account">Bank details</a>
      </dd>
      <dt>Amount</dt>
      <dd>${money(p.amount, p.currency)}</dd>
      <dt>Paid so far</dt>
      <dd>${money(p.amount_paid, p.currency)}</dd>
      <dt>Due</dt>
      <dd>${day(p.due_date)}</dd>
      <dt>Vendor’s reference</dt>
      <dd>${p.invoice_number || '—'}</dd>
      <dt>What it pays for</dt>
      <dd>${p.reason || '—'}</dd>
      <dt>Location</dt>
      <dd>${p.location.name}${p.department === null ? '' : ` · ${p.department.name}`}</dd>
      <dt>Requested by</dt>
      <dd>${personName(p.requester)}, ${when(p.created_at)}</dd>
      <dt>Submitted</dt>
      <dd>${when(p.submitted_at, 'Not yet')}</dd>
      ${
        p.paid_at === null
          ? ''
          : html`<dt>Paid</dt>
              <dd>${when(p.paid_at)}${p.payment_reference === null ? '' : ` · ${p.payment_reference}`}</dd>`
      }
    </dl>
    ${
      actions.length === 0
        ? ''
        : html`<section aria-labelledby="actions">
            <h2 id="actions">What you can do</h2>
            ${actions}
          </section>`
    }
    ${approvalChain(p.approvals, view.decidable, 'No approvals: the payment request has not been submitted, or no approval rule applied to it.')}
    ${view.boxes ?? ''} ${view.ledTo ?? ''} ${view.history ?? ''}`
  return page({ title: `Payment request ${p.number}`, actor, csrf, current: 'payment-requests' }, body)
}

/** What the new-request form offers: the locations where the user makes requests, their departments, vendors, currencies. */
export interface PaymentRequestChoices {
  location: readonly Option[]
  department: DepartmentGroups
  vendor: readonly Option[]
  currency: readonly Option[]
}

export function paymentRequestFormView(
  form: FormState,
  choices: PaymentRequestChoices,
  { actor, csrf }: Frame,
  problem?: string,
): string {
  const body = html`${errorSummary(form, PAYMENT_REQUEST_LABELS, problem)}
    <p>Save it as a draft, check it, then submit it for approval. Once approved, accounts payable pays it in a run.</p>
    ${postForm(
      '/console/payment-requests',
      csrf,
      html`${select({ name: 'location', label: 'Location', form, options: choices.location, required: true })}
        ${departmentSelect(form, choices.department, 'A department of the location, if it pays for one.')}
        ${select({ name: 'vendor', label: 'Vendor', form, options: choices.vendor, empty: 'Choose the vendor', required: true })}
        ${input({ name: 'amount', label: 'Amount', form, required: true, hint: 'Up to 2 decimals, e.g. 1500.00.' })}
        ${select({ name: 'currency', label: 'Currency', form, options: choices.currency, empty: 'The location’s currency' })}
        ${input({ name: 'due_date', label: 'Due date', form, type: 'date' })}
        ${input({ name: 'invoice_number', label: 'Vendor’s reference', form, maxlength: 100, hint: 'Their invoice or booking number: the bank transfer carries it.' })}
        ${textarea({ name: 'reason', label: 'What it pays for', form })}
        <button type="submit">Save as a draft</button>`,
      html`class="card"`,
    )}`
  return page({ title: 'New payment request', actor, csrf, current: 'payment-requests' }, body)
}
