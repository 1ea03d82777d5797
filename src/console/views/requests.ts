/**
 * Purchase requests: the list (status filter, search, paging), one request with its lines, total and
 * approval chain, and the form that creates or edits a draft with its lines editor. The editor works without
 * JavaScript: each line is a group of fields, blank lines are ignored, a box removes a line, and "Add a line"
 * posts the form back to be shown again with one more empty line (nothing is written).
 */
import type { Actor } from '../../access/actor.ts'
import type { Approval, Person } from '../../approvals/schema.ts'
import { lineTotal } from '../../core/decimal.ts'
import type { Page } from '../../core/list-query.ts'
import type { PurchaseRequest } from '../../requests/schema.ts'
import { when } from './format.ts'
import { errorSummary, input, select, textarea, type FormState, type Option } from './forms.ts'
import { html, type Html } from './html.ts'
import { notice, page, postForm } from './layout.ts'
import { emptyState, pager, table } from './lists.ts'

interface Frame {
  actor: Actor
  csrf: string
}

export const STATUS_NAMES: Readonly<Record<string, string>> = {
  draft: 'Draft',
  pending: 'Waiting for approval',
  approved: 'Approved',
  rejected: 'Rejected',
  cancelled: 'Cancelled',
}
const statusName = (status: string) => STATUS_NAMES[status] ?? status

/** "Ada Lovelace" (the e-mail when the person has no name). */
export const personName = (p: Person | null | undefined): string =>
  p === null || p === undefined ? '—' : `${p.first_name} ${p.last_name}`.trim() || p.email

/** The request's own fields and what people call them (lines are `lines.<n>.<field>`). */
export const REQUEST_LABELS: Readonly<Record<string, string>> = {
  location: 'Location',
  department: 'Department',
  currency: 'Currency',
  description: 'Description',
  needed_by: 'Needed by',
  lines: 'Lines',
}
export const LINE_FIELDS = ['description', 'vendor', 'quantity', 'unit_price'] as const
const LINE_LABELS: Readonly<Record<(typeof LINE_FIELDS)[number], string>> = {
  description: 'Item',
  vendor: 'Vendor',
  quantity: 'Quantity',
  unit_price: 'Unit price',
}

/** The labels of a form with `rows` lines, for its error summary. */
export function requestLabels(rows: number): Record<string, string> {
  const labels: Record<string, string> = { ...REQUEST_LABELS }
  for (let i = 0; i < rows; i++)
    for (const f of LINE_FIELDS) labels[`lines.${i}.${f}`] = `Line ${i + 1}, ${LINE_LABELS[f].toLowerCase()}`
  return labels
}

/** The choices the form offers: where the user may request, the departments by location, currencies, vendors. */
export interface RequestChoices {
  location: readonly Option[]
  department: readonly { location: string; options: readonly Option[] }[]
  currency: readonly Option[]
  vendor: readonly Option[]
}

/** A request's money as people read it: "59.97 USD". */
const money = (amount: string, currency: string) => `${amount} ${currency}`

export function requestsView(
  result: Page<PurchaseRequest>,
  filter: { search: string | undefined; status: string | undefined },
  { actor, csrf }: Frame,
  canCreate: boolean,
): string {
  const statuses = [
    { value: '', label: 'Any status' },
    ...Object.entries(STATUS_NAMES).map(([value, label]) => ({ value, label })),
  ]
  const body = html`${canCreate ? html`<p class="actions"><a class="button" href="/console/requests/new">New request</a></p>` : ''}
    <form method="get" action="/console/requests" role="search" class="card">
      <label for="search">Search descriptions</label>
      <input id="search" name="search" type="search" value="${filter.search ?? ''}" />
      <label for="status">Status</label>
      <select id="status" name="status">
        ${statuses.map((s) => html`<option value="${s.value}" ${s.value === (filter.status ?? '') ? html`selected` : ''}>${s.label}</option>`)}
      </select>
      <button type="submit">Show</button>
    </form>
    ${
      result.count === 0
        ? emptyState(
            filter.search === undefined && filter.status === undefined
              ? canCreate
                ? 'No requests yet. Start one with “New request”.'
                : 'No requests you may see yet.'
              : 'No request matches. Try another status or part of the description.',
          )
        : html`${table(
            ['Request', 'Description', 'Requester', 'Location', 'Total', 'Status', 'Created'],
            result.rows.map(
              (r) =>
                html`<tr data-href="/console/requests/${r.id}">
                  <td><a href="/console/requests/${r.id}">#${r.id}</a></td>
                  <td>${r.description || '—'}</td>
                  <td>${personName(r.requester)}</td>
                  <td>${r.location.name}</td>
                  <td class="number">${money(r.total, r.currency)}</td>
                  <td>${statusName(r.status)}</td>
                  <td>${when(r.created_at)}</td>
                </tr>`,
            ),
          )}
          ${pager('/console/requests', result, filter.search, filter.status === undefined ? {} : { status: filter.status })}`
    }`
  return page({ title: 'Requests', actor, csrf, current: 'requests' }, body)
}

/** Who decided an approval: "Bo Chen", or "Bo Chen on behalf of Ada Lovelace" for a delegatee. */
export function decidedBy(a: Approval): Html {
  if (a.acted_by === null) return html`—`
  return a.on_behalf_of === null
    ? html`${personName(a.acted_by)}`
    : html`${personName(a.acted_by)} <span class="muted">on behalf of</span> ${personName(a.on_behalf_of)}`
}

/** The request's fields, lines and total: what the detail page and an approver's decision page both show. */
export function requestSummary(r: PurchaseRequest, vendors: ReadonlyMap<number, string>): Html {
  return html`<section aria-labelledby="details">
      <h2 id="details">Details</h2>
      <dl>
        <dt>Status</dt>
        <dd>${statusName(r.status)}</dd>
        <dt>Requester</dt>
        <dd>${personName(r.requester)}</dd>
        <dt>Location</dt>
        <dd>${r.location.name}</dd>
        <dt>Department</dt>
        <dd>${r.department?.name ?? '—'}</dd>
        <dt>Description</dt>
        <dd>${r.description || '—'}</dd>
        <dt>Needed by</dt>
        <dd>${r.needed_by ?? '—'}</dd>
        <dt>Submitted</dt>
        <dd>${when(r.submitted_at, 'Not yet')}</dd>
        <dt>Last changed</dt>
        <dd>${when(r.updated_at)}</dd>
      </dl>
    </section>
    <section aria-labelledby="lines">
      <h2 id="lines">Lines</h2>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Item</th>
              <th scope="col">Vendor</th>
              <th scope="col" class="number">Quantity</th>
              <th scope="col" class="number">Unit price</th>
              <th scope="col" class="number">Amount</th>
            </tr>
          </thead>
          <tbody>
            ${r.lines.map(
              (l, i) =>
                html`<tr>
                  <td>${i + 1}</td>
                  <td>${l.description || '—'}</td>
                  <td>${l.vendor === null ? '—' : (vendors.get(l.vendor) ?? `Vendor ${l.vendor}`)}</td>
                  <td class="number">${l.quantity}</td>
                  <td class="number">${l.unit_price}</td>
                  <td class="number">${lineTotal([l])}</td>
                </tr>`,
            )}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row" colspan="5">Total</th>
              <td class="number" data-testid="total"><strong>${money(r.total, r.currency)}</strong></td>
            </tr>
          </tfoot>
        </table>
      </div>
    </section>`
}

/** The approval chain: each step, its candidates, who decided (and for whom), the comment. */
export function approvalChain(approvals: readonly Approval[], decidable: ReadonlySet<number>): Html {
  return html`<section aria-labelledby="chain">
    <h2 id="chain">Approval chain</h2>
    ${
      approvals.length === 0
        ? emptyState('No approvals: the request has not been submitted, or no approval rule applied to it.')
        : table(
            ['Step', 'Status', 'Who may decide', 'Decided by', 'Comment', 'When'],
            approvals.map(
              (a) =>
                html`<tr>
                  <td>${a.step}</td>
                  <td>
                    ${a.status === 'pending' ? 'Waiting' : statusName(a.status)}
                    ${decidable.has(a.id) ? html` · <a href="/console/approvals/${a.id}">Decide</a>` : ''}
                  </td>
                  <td>${a.candidates.map(personName).join(', ') || '—'}</td>
                  <td>${decidedBy(a)}</td>
                  <td>${a.comment || '—'}</td>
                  <td>${when(a.acted_at ?? a.created_at)}</td>
                </tr>`,
            ),
          )
    }
  </section>`
}

export interface RequestPageView {
  request: PurchaseRequest
  vendors: ReadonlyMap<number, string>
  /** What the signed-in user may do now. */
  can: { edit: boolean; submit: boolean; cancel: boolean }
  /** Approvals on it the signed-in user may decide. */
  decidable: ReadonlySet<number>
  flash?: string | undefined
  problem?: string | undefined
}

export function requestView(view: RequestPageView, { actor, csrf }: Frame): string {
  const r = view.request
  const button = (action: string, label: string, kind = '') =>
    postForm(
      `/console/requests/${r.id}/${action}`,
      csrf,
      html`<button type="submit" class="${kind}">${label}</button>`,
      html`class="inline"`,
    )
  const body = html`${view.flash === undefined ? '' : notice('status', view.flash)}
    ${view.problem === undefined ? '' : notice('alert', view.problem)}
    <p class="actions">
      ${view.can.edit ? html`<a class="button" href="/console/requests/${r.id}/edit">Edit</a>` : ''}
      ${view.can.submit ? button('submit', 'Submit for approval') : ''}
      ${view.can.cancel ? button('cancel', 'Cancel request', 'secondary') : ''}
      <a href="/console/requests">All requests</a>
    </p>
    ${requestSummary(r, view.vendors)} ${approvalChain(r.approvals, view.decidable)}`
  return page({ title: `Request #${r.id}`, actor, csrf, current: 'requests' }, body)
}

/** One line of the editor: its four fields and a box that removes it, in a group named "Line n". */
function lineFields(i: number, form: FormState, vendors: readonly Option[]): Html {
  const name = (f: string) => `lines.${i}.${f}`
  return html`<fieldset class="line">
    <legend>Line ${i + 1}</legend>
    ${input({ name: name('description'), label: 'Item', form, maxlength: 1000 })}
    ${select({ name: name('vendor'), label: 'Vendor', form, options: vendors, empty: 'No vendor' })}
    ${input({ name: name('quantity'), label: 'Quantity', form, maxlength: 21, hint: 'For example 3 or 2.5' })}
    ${input({ name: name('unit_price'), label: 'Unit price', form, maxlength: 21, hint: 'For example 19.99' })}
    <div class="field checkbox">
      <input type="checkbox" id="f-lines-${i}-remove" name="${name('remove')}" value="on" />
      <label for="f-lines-${i}-remove">Remove line ${i + 1}</label>
    </div>
  </fieldset>`
}

/** The create or edit form of a draft with `rows` lines in the editor. */
export function requestFormView(
  form: FormState,
  rows: number,
  choices: RequestChoices,
  target: { action: string; title: string; cancel: string },
  { actor, csrf }: Frame,
  message?: string,
): string {
  const departments = html`<div class="field">
    <label for="f-department">Department <span class="muted">(optional)</span></label>
    <p class="hint" id="f-department-hint">It must belong to the location chosen above.</p>
    ${(form.errors.department ?? []).length === 0 ? '' : html`<p class="field-error" id="f-department-error">${form.errors.department!.join('; ')}</p>`}
    <select
      id="f-department"
      name="department"
      aria-describedby="f-department-hint${(form.errors.department ?? []).length === 0 ? '' : ' f-department-error'}"
      ${(form.errors.department ?? []).length === 0 ? '' : html`aria-invalid="true"`}
    >
      <option value="">None</option>
      ${choices.department.map(
        (group) =>
          html`<optgroup label="${group.location}">
            ${group.options.map((o) => html`<option value="${o.value}" ${o.value === form.values.department ? html`selected` : ''}>${o.label}</option>`)}
          </optgroup>`,
      )}
    </select>
  </div>`
  const body = html`${errorSummary(form, requestLabels(rows), message)}
  ${postForm(
    target.action,
    csrf,
    html`<input type="hidden" name="rows" value="${rows}" />
      <fieldset>
        <legend>Request</legend>
        ${select({ name: 'location', label: 'Location', form, options: choices.location, required: true })}
        ${departments}
        ${select({ name: 'currency', label: 'Currency', form, options: choices.currency, empty: 'The location’s currency' })}
        ${textarea({ name: 'description', label: 'Description', form, rows: 2 })}
        ${input({ name: 'needed_by', label: 'Needed by', form, type: 'date' })}
      </fieldset>
      <fieldset>
        <legend>Lines</legend>
        <p class="hint">Lines left empty are ignored. Quantities and prices take up to 4 decimals.</p>
        ${(form.errors.lines ?? []).length === 0 ? '' : html`<p class="field-error" id="f-lines">${form.errors.lines!.join('; ')}</p>`}
        ${Array.from({ length: rows }, (_, i) => lineFields(i, form, choices.vendor))}
      </fieldset>
      <p class="actions">
        <button type="submit" name="intent" value="save">Save draft</button>
        <button type="submit" name="intent" value="add" class="secondary">Add a line</button>
        <a href="${target.cancel}">Cancel</a>
      </p>`,
    html`novalidate`,
  )}`
  return page({ title: target.title, actor, csrf, current: 'requests' }, body)
}
