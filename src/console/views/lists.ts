/** What every console list shares: a search form, a pager that keeps the search, and a table. */
import type { Page } from '../../core/list-query.ts'
import { html, type Html } from './html.ts'

export function searchForm(path: string, label: string, search: string | undefined): Html {
  return html`<form method="get" action="${path}" role="search" class="card">
    <label for="search">${label}</label>
    <input id="search" name="search" type="search" value="${search ?? ''}" />
    <button type="submit">Search</button>
  </form>`
}

/** "Page 2 of 5" with previous/next links that keep the search (and any other filters in `keep`). */
export function pager(
  path: string,
  result: Page<unknown>,
  search: string | undefined,
  keep: Readonly<Record<string, string>> = {},
): Html {
  const pages = Math.max(1, Math.ceil(result.count / result.page.pageSize))
  const link = (n: number) =>
    `${path}?${new URLSearchParams({ ...keep, ...(search ? { search } : {}), page: String(n) }).toString()}`
  const current = result.page.page
  return html`<nav class="pager" aria-label="Pages">
    ${current > 1 ? html`<a href="${link(current - 1)}" rel="prev">Previous page</a>` : ''}
    <span>Page ${current} of ${pages} · ${result.count} in all</span>
    ${current < pages ? html`<a href="${link(current + 1)}" rel="next">Next page</a>` : ''}
  </nav>`
}

export const table = (headings: string[], rows: Html[]) =>
  html`<div class="table-wrap">
    <table>
      <thead>
        <tr>
          ${headings.map((h) => html`<th scope="col">${h}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
  </div>`

/** What an empty list says, with what to do next. */
export const emptyState = (text: string): Html => html`<p class="empty">${text}</p>`
