/**
 * Payments in the console: the Payments page (approved bills with something open, grouped by vendor, each
 * vendor's bank details and their verification state; select bills → a run), a run's page (items, approval,
 * the file, confirm) and a vendor's bank details (change them, verify them).
 */
import type { VendorBankAccount } from '../../bank-accounts/schema.ts'
import type { CompanyBankAccount } from '../../bank-accounts/schema.ts'
import type { Bill } from '../../bills/schema.ts'
import type { PaymentRequest } from '../../payment-requests/schema.ts'
import type { PaymentRun } from '../../payment-runs/schema.ts'
import { money, when } from './format.ts'
import { html, type Html } from './html.ts'
import { notice, page, postForm, type Frame } from './layout.ts'
import { emptyState, table } from './lists.ts'
import { approvalChain, personName } from './requests.ts'

export interface PaymentsPage {
  bills: readonly (Bill & { open: string })[]
  /** Approved payment requests with something open, paid beside the bills. */
  requests?: readonly (PaymentRequest & { open: string })[]
  accounts: ReadonlyMap<number, VendorBankAccount>
  bankAccounts: readonly CompanyBankAccount[]
  runs: readonly PaymentRun[]
  today: string
  flash?: string | undefined
  problem?: string | undefined
}

/** A payment run's status in words. */
export const RUN_STATUS_NAMES: Readonly<Record<string, string>> = {
  draft: 'Draft',
  pending_approval: 'Waiting for approval',
  approved: 'Approved: download the file for the bank',
  confirmed: 'Confirmed: paid',
  cancelled: 'Cancelled',
}

const verification = (account: VendorBankAccount | undefined) =>
  account === undefined
    ? html`<strong>No bank details yet</strong>`
    : account.status === 'verified'
      ? html`Bank details verified (account ending ${(account.iban ?? account.account_number ?? '').slice(-4)})`
      : html`<strong>Bank details not verified</strong>: someone other than who changed them must verify them`

/** A document on the Payments page: an approved bill or payment request with something open. */
interface Payable {
  field: string
  href: string
  number: string
  vendor: { id: number; name: string }
  open: string
  currency: string
  due_date: string | null
  location: { name: string }
}

export function paymentsView(view: PaymentsPage, { actor, csrf }: Frame): string {
  const payables: Payable[] = [
    ...view.bills.map((b) => ({ ...b, field: `bill_${b.id}`, href: `/console/bills/${b.id}` })),
    ...(view.requests ?? []).map((p) => ({
      ...p,
      field: `payment_request_${p.id}`,
      href: `/console/payment-requests/${p.id}`,
    })),
  ]
  const byVendor = new Map<number, Payable[]>()
  for (const b of payables) byVendor.set(b.vendor.id, [...(byVendor.get(b.vendor.id) ?? []), b])
  const groups = [...byVendor.values()].map((bills) => {
    const vendor = bills[0]!.vendor
    const account = view.accounts.get(vendor.id)
    return html`<section aria-labelledby="vendor-${vendor.id}" class="card">
      <h3 id="vendor-${vendor.id}">${vendor.name}</h3>
      <p>
        ${verification(account)} ·
        <a href="/console/vendors/${vendor.id}/bank-account">Bank details of ${vendor.name}</a>
      </p>
      ${table(
        ['Pay', 'Invoice or request', 'Open', 'Due', 'Location'],
        bills.map(
          (b) =>
            html`<tr>
              <td>
                <input type="checkbox" id="${b.field}" name="${b.field}" value="on" form="new-run" />
                <label for="${b.field}" class="visually-hidden">Pay ${b.number}</label>
              </td>
              <td><a href="${b.href}">${b.number}</a></td>
              <td class="number">${money(b.open, b.currency)}</td>
              <td>${b.due_date ?? '—'}</td>
              <td>${b.location.name}</td>
            </tr>`,
        ),
      )}
    </section>`
  })
  const accounts = view.bankAccounts.filter((a) => a.active)
  const form =
    accounts.length === 0
      ? notice(
          'alert',
          'No company bank account yet: an administrator adds one (API /api/v3/bank-accounts/) before runs can be made.',
        )
      : postForm(
          '/console/payments/runs',
          csrf,
          html`<label for="bank_account">Pay from</label>
            <select id="bank_account" name="bank_account">
              ${accounts.map((a) => html`<option value="${a.id}">${a.name} (${a.currency})</option>`)}
            </select>
            <label for="execution_date">Execution date</label>
            <input id="execution_date" name="execution_date" type="date" value="${view.today}" required />
            <button type="submit">Make a payment run of the selected bills</button>`,
          html`id="new-run" class="card"`,
        )
  const runs =
    view.runs.length === 0
      ? emptyState('No payment runs yet.')
      : table(
          ['Run', 'Status', 'Items', 'Total', 'Execution date'],
          view.runs.map(
            (r) =>
              html`<tr>
                <td><a href="/console/payment-runs/${r.id}">${r.number}</a></td>
                <td>${RUN_STATUS_NAMES[r.status] ?? r.status}</td>
                <td class="number">${r.items.length}</td>
                <td class="number">${money(r.total, r.currency)}</td>
                <td>${r.execution_date}</td>
              </tr>`,
          ),
        )
  const body = html`${view.flash === undefined ? '' : notice('status', view.flash)}
    ${view.problem === undefined ? '' : notice('alert', view.problem)}
    <p>
      Approved bills and payment requests with an amount still open, by vendor. Select the ones to pay, choose the
      account and the date, and make a run; it is approved, then its file goes to the bank.
    </p>
    <p><a href="/console/payment-requests">Payment requests</a> (payments without an order: deposits, fees)</p>
    <h2>Bills to pay</h2>
    ${groups.length === 0 ? emptyState('No approved bill or payment request waits for payment.') : groups} ${form}
    <h2>Payment runs</h2>
    ${runs}`
  return page({ title: 'Payments', actor, csrf, current: 'payments' }, body)
}

export interface RunPage {
  run: PaymentRun
  decidable: ReadonlySet<number>
  flash?: string | undefined
  problem?: string | undefined
}

export function paymentRunView(view: RunPage, { actor, csrf }: Frame): string {
  const { run } = view
  const action = (name: string, label: string) =>
    postForm(`/console/payment-runs/${run.id}/${name}`, csrf, html`<button type="submit">${label}</button>`)
  const actions: Html[] = []
  if (run.status === 'draft') actions.push(action('submit', 'Submit for approval'))
  if (run.status === 'approved' || run.status === 'confirmed')
    actions.push(
      html`<p>
        <a href="/console/payment-runs/${run.id}/file" download="${run.number}.xml"
          >Download the bank file (${run.number}.xml, ISO 20022 pain.001)</a
        >
      </p>`,
    )
  if (run.status === 'approved')
    actions.push(
      postForm(
        `/console/payment-runs/${run.id}/confirm`,
        csrf,
        html`<p>
            Once the bank has executed the file, confirm it: every bill and payment request of the run is marked paid.
          </p>
          <button type="submit">Confirm the bank paid it</button>`,
      ),
    )
  if (run.status === 'draft' || run.status === 'pending_approval' || run.status === 'approved')
    actions.push(action('cancel', 'Cancel the run'))
  const body = html`${view.flash === undefined ? '' : notice('status', view.flash)}
    ${view.problem === undefined ? '' : notice('alert', view.problem)}
    <dl class="card">
      <dt>Status</dt>
      <dd>${RUN_STATUS_NAMES[run.status] ?? run.status}</dd>
      <dt>Pay from</dt>
      <dd>${run.bank_account.name}</dd>
      <dt>Execution date</dt>
      <dd>${run.execution_date}</dd>
      <dt>Total</dt>
      <dd>${money(run.total, run.currency)}</dd>
      <dt>Made by</dt>
      <dd>${personName(run.created_by)}, ${when(run.created_at)}</dd>
      ${
        run.confirmed_at === null
          ? ''
          : html`<dt>Confirmed</dt>
              <dd>${when(run.confirmed_at)}</dd>`
      }
    </dl>
    <h2>Items</h2>
    ${table(
      ['Document', 'Vendor', 'Amount', 'Reference', 'Location'],
      run.items.map(
        (i) =>
          html`<tr>
            <td>
              <a href="/console/${i.document.type === 'bill' ? 'bills' : 'payment-requests'}/${i.document.id}"
                >${i.document.number}</a
              >
            </td>
            <td><a href="/console/vendors/${i.vendor.id}/bank-account">${i.vendor.name}</a></td>
            <td class="number">${money(i.amount, run.currency)}</td>
            <td>${i.reference}</td>
            <td>${i.location.name}</td>
          </tr>`,
      ),
    )}
    ${approvalChain(run.approvals, view.decidable, 'No approvals: the run has not been submitted, or no payment run rule applied to it.')}
    <h2>What you can do</h2>
    ${actions.length === 0 ? emptyState('Nothing: the run is finished.') : actions}`
  return page({ title: `Payment run ${run.number}`, actor, csrf, current: 'payments' }, body)
}

export interface BankPage {
  vendor: { id: number; name: string }
  account: VendorBankAccount | undefined
  payable: boolean
  values: Readonly<Record<string, string>>
  errors?: Readonly<Record<string, string[]>>
  flash?: string | undefined
  problem?: string | undefined
}

const FIELDS: readonly [string, string, string][] = [
  ['account_holder', 'Account holder', 'The name on the account'],
  ['iban', 'IBAN', 'Spaces are fine; leave it empty for an account number'],
  ['bic', 'BIC', '8 or 11 letters and digits'],
  ['account_number', 'Account number', 'Only for an account without an IBAN'],
  ['routing_number', 'Routing number', 'The bank’s routing or sort code, if it needs one'],
  ['country', 'Country', 'Two letters, like DE; taken from the IBAN when empty'],
]

export function bankAccountView(view: BankPage, { actor, csrf }: Frame): string {
  const { account, vendor } = view
  const details =
    account === undefined
      ? emptyState(`${vendor.name} has no bank details yet.`)
      : html`<dl class="card">
          <dt>State</dt>
          <dd>${account.status === 'verified' ? 'Verified' : html`<strong>Not verified</strong>`}</dd>
          <dt>Account holder</dt>
          <dd>${account.account_holder}</dd>
          <dt>IBAN</dt>
          <dd>${account.iban ?? '—'}</dd>
          <dt>BIC</dt>
          <dd>${account.bic ?? '—'}</dd>
          <dt>Account number</dt>
          <dd>${account.account_number ?? '—'}</dd>
          <dt>Routing number</dt>
          <dd>${account.routing_number ?? '—'}</dd>
          <dt>Country</dt>
          <dd>${account.country || '—'}</dd>
          <dt>Changed by</dt>
          <dd>${personName(account.changed_by)}, ${when(account.changed_at)}</dd>
          <dt>Verified by</dt>
          <dd>
            ${account.verified_by === null ? '—' : html`${personName(account.verified_by)}, ${when(account.verified_at)}`}
          </dd>
        </dl>`
  const verify =
    view.payable && account !== undefined && account.status !== 'verified'
      ? postForm(
          `/console/vendors/${vendor.id}/bank-account/verify`,
          csrf,
          html`<p>
              Verify only after confirming the details with ${vendor.name} by a channel you already trust (not the
              message that asked for the change).
            </p>
            <button type="submit">Verify these bank details</button>`,
        )
      : ''
  const errors = view.errors ?? {}
  const form = view.payable
    ? postForm(
        `/console/vendors/${vendor.id}/bank-account`,
        csrf,
        html`<h2>Change the bank details</h2>
          <p>A change makes them unverified and e-mails everyone with accounts payable.</p>
          ${FIELDS.map(
            ([name, label, hint]) =>
              html`<label for="${name}">${label}</label>
                <p class="hint" id="${name}-hint">${hint}</p>
                ${(errors[name] ?? []).map((e) => html`<p class="field-error" id="${name}-error">${label} ${e}.</p>`)}
                <input
                  id="${name}"
                  name="${name}"
                  value="${view.values[name] ?? ''}"
                  aria-describedby="${name}-hint"
                />`,
          )}
          <button type="submit">Save the bank details</button>`,
        html`class="card"`,
      )
    : html`<p>Only people with accounts payable see the whole account and change it.</p>`
  const body = html`${view.flash === undefined ? '' : notice('status', view.flash)}
    ${view.problem === undefined ? '' : notice('alert', view.problem)}
    <p><a href="/console/vendors/${vendor.id}">Back to ${vendor.name}</a></p>
    ${details} ${verify} ${form}`
  return page({ title: `Bank details of ${vendor.name}`, actor, csrf, current: 'payments' }, body)
}
