/**
 * Purchase requests: the list (status filter, search, paging) and one request with its lines, total and
 * approval chain (the form that creates or edits one is in request-form.ts).
 */
import type { Approval, Person } from '../../approvals/schema.ts'
import { lineTotal } from '../../core/decimal.ts'
import type { Page } from '../../core/list-query.ts'
import type { PurchaseRequest } from '../../requests/schema.ts'
import { day, decimal, money, quantity, unitPrice, when } from './format.ts'
import { html, type Html } from './html.ts'
import { notice, page, postForm, type Frame } from './layout.ts'
import { emptyState, pager, table } from './lists.ts'

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

export function requestsView(
  result: Page<PurchaseRequest>,
  filter: { search: string | undefined; status: string | undefined; mine?: boolean },
  { actor, csrf }: Frame,
  canCreate: boolean,
): string {
  const keep = {
    ...(filter.status === undefined ? {} : { status: filter.status }),
    ...(filter.mine === true ? { mine: '1' } : {}),
  }
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
      <label class="check"
        ><input type="checkbox" name="mine" value="1" ${filter.mine === true ? html`checked` : ''} /> Only mine</label
      >
      <button type="submit">Show</button>
    </form>
    ${
      result.count === 0
        ? emptyState(
            filter.search === undefined && filter.status === undefined && filter.mine !== true
              ? canCreate
                ? 'No requests yet. Start one with “New request”.'
                : 'No requests you may see yet.'
              : 'No request matches. Try another status or part of the description.',
          )
        : html`${table(
            ['Request', 'Description', 'Total', 'Status', 'Requester', 'Location', 'Created'],
            result.rows.map(
              (r) =>
                html`<tr data-href="/console/requests/${r.id}">
                  <td><a href="/console/requests/${r.id}">#${r.id}</a></td>
                  <td>${r.description || '—'}</td>
                  <td class="number">${money(r.total, r.currency)}</td>
                  <td>${statusName(r.status)}</td>
                  <td>${personName(r.requester)}</td>
                  <td>${r.location.name}</td>
                  <td>${when(r.created_at)}</td>
                </tr>`,
            ),
          )}
          ${pager('/console/requests', result, filter.search, keep)}`
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
        <dt>Total</dt>
        <dd>${money(r.total, r.currency)}</dd>
        <dt>Requester</dt>
        <dd>${personName(r.requester)}</dd>
        <dt>Location</dt>
        <dd>${r.location.name}</dd>
        <dt>Department</dt>
        <dd>${r.department?.name ?? '—'}</dd>
        <dt>Description</dt>
        <dd>${r.description || '—'}</dd>
        <dt>Needed by</dt>
        <dd>${day(r.needed_by)}</dd>
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
                  <td class="number">${quantity(l.quantity)}</td>
                  <td class="number">${unitPrice(l.unit_price)}</td>
                  <td class="number">${decimal(lineTotal([l]))}</td>
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

/**
 * The approval chain: each step, its candidates, who decided (and for whom), the comment. `empty` is what a
 * document without approvals says (a request's wording unless the caller's document has its own).
 */
export function approvalChain(
  approvals: readonly Approval[],
  decidable: ReadonlySet<number>,
  empty = 'No approvals: the request has not been submitted, or no approval rule applied to it.',
): Html {
  return html`<section aria-labelledby="chain">
    <h2 id="chain">Approval chain</h2>
    ${
      approvals.length === 0
        ? emptyState(empty)
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
  can: { edit: boolean; submit: boolean; cancel: boolean; order?: boolean }
  /** Approvals on it the signed-in user may decide. */
  decidable: ReadonlySet<number>
  flash?: string | undefined
  problem?: string | undefined
  /** The boxes after the approval chain (views/history.ts): the chain it would go through, what it led to, history. */
  preview?: Html | undefined
  ledTo?: Html | undefined
  history?: Html | undefined
  /** Its Attachments box and Comments thread (views/attachments.ts). */
  boxes?: Html | undefined
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
      ${view.can.order === true ? button('order', 'Make purchase orders') : ''}
      <a href="/console/requests">All requests</a>
    </p>
    ${requestSummary(r, view.vendors)} ${view.preview ?? ''}
    ${r.status === 'draft' && view.preview !== undefined ? '' : approvalChain(r.approvals, view.decidable)}
    ${view.boxes ?? ''} ${view.ledTo ?? ''} ${view.history ?? ''}`
  return page({ title: `Request #${r.id}`, actor, csrf, current: 'requests' }, body)
}
