/**
 * The boxes every document page shares: its History (the audit entries written on it and on its approvals:
 * who, what, when) and What it led to (a request's orders; an order's receipts and bills; a vendor's orders,
 * bills and spend this year). Each page inserts them with one call; the data is read by pages/history.ts.
 */
import type { HistoryRow } from '../../audit/service.ts'
import { money, when } from './format.ts'
import { html, type Html } from './html.ts'
import { emptyState, table } from './lists.ts'

/** What an audited action did, in words ("request.submit" → "Submitted"). */
const ACTIONS: Readonly<Record<string, string>> = {
  create: 'Created',
  update: 'Edited',
  replace: 'Edited',
  revise: 'Revised',
  submit: 'Submitted for approval',
  cancel: 'Cancelled',
  issue: 'Issued',
  send: 'Sent to the vendor',
  close: 'Closed',
  close_line: 'Closed a line',
  reopen: 'Reopened',
  void: 'Voided',
  approve: 'Approved a step',
  reject: 'Rejected a step',
  pay: 'Marked paid',
  order: 'Ordered',
}

/** "Submitted for approval" for `request.submit`; an action without a word is shown by its name. */
export function actionName(action: string): string {
  const verb = action.slice(action.lastIndexOf('.') + 1)
  return ACTIONS[verb] ?? verb.replaceAll('_', ' ').replace(/^./, (c) => c.toUpperCase())
}

/** Who wrote an entry: the person's name (e-mail when nameless), the application, or the operator's CLI. */
export function actorName(row: HistoryRow): string {
  const name = `${row.actor_first_name ?? ''} ${row.actor_last_name ?? ''}`.trim()
  if (row.actor_email !== null) return name === '' ? row.actor_email : name
  if (row.client_id !== null) return `Application ${row.client_id}`
  return 'The operator'
}

/** What the entry carries that a reader wants: the channel and a decision's comment. */
function detailOf(row: HistoryRow): string {
  const changes =
    typeof row.changes === 'object' && row.changes !== null ? (row.changes as Record<string, unknown>) : {}
  const parts: string[] = []
  if (typeof changes.comment === 'string' && changes.comment !== '') parts.push(`“${changes.comment}”`)
  if (changes.via === 'console') parts.push('in the console')
  else if (changes.via === 'cli') parts.push('with the command line')
  else if (changes.via === 'sso') parts.push('through single sign-on')
  else if (changes.via === 'scim') parts.push('through provisioning (SCIM)')
  else parts.push('through the API')
  return parts.join(' · ')
}

/** The History box: every audit entry of the document, oldest first (who, what, when). */
export function historyBox(rows: readonly HistoryRow[]): Html {
  return html`<section aria-labelledby="history" class="history">
    <h2 id="history">History</h2>
    ${
      rows.length === 0
        ? emptyState('Nothing recorded yet.')
        : html`<ol class="timeline">
            ${rows.map(
              (r) =>
                html`<li>
                  <span class="what">${actionName(r.action)}</span>
                  <span class="who">by ${actorName(r)}</span>
                  <span class="when">${when(r.created_at)}</span>
                  ${detailOf(r) === '' ? '' : html`<span class="muted detail">${detailOf(r)}</span>`}
                </li>`,
            )}
          </ol>`
    }
  </section>`
}

/** One document in a "What it led to" box. */
export interface LedToRow {
  kind: string
  href: string
  label: string
  status: string
  amount: string | null
  currency: string | null
  date: Date | string | null
}

/**
 * The What it led to box: `rows` are the documents that followed this one (or `empty`, a sentence); `extra`
 * (a vendor's spend this year) shows above the table.
 */
export function ledToBox(rows: readonly LedToRow[], empty: string, extra: Html | '' = ''): Html {
  return html`<section aria-labelledby="led-to" class="led-to">
    <h2 id="led-to">What it led to</h2>
    ${extra}
    ${
      rows.length === 0
        ? emptyState(empty)
        : table(
            ['Document', 'Kind', 'Status', 'Amount', 'When'],
            rows.map(
              (r) =>
                html`<tr data-href="${r.href}">
                  <td><a href="${r.href}">${r.label}</a></td>
                  <td>${r.kind}</td>
                  <td>${r.status}</td>
                  <td class="number">
                    ${r.amount === null || r.currency === null ? '—' : money(r.amount, r.currency)}
                  </td>
                  <td>${when(r.date)}</td>
                </tr>`,
            ),
          )
    }
  </section>`
}

/** A vendor's spend this year: what its bills (submitted, approved or paid) total, per currency. */
export function spendLine(year: number, totals: ReadonlyMap<string, string>): Html {
  const parts = [...totals].map(([currency, amount]) => money(amount, currency))
  return html`<p class="spend">
    Spend in ${year}: <strong>${parts.length === 0 ? 'nothing billed yet' : parts.join(' · ')}</strong>
    <span class="muted">(bills submitted, approved or paid)</span>
  </p>`
}

/** The preview of a draft's approval chain, as the chain-preview service answers it. */
export interface ChainPreviewView {
  total: string
  base_total: string
  steps: {
    step: number
    candidates: { first_name: string; last_name: string; email: string }[]
    problem: string | null
  }[]
  submittable: boolean
}

const nameOf = (p: { first_name: string; last_name: string; email: string }) =>
  `${p.first_name} ${p.last_name}`.trim() || p.email

/**
 * The Approval steps box of a draft: the steps it would go through if submitted now, each step's possible
 * approvers, and a step that would find none said as the administrator's task (the submit would be refused).
 */
export function chainPreviewBox(preview: ChainPreviewView, currency: string): Html {
  return html`<section aria-labelledby="chain-preview" class="chain-preview">
    <h2 id="chain-preview">Approval steps if submitted now</h2>
    ${
      preview.steps.length === 0
        ? emptyState(
            `No approval rule applies to ${money(preview.total, currency)}: submitted now, the request is approved at once.`,
          )
        : html`<p>
              Submitted now, this request of ${money(preview.total, currency)} goes through
              ${preview.steps.length === 1 ? 'one step' : `${preview.steps.length} steps`}, in order; any one person of
              a step decides it.
            </p>
            ${table(
              ['Step', 'Who may decide'],
              preview.steps.map(
                (s) =>
                  html`<tr>
                    <td>${s.step}</td>
                    <td>
                      ${s.problem === null ? s.candidates.map(nameOf).join(', ') : html`<strong>No one:</strong> ${s.problem}`}
                    </td>
                  </tr>`,
              ),
            )}
            ${
              preview.submittable
                ? ''
                : html`<p class="notice alert" role="alert">
                    Submitting would be refused until a step has someone who may approve it; ask your administrator.
                  </p>`
            }`
    }
  </section>`
}
