/**
 * Budgets' views (the list and one budget with its ledger entries), fed hostile strings wherever people's text
 * goes (helpers/hostile-views.ts), write them as text; an over budget is marked in words, and an entry's document
 * links to its page only for a kind the console has. console-views-basics.test.ts checks that every function a
 * view module exports has a case in one of the console-views-*.test.ts files.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Budget, LedgerEntry } from '../src/budgets/schema.ts'
import type { BudgetNames } from '../src/budgets/view.service.ts'
import * as budgets from '../src/console/views/budgets.ts'
import { form, frame, HOSTILE, hostileCases, options, pageOf } from './helpers/hostile-views.ts'

const budget: Budget = {
  id: 5,
  name: HOSTILE,
  location: 1,
  department: 2,
  account: 3,
  period_start: HOSTILE,
  period_end: HOSTILE,
  amount: HOSTILE,
  action: HOSTILE as Budget['action'],
  owner: 4,
  active: false,
  pending: HOSTILE,
  committed: HOSTILE,
  spent: HOSTILE,
  available: `-${HOSTILE}`,
  used_percent: HOSTILE,
}
const names: BudgetNames = {
  currency: HOSTILE,
  locations: new Map([[1, HOSTILE]]),
  departments: new Map([[2, HOSTILE]]),
  accounts: new Map([[3, HOSTILE]]),
  owners: new Map([[4, HOSTILE]]),
}
const entry = (type: string): LedgerEntry => ({
  id: 9,
  created_at: HOSTILE,
  stage: HOSTILE as LedgerEntry['stage'],
  amount: HOSTILE,
  currency: HOSTILE,
  original_amount: HOSTILE,
  rate: HOSTILE,
  document: { type, id: 7, number: HOSTILE },
  line: 1,
  location: 1,
  department: 2,
  account: 3,
  budget_date: HOSTILE,
  reason: HOSTILE,
})
/** Within its amount, of every location, department and account, with no owner and no amount. */
const within: Budget = {
  ...budget,
  location: null,
  department: null,
  account: null,
  owner: null,
  active: true,
  available: '10.00',
  used_percent: null,
}

hostileCases({
  'budgets.budgetsView': () => budgets.budgetsView(pageOf([budget, within]), HOSTILE, names, frame, HOSTILE),
  'budgets.budgetsView (empty)': () => budgets.budgetsView({ ...pageOf([]), count: 0 }, undefined, names, frame),
  'budgets.budgetView': () =>
    budgets.budgetView(budget, pageOf([entry('request'), entry(HOSTILE)]), names, frame, HOSTILE),
  'budgets.budgetView (no entries)': () => budgets.budgetView(within, { ...pageOf([]), count: 0 }, names, frame),
  'budgets.budgetView (writer)': () => budgets.budgetView(budget, pageOf([]), names, frame, undefined, true),
  'budgets.budgetsView (creator)': () => budgets.budgetsView(pageOf([]), undefined, names, frame, undefined, true),
  'budgets.budgetFormView': () =>
    budgets.budgetFormView(
      {
        values: { ...form.values, location: HOSTILE, department: HOSTILE, owner: HOSTILE },
        errors: { ...form.errors, amount: [HOSTILE], owner: [HOSTILE], department: [HOSTILE] },
      },
      {
        location: options,
        everyLocation: true,
        department: [{ location: HOSTILE, locationId: HOSTILE, options }],
        account: options,
        owner: options,
      },
      { action: `/console/${HOSTILE}`, title: HOSTILE, cancel: `/console/${HOSTILE}` },
      frame,
      HOSTILE,
    ),
})

test('over budget is said in words; an entry links to its document’s page, an unknown kind is text', () => {
  const over = { ...budget, name: 'Travel', available: '-20.00', used_percent: '120.0' }
  const list = budgets.budgetsView(pageOf([over]), undefined, { ...names, currency: 'USD' }, frame)
  assert.match(list, /Over budget by 20\.00 USD/)
  assert.match(list, /<meter [^>]*value="100"/)
  const one = budgets.budgetView(
    over,
    pageOf([entry('purchase_order'), entry('mystery')]),
    { ...names, currency: 'USD' },
    frame,
  )
  assert.match(one, /<a href="\/console\/orders\/7">Order /)
  assert.doesNotMatch(one, /href="\/console\/[^"]*mystery/)
  assert.match(one, /mystery /)
})
