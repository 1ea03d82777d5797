/**
 * The request form's budget panel (views/budget-check.ts), fed hostile strings wherever text goes — the summary,
 * each budget's sentence (a budget's name is anyone's text), its tone and the route it asks — writes them as text;
 * the sentences the check page makes of a hostile budget name (pages/budget-sentences.ts) come out as text too.
 */
import { checkedState, fixState } from '../src/console/pages/budget-sentences.ts'
import * as budgetCheck from '../src/console/views/budget-check.ts'
import { HOSTILE, hostileCases } from './helpers/hostile-views.ts'

const hostileState = {
  outcome: HOSTILE,
  summary: HOSTILE,
  items: [{ tone: HOSTILE, text: HOSTILE }],
} as unknown as budgetCheck.BudgetCheckState

const hostileBudgets = checkedState(
  {
    budgets: (['warn', 'block', 'approve'] as const).map((action, id) => ({
      budget: { id, name: HOSTILE, action },
      available: '-10.00',
      this_document: '25.50',
      over_by: '35.50',
    })),
  },
  HOSTILE,
  { currency: HOSTILE, rate: HOSTILE },
)

hostileCases({
  'budget-check.budgetCheckPanel': () => budgetCheck.budgetCheckPanel(hostileState, HOSTILE),
  'budget-check.budgetCheckPanel (sentences)': () => budgetCheck.budgetCheckPanel(hostileBudgets, HOSTILE),
  'budget-check.budgetCheckPanel (fix)': () => budgetCheck.budgetCheckPanel(fixState([HOSTILE]), HOSTILE),
  'budget-check.budgetCheckUrl': () => budgetCheck.budgetCheckUrl(HOSTILE),
})
