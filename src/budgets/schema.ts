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
const NullableId = (description: string, example: number) =>
  Type.Union([Id, Type.Null()], { description, examples: [example] })

export const Budget = named(
  'Budget',
  Type.Object({
    id: Type.Integer({ examples: [5] }),
    name: Type.String({ examples: ['Marketing 2026'] }),
    location: Type.Union([Type.Integer(), Type.Null()], { description: 'null: every location.' }),
    department: Type.Union([Type.Integer(), Type.Null()], { description: 'null: every department.' }),
    account: Type.Union([Type.Integer(), Type.Null()], { description: 'null: every account.', examples: [3] }),
    period_start: Type.String({
      format: 'date',
      description: 'The first day of its period (YYYY-MM-DD), inclusive.',
      examples: ['2026-01-01'],
    }),
    period_end: Type.String({
      format: 'date',
      description: 'The last day of its period (YYYY-MM-DD), inclusive.',
      examples: ['2026-12-31'],
    }),
    amount: Signed('In the base currency.', '10000.00'),
    action: BudgetAction,
    owner: Type.Union([Type.Integer(), Type.Null()], {
      description: 'A user id; required for approve.',
      examples: [7],
    }),
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

const Computed = (example: unknown) =>
  Type.Optional(Type.Unknown({ description: 'Computed; ignored when sent.', examples: [example] }))

export const BudgetInput = named(
  'BudgetInput',
  Type.Object(
    {
      name: Type.String({ minLength: 1, maxLength: 200, examples: ['Marketing 2026'] }),
      location: Type.Optional(NullableId('A location id; null or absent: every location.', 3)),
      department: Type.Optional(NullableId('A department id; null or absent: every department.', 9)),
      account: Type.Optional(NullableId('An account id; null or absent: every account.', 3)),
      period_start: Type.String({
        format: 'date',
        description: 'The first day of its period (YYYY-MM-DD), inclusive.',
        examples: ['2026-01-01'],
      }),
      period_end: Type.String({
        format: 'date',
        description:
          'The last day of its period (YYYY-MM-DD), inclusive: on or after period_start, at most 366 days counting both ends.',
        examples: ['2026-12-31'],
      }),
      amount: Amount2('In the base currency, ≥ 0, up to 2 decimals.', '10000.00'),
      action: BudgetAction,
      owner: Type.Optional(NullableId('A user id; required for approve.', 7)),
      active: Type.Optional(Type.Boolean({ description: 'Default true.' })),
      id: Computed(5),
      pending: Computed('1200.00'),
      committed: Computed('3000.00'),
      spent: Computed('2500.00'),
      available: Computed('3300.00'),
      used_percent: Computed('67.0'),
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
    stage: Type.Union([Type.Literal('pending'), Type.Literal('committed'), Type.Literal('spent')], {
      description:
        'What it counts as: pending (awaiting approval), committed (approved or ordered, not billed yet) or spent (billed, or an approved expense report or payment request).',
      examples: ['committed'],
    }),
    amount: Signed('Signed, in the base currency.', '-120.00'),
    currency: Type.String({ examples: ['EUR'] }),
    original_amount: Signed('Signed, in `currency`.', '-110.40'),
    rate: Type.String({ examples: ['0.920000'] }),
    document: Type.Object(
      { type: Type.String(), id: Type.Integer(), number: Type.String() },
      {
        description: 'The document whose line wrote it: its type (request, purchase_order, bill, …), id and number.',
        examples: [{ type: 'purchase_order', id: 42, number: 'PO-000042' }],
      },
    ),
    line: Type.Integer({ description: 'The id of the document’s line it counts.', examples: [101] }),
    location: Type.Integer(),
    department: Type.Union([Type.Integer(), Type.Null()]),
    account: Type.Union([Type.Integer(), Type.Null()], {
      description: 'The line’s general-ledger account id; null when the line has none.',
      examples: [3],
    }),
    budget_date: Type.String({
      format: 'date',
      description:
        'The date that places it in a budget’s period (YYYY-MM-DD): a request’s submit date, an order’s request’s (else its issue date), a bill’s order’s (else its invoice date), an expense line’s date, a travel request’s departure date.',
      examples: ['2026-11-20'],
    }),
    reason: Type.String({
      description:
        'The action that wrote it: submitted, approved, rejected, cancelled, ordered, issued, billed, closed or paid.',
      examples: ['submitted'],
    }),
  }),
)
export type LedgerEntry = Static<typeof LedgerEntry>

export const EntryListQuery = listQuery(['id'], {
  stage: Type.Optional(
    Type.Union([Type.Literal('pending'), Type.Literal('committed'), Type.Literal('spent')], {
      description: 'Only entries of this stage.',
      examples: ['committed'],
    }),
  ),
})
export type EntryListQuery = Static<typeof EntryListQuery>

export const BudgetWarning = named(
  'BudgetWarning',
  Type.Object({
    budget: Type.Object(
      { id: Type.Integer(), name: Type.String() },
      {
        description: 'The `warn` budget the document took below zero (or further below).',
        examples: [{ id: 5, name: 'Marketing 2026' }],
      },
    ),
    available: Type.String({
      description: 'What the budget had available before the document (decimal string, base currency).',
      examples: ['150.00'],
    }),
    requested: Type.String({
      description: 'What the document’s new contribution adds to it (decimal string, base currency).',
      examples: ['400.00'],
    }),
    over_by: Type.String({
      description:
        'requested − available: how far below zero the budget is with the document (decimal string, base currency).',
      examples: ['250.00'],
    }),
  }),
)
export type BudgetWarning = Static<typeof BudgetWarning>

export const CheckInput = named(
  'BudgetCheckInput',
  Type.Object(
    {
      document: Type.Union(
        [
          Type.Literal('request'),
          Type.Literal('purchase_order'),
          Type.Literal('bill'),
          Type.Literal('expense_report'),
          Type.Literal('travel_request'),
        ],
        { description: 'The kind of document the lines belong to.', examples: ['request'] },
      ),
      location: Id,
      department: Type.Optional(Type.Union([Id, Type.Null()])),
      currency: Type.Optional(Type.String({ minLength: 1, maxLength: 10, description: 'Default: the location’s.' })),
      date: Type.Optional(
        Type.String({
          format: 'date',
          description: 'The budget date the lines would count on (YYYY-MM-DD); default: today (UTC).',
          examples: ['2026-11-20'],
        }),
      ),
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
      {
        description:
          'Every active budget the lines match: what it has available, what this document would add, and how far that goes below zero ("0.00" when within); amounts are decimal strings in the base currency.',
        examples: [
          [
            {
              budget: { id: 5, name: 'Marketing 2026', action: 'warn' },
              available: '150.00',
              this_document: '400.00',
              over_by: '250.00',
            },
          ],
        ],
      },
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
  interface EventData {
    /** DECISIONS: the budget as GET returns it, with `data.document {type, id}`. */
    'budget.exceeded': { document: { type: string; id: number } }
  }
}
