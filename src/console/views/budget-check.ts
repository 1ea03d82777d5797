/**
 * The request form's budget panel: the budgets the request being typed would count against, each as a sentence
 * (pages/budget-sentences.ts writes them), in a live region the console's script refills as the person types
 * (pages/budget-check.ts answers it as JSON). Without JavaScript the form's "Check budgets" button posts the form
 * to the same route, which shows the form again with this panel filled.
 */
import { html, type Html } from './html.ts'

/** How a budget fares: within it, or over it with what its action does; `fix`: something to fix first. */
export type BudgetTone = 'within' | 'warn' | 'block' | 'approve' | 'fix'

/** What the panel says: a summary sentence and a sentence per budget. */
export interface BudgetCheckState {
  /** `idle`: nothing to check yet; `ok`: every budget within; `over`: some budget over; `error`: what to fix. */
  outcome: 'idle' | 'ok' | 'over' | 'error'
  summary: string
  items: readonly { tone: BudgetTone; text: string }[]
}

export const IDLE_CHECK: BudgetCheckState = {
  outcome: 'idle',
  summary: 'Type a quantity and a unit price on a line to see the budgets this request would count against.',
  items: [],
}

/** The route the form's lines are checked at: with the draft's id when it edits one (its form is shown again). */
export function budgetCheckUrl(formAction: string): string {
  const edit = /^\/console\/requests\/(\d{1,10})\/edit$/.exec(formAction)
  return edit === null ? '/console/budgets/check' : `/console/budgets/check?request=${edit[1]}`
}

/** The panel beside the running total; `url` is where the script asks (budgetCheckUrl). */
export function budgetCheckPanel(state: BudgetCheckState, url: string): Html {
  return html`<section class="budget-check" aria-labelledby="budget-check-heading">
    <h2 id="budget-check-heading">Budgets this request would count against</h2>
    <div
      id="budget-check"
      class="budget-check-result"
      aria-live="polite"
      data-budget-check="${url}"
      data-outcome="${state.outcome}"
    >
      <p>${state.summary}</p>
      ${
        state.items.length === 0
          ? ''
          : html`<ul>
              ${state.items.map((item) => html`<li class="budget-${item.tone}">${item.text}</li>`)}
            </ul>`
      }
    </div>
    <p class="hint">
      Checked as you type, nothing is saved. Without JavaScript, press “Check budgets” to check the lines as they are
      now.
    </p>
  </section>`
}
