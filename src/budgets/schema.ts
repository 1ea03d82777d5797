/** Budgets: the read shape (with its computed figures), the write body, lists, the check, and their events. */
import { Type, type Static } from 'typebox'
import { Id, named } from '../core/schema.ts'
import { listQuery } from '../core/list-query.ts'

const Amount2 = (description: string, example: string) =>
  Type.String({ pattern: '^\\d{1,16}(\\.\\d{1,2})?$', maxLength: 19, description, examples: [example] })
const Signed = (description: string, example: string) => Type.String({ description, examples: [example] })
const BudgetAction = Type.Union([Type.Literal('warn'), Type.Literal('block'), Type.Literal('approve')], {
  description:
    'What a document that would take `available` below zero does: proceed with a warning, be refused, or wait for the owner’s approval.',
  examples: ['warn'],
})
const NullableId = (description: string) => Type.Union([Id, Type.Null()], { description })

export const Budget = named(
  'Budget',
  Type.Object({
    id: Type.Integer({ examples: [5] }),
    name: Type.String({ examples: ['Marketing 2026'] }),
    location: Type.Union([Type.Integer(), Type.Null()], { description: 'null: every location.' }),
    department: Type.Union([Type.Integer(), Type.Null()], { description: 'null: every department.' }),
    account: Type.Union([Type.Integer(), Type.Null()], { description: 'null: every account.' }),
    period_start: Type.String({ format: 'date', examples: ['2026-01-01'] }),
    period_end: Type.String({ format: 'date', examples: ['2026-12-31'] }),
    amount: Signed('In the base currency.', '10000.00'),
    action: BudgetAction,
    owner: Type.Union([Type.Integer(), Type.Null()], { description: 'A user id; required for approve.' }),
    active: Type.Boolean(),
    pending: Signed('Σ pending entries it matches.', '1200.00'),
    committed: Signed('Σ committed entries it matches.', '3000.00'),
    spent: Signed('Σ spent entries it matches.', '2500.00'),
    available: Signed('amount − pending − committed − spent (negative when over).', '3300.00'),
    used_percent: Type.Union([Type.String(), Type.Null()], {
      description: '(pending + committed + spent) ÷ amount × 100, one decimal, half-up; null when amount is 0.',
      examples: ['67.0'],
    }),
  }),
)
export type Budget = Static<typeof Budget>

const Computed = Type.Optional(Type.Unknown({ description: 'Computed; ignored when sent.' }))

export const BudgetInput = named(
  'BudgetInput',
  Type.Object(
    {
      name: Type.String({ minLength: 1, maxLength: 200, examples: ['Marketing 2026'] }),
      location: Type.Optional(NullableId('A location id; null or absent: every location.')),
      department: Type.Optional(NullableId('A department id; null or absent: every department.')),
      account: Type.Optional(NullableId('An account id; null or absent: every account.')),
      period_start: Type.String({ format: 'date', examples: ['2026-01-01'] }),
      period_end: Type.String({ format: 'date', examples: ['2026-12-31'] }),
      amount: Amount2('In the base currency, ≥ 0, up to 2 decimals.', '10000.00'),
      action: BudgetAction,
      owner: Type.Optional(NullableId('A user id; required for approve.')),
      active: Type.Optional(Type.Boolean({ description: 'Default true.' })),
      id: Computed,
      pending: Computed,
      committed: Computed,
      spent: Computed,
      available: Computed,
      used_percent: Computed,
    },
    { additionalProperties: false },
  ),
)
export type BudgetInput = Static<typeof BudgetInput>

export const BudgetListQuery = listQuery(['id', 'name', 'period_start'], {
  location: Type.Optional(Id),
  active: Type.Optional(Type.Boolean()),
  action: Type.Optional(BudgetAction),
})
export type BudgetListQuery = Static<typeof BudgetListQuery>

export const LedgerEntry = named(
  'LedgerEntry',
  Type.Object({
    id: Type.Integer(),
    created_at: Type.String({ format: 'date-time' }),
    stage: Type.Union([Type.Literal('pending'), Type.Literal('committed'), Type.Literal('spent')]),
    amount: Signed('Signed, in the base currency.', '-120.00'),
    currency: Type.String({ examples: ['EUR'] }),
    original_amount: Signed('Signed, in `currency`.', '-110.40'),
    rate: Type.String({ examples: ['0.920000'] }),
    document: Type.Object({ type: Type.String(), id: Type.Integer(), number: Type.String() }),
    line: Type.Integer(),
    location: Type.Integer(),
    department: Type.Union([Type.Integer(), Type.Null()]),
    account: Type.Union([Type.Integer(), Type.Null()]),
    budget_date: Type.String({ format: 'date' }),
    reason: Type.String({ examples: ['submitted'] }),
  }),
)
export type LedgerEntry = Static<typeof LedgerEntry>

export const EntryListQuery = listQuery(['id'], {
  stage: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('committed'), Type.Literal('spent')])),
})
export type EntryListQuery = Static<typeof EntryListQuery>

export const BudgetWarning = named(
  'BudgetWarning',
  Type.Object({
    budget: Type.Object({ id: Type.Integer(), name: Type.String() }),
    available: Type.String({ examples: ['150.00'] }),
    requested: Type.String({ examples: ['400.00'] }),
    over_by: Type.String({ examples: ['250.00'] }),
  }),
)
export type BudgetWarning = Static<typeof BudgetWarning>

export const CheckInput = named(
  'BudgetCheckInput',
  Type.Object(
    {
      document: Type.Union([
        Type.Literal('request'),
        Type.Literal('purchase_order'),
        Type.Literal('bill'),
        Type.Literal('expense_report'),
        Type.Literal('travel_request'),
      ]),
      location: Id,
      department: Type.Optional(Type.Union([Id, Type.Null()])),
      currency: Type.Optional(Type.String({ minLength: 1, maxLength: 10, description: 'Default: the location’s.' })),
      date: Type.Optional(Type.String({ format: 'date', description: 'Default: today (UTC).' })),
      lines: Type.Array(
        Type.Object(
          {
            account: Type.Optional(Type.Union([Id, Type.Null()])),
            quantity: Type.String({ pattern: '^\\d{1,16}(\\.\\d{1,4})?$', maxLength: 21 }),
            unit_price: Type.String({ pattern: '^\\d{1,16}(\\.\\d{1,4})?$', maxLength: 21 }),
          },
          { additionalProperties: true },
        ),
        { minItems: 0, maxItems: 500 },
      ),
    },
    { additionalProperties: false },
  ),
)
export type CheckInput = Static<typeof CheckInput>

export const CheckResult = named(
  'BudgetCheck',
  Type.Object({
    budgets: Type.Array(
      Type.Object({
        budget: Type.Object({ id: Type.Integer(), name: Type.String(), action: BudgetAction }),
        available: Type.String(),
        this_document: Type.String(),
        over_by: Type.String(),
      }),
    ),
  }),
)
export type CheckResult = Static<typeof CheckResult>

export const IdParams = Type.Object({ id: Id })

declare module '../events/schema.ts' {
  interface EventObjects {
    'budget.created': Budget
    'budget.updated': Budget
    'budget.deleted': Budget
    'budget.exceeded': Budget
  }
}
