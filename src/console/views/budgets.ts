/**
 * Budgets: the list (what each covers, its amount, committed, spent and available, a bar of what is used, over
 * budget marked in words), one budget with its ledger entries, each linked to its document's page, and the form
 * that creates or edits one.
 */
import type { Page } from '../../core/list-query.ts'
import type { Budget, LedgerEntry } from '../../budgets/schema.ts'
import type { BudgetNames } from '../../budgets/view.service.ts'
import { day, decimal, money, when } from './format.ts'
import {
  checkbox,
  departmentSelect,
  errorSummary,
  input,
  select,
  type DepartmentGroups,
  type FormState,
  type Option,
} from './forms.ts'
import { html, type Html } from './html.ts'
import { notice, page, postForm, type Frame } from './layout.ts'
import { emptyState, pager, searchForm, table } from './lists.ts'

const ACTIONS: Readonly<Record<string, string>> = {
  warn: 'Warn: the document proceeds with a warning',
  block: 'Block: the document is refused',
  approve: 'Approve: the owner approves first',
}
const STAGES: Readonly<Record<string, string>> = { pending: 'Pending', committed: 'Committed', spent: 'Spent' }
const REASONS: Readonly<Record<string, string>> = {
  submitted: 'Submitted',
  approved: 'Approved',
  rejected: 'Rejected',
  cancelled: 'Cancelled',
  ordered: 'Ordered',
  issued: 'Issued',
  billed: 'Billed',
  closed: 'Closed',
  paid: 'Paid',
}

/** Where each kind of document has its console page, and what people call it. */
const DOCUMENTS: Readonly<Record<string, { path: string; name: string }>> = {
  request: { path: 'requests', name: 'Request' },
  purchase_order: { path: 'orders', name: 'Order' },
  bill: { path: 'bills', name: 'Bill' },
  expense_report: { path: 'expenses', name: 'Expense report' },
  travel_request: { path: 'travel', name: 'Travel request' },
  payment_request: { path: 'payment-requests', name: 'Payment request' },
}

const over = (b: Budget) => b.available.startsWith('-')

/** What a budget covers: "Head Office · Marketing · 6100 Travel", "every location" for nulls. */
function scopeOf(b: Budget, names: BudgetNames): string {
  const name = (map: ReadonlyMap<number, string>, id: number | null, every: string) =>
    id === null ? every : (map.get(id) ?? `#${id}`)
  return [
    name(names.locations, b.location, 'Every location'),
    name(names.departments, b.department, 'every department'),
    name(names.accounts, b.account, 'every account'),
  ].join(' · ')
}

/** A bar of what is used (pending, committed and spent) against the amount, its percentage in words beside it. */
function usedBar(b: Budget): Html {
  const used = b.used_percent === null ? null : Number(b.used_percent)
  const label = b.used_percent === null ? 'No amount set' : `${b.used_percent} % used${over(b) ? ' — over budget' : ''}`
  return html`<span class="budget-used">
    ${used === null ? '' : html`<meter min="0" max="100" low="80" high="95" optimum="0" value="${Math.min(used, 100)}">${label}</meter>`}
    <span>${label}</span>
  </span>`
}

/** Available, or "Over by …" in bold when below zero. */
const availableText = (b: Budget, currency: string): Html =>
  over(b)
    ? html`<strong class="over">Over budget by ${money(b.available.slice(1), currency)}</strong>`
    : html`${money(b.available, currency)}`

export function budgetsView(
  result: Page<Budget>,
  search: string | undefined,
  names: BudgetNames,
  { actor, csrf }: Frame,
  flash?: string,
  /** Whether the person may create a budget somewhere (Manage at a location, or superuser). */
  creates = false,
): string {
  const overCount = result.rows.filter(over).length
  const body = html`${flash === undefined ? '' : notice('status', flash)}
    ${creates ? html`<p class="actions"><a class="button" href="/console/budgets/new">New budget</a></p>` : ''}
    <p>
      What each budget has left, in ${names.currency}: pending (awaiting approval), committed (approved or ordered, not
      billed yet) and spent (billed) all count against it.
    </p>
    ${
      overCount === 0
        ? ''
        : notice(
            'warning',
            `${overCount} budget${overCount === 1 ? ' is' : 's are'} over on this page: marked “Over budget”.`,
          )
    }
    ${searchForm('/console/budgets', 'Search budgets by name', search)}
    ${
      result.count === 0
        ? emptyState(
            search === undefined
              ? creates
                ? 'No budget yet. Create one with “New budget”.'
                : 'No budget you may see yet. Someone with the Manage permission at a location (or an administrator) sets them up.'
              : `No budget matches “${search}”. Try part of the name.`,
          )
        : html`${table(
            ['Budget', 'Covers', 'Period', 'Amount', 'Committed', 'Spent', 'Available', 'Used'],
            result.rows.map(
              (b) =>
                html`<tr data-href="/console/budgets/${b.id}" ${over(b) ? html` class="over"` : ''}>
                  <td>
                    <a href="/console/budgets/${b.id}">${b.name}</a
                    >${b.active ? '' : html` <span class="tag">Inactive</span>`}
                  </td>
                  <td>${scopeOf(b, names)}</td>
                  <td>${day(b.period_start)} – ${day(b.period_end)}</td>
                  <td>${money(b.amount, names.currency)}</td>
                  <td>${money(b.committed, names.currency)}</td>
                  <td>${money(b.spent, names.currency)}</td>
                  <td>${availableText(b, names.currency)}</td>
                  <td>${usedBar(b)}</td>
                </tr>`,
            ),
          )}
          ${pager('/console/budgets', result, search)}`
    }`
  return page({ title: 'Budgets', actor, csrf, current: 'budgets' }, body)
}

/** An entry's document as a link to its page: "Order PO-000042". */
function documentLink(d: LedgerEntry['document']): Html {
  const kind = DOCUMENTS[d.type]
  const text = `${kind?.name ?? d.type} ${d.number}`
  return kind === undefined ? html`${text}` : html`<a href="/console/${kind.path}/${d.id}">${text}</a>`
}

export function budgetView(
  budget: Budget,
  entries: Page<LedgerEntry>,
  names: BudgetNames,
  { actor, csrf }: Frame,
  flash?: string,
  /** Whether the person may edit and delete it. */
  writes = false,
): string {
  const c = names.currency
  const owner = budget.owner === null ? 'No owner' : (names.owners.get(budget.owner) ?? `User ${budget.owner}`)
  const actions = writes
    ? html`<div class="actions">
        <a class="button" href="/console/budgets/${budget.id}/edit">Edit</a>
        ${postForm(
          `/console/budgets/${budget.id}/delete`,
          csrf,
          html`<button type="submit" class="danger">Delete the budget (its ledger entries stay)</button>`,
        )}
      </div>`
    : ''
  const body = html`${flash === undefined ? '' : notice('status', flash)} ${actions}
    ${
      over(budget)
        ? notice(
            'warning',
            `Over budget by ${money(budget.available.slice(1), c)}: more is counted against it than its amount.`,
          )
        : ''
    }
    <section class="card" aria-labelledby="budget-figures">
      <h2 id="budget-figures">Figures</h2>
      <dl>
        <dt>Covers</dt>
        <dd>${scopeOf(budget, names)}</dd>
        <dt>Period</dt>
        <dd>${day(budget.period_start)} – ${day(budget.period_end)}</dd>
        <dt>When a document would go over</dt>
        <dd>${ACTIONS[budget.action] ?? budget.action}</dd>
        <dt>Owner</dt>
        <dd>${owner}</dd>
        <dt>State</dt>
        <dd>
          ${budget.active ? 'Active: documents are checked against it' : 'Inactive: no document is checked against it'}
        </dd>
        <dt>Amount</dt>
        <dd>${money(budget.amount, c)}</dd>
        <dt>Pending</dt>
        <dd>${money(budget.pending, c)}</dd>
        <dt>Committed</dt>
        <dd>${money(budget.committed, c)}</dd>
        <dt>Spent</dt>
        <dd>${money(budget.spent, c)}</dd>
        <dt>Available</dt>
        <dd>${availableText(budget, c)}</dd>
        <dt>Used</dt>
        <dd>${usedBar(budget)}</dd>
      </dl>
    </section>
    <section aria-labelledby="budget-entries">
      <h2 id="budget-entries">Ledger entries</h2>
      <p>
        Every move of a document line this budget counts, newest first; amounts in ${c} at the rate the line first
        counted at.
      </p>
      ${
        entries.count === 0
          ? emptyState(
              'No document counts against this budget yet: entries appear when a request, order or bill it covers is submitted.',
            )
          : html`${table(
              ['When', 'Document', 'Stage', 'Amount', 'Original amount', 'What happened', 'Budget date'],
              entries.rows.map(
                (e) =>
                  html`<tr>
                    <td>${when(e.created_at)}</td>
                    <td>${documentLink(e.document)}</td>
                    <td>${STAGES[e.stage] ?? e.stage}</td>
                    <td>${money(e.amount, c)}</td>
                    <td>${money(e.original_amount, e.currency)} at ${decimal(e.rate, 2)}</td>
                    <td>${REASONS[e.reason] ?? e.reason}</td>
                    <td>${day(e.budget_date)}</td>
                  </tr>`,
              ),
            )}
            ${pager(`/console/budgets/${budget.id}`, entries, undefined)}`
      }
    </section>
    <p><a href="/console/budgets">All budgets</a></p>`
  return page({ title: `Budget: ${budget.name}`, actor, csrf, current: 'budgets' }, body)
}

/** Each form field's name (the API's) and what people call it. */
export const BUDGET_LABELS: Readonly<Record<string, string>> = {
  name: 'Name',
  location: 'Location',
  department: 'Department',
  account: 'Account',
  period_start: 'First day',
  period_end: 'Last day',
  amount: 'Amount',
  action: 'When a document would go over',
  owner: 'Owner',
  active: 'Active: check documents against it',
}

/** What a budget form offers: locations the person may write at, their departments, accounts, people. */
export interface BudgetChoices {
  location: readonly Option[]
  /** Whether "Every location" is on offer (a superuser's). */
  everyLocation: boolean
  department: DepartmentGroups
  account: readonly Option[]
  owner: readonly Option[]
}

export const BUDGET_ACTIONS: readonly Option[] = Object.entries(ACTIONS).map(([value, label]) => ({ value, label }))

export function budgetFormView(
  form: FormState,
  choices: BudgetChoices,
  target: { action: string; title: string; cancel: string },
  { actor, csrf }: Frame,
  currency: string,
): string {
  const body = html`${errorSummary(form, BUDGET_LABELS)}
  ${postForm(
    target.action,
    csrf,
    html`<fieldset>
        <legend>What it covers</legend>
        ${input({ name: 'name', label: BUDGET_LABELS.name!, form, required: true, maxlength: 200 })}
        ${select({
          name: 'location',
          label: BUDGET_LABELS.location!,
          form,
          options: choices.location,
          ...(choices.everyLocation ? { empty: 'Every location' } : {}),
          required: !choices.everyLocation,
        })}
        ${departmentSelect(form, choices.department, 'None: every department of the location.')}
        ${select({
          name: 'account',
          label: BUDGET_LABELS.account!,
          form,
          options: choices.account,
          empty: 'Every account',
          hint: 'Accounts are set up under Set-up.',
        })}
      </fieldset>
      <fieldset>
        <legend>Period and amount</legend>
        ${input({ name: 'period_start', label: BUDGET_LABELS.period_start!, form, type: 'date', required: true })}
        ${input({
          name: 'period_end',
          label: BUDGET_LABELS.period_end!,
          form,
          type: 'date',
          required: true,
          hint: 'At most 366 days after the first day, counting both.',
        })}
        ${input({
          name: 'amount',
          label: `${BUDGET_LABELS.amount!} (${currency})`,
          form,
          required: true,
          hint: `In ${currency}, the base currency, up to 2 decimals: 25000 or 25000.00.`,
        })}
      </fieldset>
      <fieldset>
        <legend>Control</legend>
        ${select({ name: 'action', label: BUDGET_LABELS.action!, form, options: BUDGET_ACTIONS, required: true })}
        ${select({
          name: 'owner',
          label: BUDGET_LABELS.owner!,
          form,
          options: choices.owner,
          empty: 'No owner',
          hint: 'Needed for “Approve”: the owner approves what goes over; an owner also sees the budget.',
        })}
        ${checkbox({ name: 'active', label: BUDGET_LABELS.active!, form })}
      </fieldset>
      <p class="actions">
        <button type="submit">Save the budget</button>
        <a class="button secondary" href="${target.cancel}">Cancel</a>
      </p>`,
  )}`
  return page({ title: target.title, actor, csrf, current: 'budgets' }, body)
}
