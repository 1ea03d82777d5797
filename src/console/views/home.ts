/** Home (/console/): what waits for the signed-in person, each count a link to its list. */
import { html } from './html.ts'
import { notice, page, type Frame } from './layout.ts'
import { spendThisMonthCard } from './reports.ts'

export interface HomeView {
  sections: { title: string; none: string; items: { count: number; label: string; one?: string; href: string }[] }[]
  /** This month's spend against the budgets (for those who may read reports). */
  spend?: Parameters<typeof spendThisMonthCard>[0] | undefined
  welcome?: boolean
}

const grouped = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',')

export function homeView(view: HomeView, { actor, csrf }: Frame): string {
  const shown = view.sections
  const body = html`${view.welcome === true ? notice('status', 'Your password is set and you are signed in.') : ''}
  ${
    shown.length === 0 && view.spend === undefined
      ? html`<p>
          Nothing is assigned to you yet. Your administrator gives you a role; My account shows what you hold.
        </p>`
      : html`<div class="home-grid">
          ${shown.map((s, i) => {
            const items = s.items.filter((item) => item.count > 0)
            return html`<section class="card home-card" aria-labelledby="home-${i}">
              <h2 id="home-${i}">${s.title}</h2>
              ${
                items.length === 0
                  ? html`<p class="muted">${s.none}</p>`
                  : html`<ul class="counts">
                      ${items.map(
                        (item) =>
                          html`<li>
                            <a href="${item.href}"
                              ><span class="big">${grouped(item.count)}</span>
                              ${item.count === 1 && item.one !== undefined ? item.one : item.label}</a
                            >
                          </li>`,
                      )}
                    </ul>`
              }
            </section>`
          })}
          ${view.spend === undefined ? '' : spendThisMonthCard(view.spend)}
        </div>`
  }`
  return page({ title: 'Home', actor, csrf, current: 'home' }, body)
}
