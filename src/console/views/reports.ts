/**
 * The Reports page: pick a report, its filters as a GET form, then the chart (inline SVG, drawn on the
 * server) with the table of the same rows beside it, and CSV/XLSX links of exactly what is shown. Also
 * `spendThisMonthCard`: spend this month against the budgets, for the home page.
 */
import type { Actor } from '../../access/actor.ts'
import type { Column, ReportDefinition, Row } from '../../reports/definitions.ts'
import type { FilterName, Filters } from '../../reports/filters.ts'
import { columnLabel } from '../../reports/labels.ts'
import type { FilterOptions } from '../../reports/options.repository.ts'
import { html, Html } from './html.ts'

type HtmlType = Html
import { decimal, money } from './format.ts'
import { page } from './layout.ts'
import { emptyState } from './lists.ts'

export interface ReportPageData {
  reports: readonly ReportDefinition[]
  report: ReportDefinition
  filters: Filters
  options: FilterOptions
  rows: Row[]
  totals: Record<string, unknown>
  currency: string
  svg: string
  /** The query string of what is shown (without `format`). */
  query: string
}

const LABELS: Record<string, string> = {
  report: 'Report',
  from: 'From',
  to: 'To',
  location: 'Location',
  department: 'Department',
  vendor: 'Vendor',
  account: 'Account',
  group_by: 'Group by',
  as_of: 'Aged on',
}

const select = (
  name: string,
  options: { id: number | string; name: string }[],
  value: number | string | null,
  any: string | null,
) =>
  html`<label for="report-${name}">${LABELS[name]}</label>
    <select id="report-${name}" name="${name}">
      ${any === null ? '' : html`<option value="">${any}</option>`}
      ${options.map((o) => html`<option value="${o.id}" ${String(o.id) === String(value ?? '') ? html`selected` : ''}>${o.name}</option>`)}
    </select>`

function filterForm(data: ReportPageData): HtmlType {
  const { report, filters, options } = data
  const field = (name: FilterName): HtmlType => {
    switch (name) {
      case 'from':
      case 'to':
      case 'as_of':
        return html`<label for="report-${name}">${LABELS[name]}</label>
          <input id="report-${name}" name="${name}" type="date" value="${filters[name] ?? ''}" />`
      case 'location':
        return select('location', options.locations, filters.location, 'Every location you report on')
      case 'department':
        return select('department', options.departments, filters.department, 'Every department')
      case 'vendor':
        return select('vendor', options.vendors, filters.vendor, 'Every vendor')
      case 'account':
        return select('account', options.accounts, filters.account, 'Every account')
      case 'group_by':
        return select(
          'group_by',
          report.groupBy!.values.map((v) => ({ id: v, name: v[0]!.toUpperCase() + v.slice(1) })),
          filters.group_by,
          null,
        )
      default:
        return html``
    }
  }
  return html`<form method="get" action="/console/reports" class="card report-filters">
    <div class="field">
      ${select(
        'report',
        data.reports.map((r) => ({ id: r.name, name: r.title })),
        report.name,
        null,
      )}
    </div>
    ${report.filters.map((f) => html`<div class="field">${field(f)}</div>`)}
    <button type="submit">Show the report</button>
  </form>`
}

const cell = (c: Column, row: Row) => {
  const value = c.value(row)
  return value === null ? '—' : String(value)
}

function reportTable(data: ReportPageData): HtmlType {
  const columns = data.report.columns.filter(
    (c) => !(c.header.endsWith('_id') && c.kind !== 'integer') && c.header !== 'key_id',
  )
  const heading = (c: Column) => columnLabel(data.report.name, c.header, data.filters.group_by)
  // Focusable and named: a wide report's table scrolls sideways, and the keyboard must reach it.
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="${data.report.title} table">
    <table>
      <caption>
        ${data.report.title}: ${data.rows.length} ${data.rows.length === 1 ? 'row' : 'rows'}, amounts in
        ${data.currency}
      </caption>
      <thead>
        <tr>
          ${columns.map((c) => html`<th scope="col">${heading(c)}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${data.rows.map(
          (row) =>
            html`<tr>
              ${columns.map((c) => html`<td class="${c.kind === 'text' ? '' : 'number'}" data-label="${heading(c)}">${cell(c, row)}</td>`)}
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`
}

export function reportsView(data: ReportPageData, frame: { actor: Actor; csrf: string }): string {
  const link = (format: string) => `/console/reports/download?${data.query}${data.query ? '&' : ''}format=${format}`
  const body = html`${filterForm(data)}
    <p class="muted">${data.report.description}</p>
    <p class="actions">
      <a href="${link('csv')}" download>Download these rows as CSV</a>
      <a href="${link('xlsx')}" download>Download these rows as XLSX</a>
    </p>
    ${
      data.rows.length === 0
        ? emptyState('No rows match these filters; widen the dates or choose another location.')
        : html`<div class="report">
            <figure class="report-chart">${new Html(data.svg)}</figure>
            ${reportTable(data)}
          </div>`
    }`
  return page(
    { title: `Reports: ${data.report.title}`, actor: frame.actor, csrf: frame.csrf, current: 'reports' },
    body,
  )
}

/**
 * Spend this month against the budgets: a card for the home page (`spendThisMonthCard`), as wide as the page.
 * Each budget says what is spent and what is committed (pending and committed documents) of its amount, how
 * much is used (also as a meter) and what is left — or by how much it is over.
 */
export function spendThisMonthCard(figures: {
  month: string
  spent: string
  currency: string
  budgets: {
    id: number
    name: string
    amount: string
    committed: string
    spent: string
    used_percent: string | null
    available: string
  }[]
}): HtmlType {
  const c = figures.currency
  return html`<section class="card home-card home-wide" aria-labelledby="spend-this-month">
    <h2 id="spend-this-month">Spend in ${figures.month}: ${money(figures.spent, c)}</h2>
    ${
      figures.budgets.length === 0
        ? html`<p>
            No budget covers this month.
            <a href="/console/reports?report=spend&amp;group_by=month">See spend by month</a>.
          </p>`
        : html`<ul class="budget-lines">
            ${figures.budgets.map(
              (b) =>
                html`<li>
                  <span class="budget-name">${b.name}</span>
                  ${
                    b.used_percent === null
                      ? ''
                      : html`<meter
                            min="0"
                            max="100"
                            low="80"
                            high="100"
                            optimum="0"
                            value="${Math.min(Number(b.used_percent), 100)}"
                            aria-label="${b.name}: ${b.used_percent} % used"
                          ></meter>
                          ${b.used_percent} % used`
                  }
                  <br />
                  ${decimal(b.spent)} spent and ${decimal(b.committed)} committed of ${money(b.amount, c)};
                  ${
                    b.available.startsWith('-')
                      ? html`<strong>over by ${money(b.available.slice(1), c)}</strong>`
                      : html`${money(b.available, c)} left`
                  }
                </li>`,
            )}
          </ul>`
    }
    <p><a href="/console/reports?report=budgets">Open the budgets report</a></p>
  </section>`
}
