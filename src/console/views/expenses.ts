/**
 * Expense reports and travel requests in the console: "My expenses" (the list, a report with its lines and
 * their receipts shown inline, the new-report form) and travel requests (the list, one request, the form).
 * Server-rendered, usable without JavaScript; tables scroll inside their own box at 390 px.
 */
import type { Page } from '../../core/list-query.ts'
import type { ExpenseReport } from '../../expense-reports/schema.ts'
import type { TravelRequest } from '../../travel-requests/schema.ts'
import { when } from './format.ts'
import { errorSummary, input, select, type FormState, type Option } from './forms.ts'
import { html, type Html } from './html.ts'
import { notice, page, postForm, type Frame } from './layout.ts'
import { emptyState, pager, table } from './lists.ts'
import { approvalChain, personName } from './requests.ts'

export const EXPENSE_STATUS_NAMES: Readonly<Record<string, string>> = {
  draft: 'Draft',
  pending_approval: 'Awaiting approval',
  approved: 'Approved',
  rejected: 'Rejected',
  reimbursed: 'Reimbursed',
  cancelled: 'Cancelled',
}
/** How many blank lines the new-report form offers (blank ones are left out). */
export const FORM_LINES = 5
const LINE_LABELS = {
  date: 'Date',
  merchant: 'Merchant',
  description: 'What for',
  amount: 'Amount',
  currency: 'Currency',
}
export const EXPENSE_LABELS: Readonly<Record<string, string>> = {
  location: 'Location',
  currency: 'Reimbursed in',
  title: 'Title',
  ...Object.fromEntries(
    Array.from({ length: FORM_LINES }, (_, i) =>
      Object.entries(LINE_LABELS).map(([k, v]): [string, string] => [
        `lines.${i}.${k}`,
        `Line ${i + 1}: ${v.toLowerCase()}`,
      ]),
    ).flat(),
  ),
}

const status = (s: string) => EXPENSE_STATUS_NAMES[s] ?? s

export function expensesView(result: Page<ExpenseReport>, { actor, csrf }: Frame, flash?: string): string {
  const body = html`${flash === undefined ? '' : notice('status', flash)}
    <p><a class="button" href="/console/expenses/new">New expense report</a></p>
    ${
      result.count === 0
        ? emptyState('No expense reports yet. Make one for what you paid yourself, with a receipt per line.')
        : html`${table(
            ['Report', 'Title', 'Employee', 'Total', 'Status', 'Made'],
            result.rows.map(
              (r) =>
                html`<tr>
                  <td><a href="/console/expenses/${r.id}">${r.number}</a></td>
                  <td>${r.title || '—'}</td>
                  <td>${personName(r.employee)}</td>
                  <td class="number">${r.total} ${r.currency}</td>
                  <td>${status(r.status)}</td>
                  <td>${when(r.created_at)}</td>
                </tr>`,
            ),
          )}
          ${pager('/console/expenses', result, undefined)}`
    }`
  return page({ title: 'My expenses', actor, csrf, current: 'expenses' }, body)
}

/** A receipt on the page: the image itself when it is one (through the console), else a link to open it. */
function receiptOf(r: ExpenseReport, line: ExpenseReport['lines'][number], index: number, images: ReadonlySet<number>) {
  if (line.receipt === null) return html`<span class="muted">No receipt</span>`
  const href = `/console/expenses/${r.id}/receipts/${line.receipt}`
  return images.has(line.receipt)
    ? html`<a href="${href}"><img class="receipt" src="${href}" alt="Receipt for line ${index + 1}" width="160" /></a>`
    : html`<a href="${href}">Open the receipt of line ${index + 1}</a>`
}

export interface ExpenseActions {
  mine: boolean
  payable: boolean
  decidable: ReadonlySet<number>
  /** The receipts that are images (shown inline). */
  images: ReadonlySet<number>
  /** Each line takes a receipt upload here (its employee, while a draft or rejected). */
  receipts?: boolean
}

/** One upload form per line: a photo (the phone's camera offered) or a PDF becomes the line's receipt. */
function receiptUploads(r: ExpenseReport, csrf: string): Html {
  return html`<section aria-labelledby="add-receipts">
    <h2 id="add-receipts">Receipts</h2>
    <p class="hint">Take a photo of each line’s receipt or choose its PDF, then attach it to the line.</p>
    ${r.lines.map(
      (l, i) =>
        html`<form
          method="post"
          action="/console/expenses/${r.id}/lines/${l.id}/receipt"
          enctype="multipart/form-data"
          class="card"
        >
          <input type="hidden" name="_csrf" value="${csrf}" />
          <label for="receipt-${l.id}"
            >Receipt for line ${i + 1}: ${l.merchant || l.description || l.date}, ${l.amount} ${l.currency}</label
          >
          ${l.receipt === null ? '' : html`<p class="hint">It has one; a new file replaces it.</p>`}
          <input type="file" id="receipt-${l.id}" name="file" accept="image/*,application/pdf" capture required />
          <button type="submit">
            ${l.receipt === null ? 'Attach' : 'Replace'}<span class="visually-hidden">
              the receipt of line ${i + 1}</span
            >
          </button>
        </form>`,
    )}
  </section>`
}

export function expenseView(
  r: ExpenseReport,
  can: ExpenseActions,
  { actor, csrf }: Frame,
  notes: { flash?: string | undefined; problem?: string | undefined; boxes?: Html | undefined },
): string {
  const action = (name: string, label: string) =>
    postForm(`/console/expenses/${r.id}/${name}`, csrf, html`<button type="submit">${label}</button>`)
  const actions: Html[] = []
  if (can.mine && ['draft', 'rejected'].includes(r.status)) actions.push(action('submit', 'Submit for approval'))
  if (can.mine && ['draft', 'pending_approval'].includes(r.status)) actions.push(action('cancel', 'Cancel the report'))
  if (can.payable && r.status === 'approved')
    actions.push(
      postForm(
        `/console/expenses/${r.id}/reimburse`,
        csrf,
        html`<label for="payment_reference">Payment reference</label>
          <input id="payment_reference" name="payment_reference" maxlength="200" />
          <button type="submit">Mark reimbursed</button>`,
      ),
    )
  const body = html`${notes.flash === undefined ? '' : notice('status', notes.flash)}
    ${notes.problem === undefined ? '' : notice('alert', notes.problem)}
    <dl>
      <dt>Status</dt>
      <dd>${status(r.status)}</dd>
      <dt>Employee</dt>
      <dd>${personName(r.employee)}</dd>
      <dt>Location</dt>
      <dd>${r.location.name}${r.department === null ? '' : ` · ${r.department.name}`}</dd>
      <dt>Title</dt>
      <dd>${r.title || '—'}</dd>
      <dt>Total</dt>
      <dd>${r.total} ${r.currency}</dd>
      ${
        r.travel_request === null
          ? ''
          : html`<dt>Trip</dt>
              <dd><a href="/console/travel/${r.travel_request}">Travel request ${r.travel_request}</a></dd>`
      }
      ${
        r.reimbursed_at === null
          ? ''
          : html`<dt>Reimbursed</dt>
              <dd>${when(r.reimbursed_at)} ${r.payment_reference ?? ''}</dd>`
      }
    </dl>
    <section aria-labelledby="lines">
      <h2 id="lines">Lines</h2>
      ${table(
        ['Date', 'Merchant', 'Amount', `In ${r.currency}`, 'Receipt'],
        r.lines.map(
          (l, i) =>
            html`<tr>
              <td>${l.date}</td>
              <td>
                ${l.merchant || '—'}${l.description ? html`<br /><span class="muted">${l.description}</span>` : ''}
              </td>
              <td class="number">${l.amount} ${l.currency}</td>
              <td class="number">${l.converted_amount}</td>
              <td>${receiptOf(r, l, i, can.images)}</td>
            </tr>`,
        ),
      )}
    </section>
    ${can.receipts === true ? receiptUploads(r, csrf) : ''}
    ${
      actions.length === 0
        ? ''
        : html`<section aria-labelledby="actions">
            <h2 id="actions">What you can do</h2>
            ${actions}
          </section>`
    }
    ${approvalChain(r.approvals, can.decidable, 'No approvals: the report has not been submitted, or no approval rule applied to it.')}
    ${notes.boxes ?? ''}`
  return page({ title: `Expense report ${r.number}`, actor, csrf, current: 'expenses' }, body)
}

export interface PlaceOptions {
  location: readonly Option[]
  currency: readonly Option[]
}

export function expenseFormView(
  form: FormState,
  choices: PlaceOptions,
  { actor, csrf }: Frame,
  problem?: string,
): string {
  const lines = Array.from(
    { length: FORM_LINES },
    (_, i) =>
      html`<fieldset class="card">
        <legend>Line ${i + 1}</legend>
        ${input({ name: `lines.${i}.date`, label: LINE_LABELS.date, form, type: 'date' })}
        ${input({ name: `lines.${i}.merchant`, label: LINE_LABELS.merchant, form, maxlength: 200 })}
        ${input({ name: `lines.${i}.description`, label: LINE_LABELS.description, form, maxlength: 1000 })}
        ${input({ name: `lines.${i}.amount`, label: LINE_LABELS.amount, form, hint: 'As the receipt says, e.g. 38.50.' })}
        ${select({ name: `lines.${i}.currency`, label: LINE_LABELS.currency, form, options: choices.currency, empty: 'The report’s' })}
      </fieldset>`,
  )
  const body = html`${errorSummary(form, EXPENSE_LABELS, problem)}
    <p>Fill in one line per receipt; empty lines are left out. Save, then add each receipt on the report’s page.</p>
    ${postForm(
      '/console/expenses',
      csrf,
      html`${select({ name: 'location', label: 'Location', form, options: choices.location, required: true })}
        ${select({ name: 'currency', label: 'Reimbursed in', form, options: choices.currency, empty: 'The location’s currency' })}
        ${input({ name: 'title', label: 'Title', form, maxlength: 500 })} ${lines}
        <button type="submit">Save as a draft</button>`,
      html`class="card"`,
    )}`
  return page({ title: 'New expense report', actor, csrf, current: 'expenses' }, body)
}

export function travelListView(result: Page<TravelRequest>, { actor, csrf }: Frame, flash?: string): string {
  const body = html`${flash === undefined ? '' : notice('status', flash)}
    <p><a class="button" href="/console/travel/new">New travel request</a></p>
    ${
      result.count === 0
        ? emptyState('No travel requests yet. Ask for a trip before you book it.')
        : html`${table(
            ['Request', 'Destination', 'Traveller', 'Dates', 'Total', 'Status'],
            result.rows.map(
              (t) =>
                html`<tr>
                  <td><a href="/console/travel/${t.id}">${t.number}</a></td>
                  <td>${t.destination}</td>
                  <td>${personName(t.traveller)}</td>
                  <td>${t.departure_date} – ${t.return_date}</td>
                  <td class="number">${t.total} ${t.currency}</td>
                  <td>${status(t.status)}</td>
                </tr>`,
            ),
          )}
          ${pager('/console/travel', result, undefined)}`
    }`
  return page({ title: 'Travel requests', actor, csrf, current: 'travel' }, body)
}

export function travelView(
  t: TravelRequest,
  can: { mine: boolean; decidable: ReadonlySet<number> },
  { actor, csrf }: Frame,
  notes: { flash?: string | undefined; problem?: string | undefined; boxes?: Html | undefined },
): string {
  const action = (name: string, label: string) =>
    postForm(`/console/travel/${t.id}/${name}`, csrf, html`<button type="submit">${label}</button>`)
  const actions: Html[] = []
  if (can.mine && ['draft', 'rejected'].includes(t.status)) actions.push(action('submit', 'Submit for approval'))
  if (can.mine && ['draft', 'pending_approval'].includes(t.status)) actions.push(action('cancel', 'Cancel the request'))
  const body = html`${notes.flash === undefined ? '' : notice('status', notes.flash)}
    ${notes.problem === undefined ? '' : notice('alert', notes.problem)}
    <dl>
      <dt>Status</dt>
      <dd>${status(t.status)}</dd>
      <dt>Traveller</dt>
      <dd>${personName(t.traveller)}</dd>
      <dt>Purpose</dt>
      <dd>${t.purpose}</dd>
      <dt>Destination</dt>
      <dd>${t.destination}</dd>
      <dt>Dates</dt>
      <dd>${t.departure_date} – ${t.return_date}</dd>
      <dt>Total</dt>
      <dd>${t.total} ${t.currency}</dd>
      <dt>Expensed so far</dt>
      <dd>${t.expensed_total} ${t.currency}</dd>
    </dl>
    ${table(
      ['Category', 'Estimate'],
      t.estimates.map(
        (e) =>
          html`<tr>
            <td>${e.category}</td>
            <td class="number">${e.amount} ${t.currency}</td>
          </tr>`,
      ),
    )}
    ${
      actions.length === 0
        ? ''
        : html`<section aria-labelledby="actions">
            <h2 id="actions">What you can do</h2>
            ${actions}
          </section>`
    }
    ${approvalChain(t.approvals, can.decidable, 'No approvals: the request has not been submitted, or no approval rule applied to it.')}
    ${notes.boxes ?? ''}`
  return page({ title: `Travel request ${t.number}`, actor, csrf, current: 'travel' }, body)
}

const CATEGORIES: Option[] = ['airfare', 'lodging', 'ground', 'meals', 'other'].map((c) => ({ value: c, label: c }))
export const TRAVEL_LABELS: Readonly<Record<string, string>> = {
  location: 'Location',
  currency: 'Currency',
  purpose: 'Purpose',
  destination: 'Destination',
  departure_date: 'Departure',
  return_date: 'Return',
  ...Object.fromEntries(
    Array.from({ length: 5 }, (_, i): [string, string][] => [
      [`estimates.${i}.category`, `Estimate ${i + 1}: category`],
      [`estimates.${i}.amount`, `Estimate ${i + 1}: amount`],
    ]).flat(),
  ),
}

export function travelFormView(
  form: FormState,
  choices: PlaceOptions,
  { actor, csrf }: Frame,
  problem?: string,
): string {
  const estimates = Array.from(
    { length: 5 },
    (_, i) =>
      html`<fieldset class="card">
        <legend>Estimate ${i + 1}</legend>
        ${select({ name: `estimates.${i}.category`, label: 'Category', form, options: CATEGORIES, empty: 'None' })}
        ${input({ name: `estimates.${i}.amount`, label: 'Amount', form })}
      </fieldset>`,
  )
  const body = html`${errorSummary(form, TRAVEL_LABELS, problem)}
  ${postForm(
    '/console/travel',
    csrf,
    html`${select({ name: 'location', label: 'Location', form, options: choices.location, required: true })}
      ${select({ name: 'currency', label: 'Currency', form, options: choices.currency, empty: 'The location’s currency' })}
      ${input({ name: 'purpose', label: 'Purpose', form, required: true, maxlength: 2000 })}
      ${input({ name: 'destination', label: 'Destination', form, required: true, maxlength: 500 })}
      ${input({ name: 'departure_date', label: 'Departure', form, type: 'date', required: true })}
      ${input({ name: 'return_date', label: 'Return', form, type: 'date', required: true })} ${estimates}
      <button type="submit">Save as a draft</button>`,
    html`class="card"`,
  )}`
  return page({ title: 'New travel request', actor, csrf, current: 'travel' }, body)
}

/** What an approver reads of an expense report: who, where, the total, and each line with its receipt inline. */
export function expenseSummary(r: ExpenseReport, images: ReadonlySet<number>): Html {
  return html`<section aria-labelledby="expense">
    <h2 id="expense">Expense report ${r.number}</h2>
    <dl>
      <dt>Employee</dt>
      <dd>${personName(r.employee)}</dd>
      <dt>Location</dt>
      <dd>${r.location.name}</dd>
      <dt>Total</dt>
      <dd>${r.total} ${r.currency}</dd>
    </dl>
    ${table(
      ['Date', 'Merchant', 'Amount', `In ${r.currency}`, 'Receipt'],
      r.lines.map(
        (l, i) =>
          html`<tr>
            <td>${l.date}</td>
            <td>${l.merchant || l.description || '—'}</td>
            <td class="number">${l.amount} ${l.currency}</td>
            <td class="number">${l.converted_amount}</td>
            <td>${receiptOf(r, l, i, images)}</td>
          </tr>`,
      ),
    )}
  </section>`
}

/** What an approver reads of a travel request. */
export function travelSummary(t: TravelRequest): Html {
  return html`<section aria-labelledby="travel">
    <h2 id="travel">Travel request ${t.number}</h2>
    <dl>
      <dt>Traveller</dt>
      <dd>${personName(t.traveller)}</dd>
      <dt>Purpose</dt>
      <dd>${t.purpose}</dd>
      <dt>Destination and dates</dt>
      <dd>${t.destination}, ${t.departure_date} – ${t.return_date}</dd>
      <dt>Total</dt>
      <dd>${t.total} ${t.currency}</dd>
    </dl>
  </section>`
}
