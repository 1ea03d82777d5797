/** Expense report shapes on the wire (DECISIONS, "Expense reports and travel requests"). */
import { Type, type Static } from 'typebox'
import { listQuery, UpdatedSince } from '../core/list-query.ts'
import { Id, named } from '../core/schema.ts'
import { Approval, Money, Person } from '../approvals/schema.ts'

export const MAX_EXPENSE_LINES = 200
export const EXPENSE_STATUSES = [
  'draft',
  'pending_approval',
  'approved',
  'rejected',
  'reimbursed',
  'cancelled',
] as const
export const ExpenseStatus = Type.Union(
  EXPENSE_STATUSES.map((s) => Type.Literal(s)) as [ReturnType<typeof Type.Literal<(typeof EXPENSE_STATUSES)[number]>>],
  {
    description:
      'draft → submit → pending_approval → approved | rejected (editable and submitted again); approved → ' +
      'reimburse → reimbursed; cancel from draft or pending_approval.',
    examples: ['pending_approval'],
  },
)
const Ref = (example: object) => Type.Object({ id: Type.Integer(), name: Type.String() }, { examples: [example] })
const Dec = (description: string, example: string) => Type.String({ description, examples: [example] })
const Timestamp = (description: string, example: string | null) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description, examples: [example] })

/** The general-ledger account of a line or estimate, or null. */
export const AccountRef = Type.Union(
  [Type.Object({ id: Type.Integer(), code: Type.String(), name: Type.String() }), Type.Null()],
  { description: 'The general-ledger account, or null.', examples: [{ id: 4, code: '6100', name: 'Travel' }] },
)

/** What a budget check found over (DECISIONS, "Accounts, budgets and the commitment ledger"). */
export const BudgetWarning = Type.Object({
  budget: Type.Object({ id: Type.Integer(), name: Type.String() }),
  available: Type.String(),
  requested: Type.String(),
  over_by: Type.String(),
})
/** One warning, as documents show it: the `warn` budget, and its amounts in the base currency. */
export const BUDGET_WARNING_EXAMPLE = {
  budget: { id: 5, name: 'Travel 2026' },
  available: '150.00',
  requested: '400.00',
  over_by: '250.00',
}

export const ExpenseLine = named(
  'ExpenseReportLine',
  Type.Object({
    id: Type.Integer({ examples: [12] }),
    date: Type.String({
      format: 'date',
      description: 'The date on the receipt (YYYY-MM-DD); the line’s budget date.',
      examples: ['2026-11-20'],
    }),
    merchant: Type.String({
      description: 'Where the money was spent, as the receipt names it.',
      examples: ['Café Central'],
    }),
    description: Type.String({ examples: ['Lunch with a supplier'] }),
    account: AccountRef,
    amount: Dec('What the receipt says, in its currency; decimal string without trailing zeros.', '42.5'),
    currency: Type.String({ description: 'The receipt’s currency.', examples: ['EUR'] }),
    converted_amount: Dec(
      'amount ÷ its currency’s rate × the report currency’s rate, rounded half-up to 2 decimals (rates locked at submit).',
      '46.20',
    ),
    receipt: Type.Union([Type.Integer(), Type.Null()], {
      description: 'An attachment of this report (GET /api/v3/attachments/{id}/), or null.',
      examples: [88],
    }),
  }),
)

export const ExpenseReport = named(
  'ExpenseReport',
  Type.Object({
    id: Type.Integer({ examples: [5] }),
    number: Type.String({ description: '"EXP-" and at least 6 digits.', examples: ['EXP-000005'] }),
    status: ExpenseStatus,
    employee: Person,
    location: Ref({ id: 1, name: 'Head Office' }),
    department: Type.Union([Ref({ id: 3, name: 'Sales' }), Type.Null()], { examples: [{ id: 3, name: 'Sales' }] }),
    currency: Type.String({ description: 'What is reimbursed (default the location’s).', examples: ['USD'] }),
    travel_request: Type.Union([Type.Integer(), Type.Null()], {
      description: 'An approved travel request of the same employee, or null.',
      examples: [3],
    }),
    title: Type.String({ examples: ['Customer visit, Berlin'] }),
    lines: Type.Array(ExpenseLine),
    total: Dec('Σ converted amounts.', '146.20'),
    budget_warnings: Type.Array(BudgetWarning, {
      description: 'What the budget check at submit warned of; [] when none.',
      examples: [[BUDGET_WARNING_EXAMPLE]],
    }),
    approvals: Type.Array(Approval),
    reimbursed_at: Timestamp('When it was reimbursed; null until then.', '2026-11-25T10:00:00.000Z'),
    payment_reference: Type.Union([Type.String(), Type.Null()], {
      description: 'The reference of the payment that reimbursed it, as given to reimburse; null when none was given.',
      examples: ['SEPA-2026-1181'],
    }),
    submitted_at: Timestamp('When it was last submitted.', null),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  }),
)
export type ExpenseReport = Static<typeof ExpenseReport>

const IdOrRef = Type.Union([Id, Type.Object({ id: Id }, { additionalProperties: true })])
const NullableRef = (description: string, example: number) =>
  Type.Optional(Type.Union([IdOrRef, Type.Null()], { description, examples: [example] }))

export const ExpenseLineInput = named(
  'ExpenseReportLineInput',
  Type.Object(
    {
      id: Type.Optional(
        Type.Integer({ description: 'A line of this report to keep (its id stays); else a new line.' }),
      ),
      date: Type.String({
        format: 'date',
        description: 'The date on the receipt (YYYY-MM-DD); the line’s budget date.',
        examples: ['2026-11-20'],
      }),
      merchant: Type.Optional(
        Type.String({
          maxLength: 200,
          description: 'Where the money was spent, as the receipt names it.',
          examples: ['Café Central'],
        }),
      ),
      description: Type.Optional(Type.String({ maxLength: 1000 })),
      account: NullableRef('A general-ledger account id (GET /api/v3/accounts/), or null.', 4),
      amount: Money('What the receipt says: a decimal string greater than 0, up to 4 decimals.', '42.50'),
      currency: Type.Optional(
        Type.String({ minLength: 1, maxLength: 10, description: 'The receipt’s currency; default the report’s.' }),
      ),
      receipt: Type.Optional(
        Type.Union([Id, Type.Null()], {
          description: 'An attachment of this report (upload it first), or null.',
          examples: [88],
        }),
      ),
      converted_amount: Type.Optional(Type.Unknown({ description: 'Read-only; ignored.', examples: ['46.20'] })),
    },
    { additionalProperties: false },
  ),
)
export type ExpenseLineInput = Static<typeof ExpenseLineInput>

/** Read-only fields no other schema describes by their name (http/field-docs.ts describes the rest). */
const READ_ONLY_DOCS: Record<string, [description: string, example: unknown]> = {
  employee: [
    'Read-only: who made it, as GET returns it; ignored (the employee is who creates it).',
    { id: 7, first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' },
  ],
  budget_warnings: ['Read-only: what the budget check at submit warned of; ignored.', []],
  reimbursed_at: ['Read-only: set by reimburse; ignored.', null],
  payment_reference: ['Read-only: set by reimburse; ignored.', null],
}
const readOnly = Object.fromEntries(
  [
    'id',
    'number',
    'status',
    'employee',
    'total',
    'budget_warnings',
    'approvals',
    'reimbursed_at',
    'payment_reference',
    'submitted_at',
    'created_at',
    'updated_at',
  ].map((k) => {
    const doc = READ_ONLY_DOCS[k]
    return [k, Type.Optional(Type.Unknown(doc && { description: doc[0], examples: [doc[1]] }))]
  }),
)

export const ExpenseReportInput = named(
  'ExpenseReportInput',
  Type.Object(
    {
      location: IdOrRef,
      department: NullableRef('A department of the location, or null.', 3),
      currency: Type.Optional(
        Type.String({ minLength: 1, maxLength: 10, description: 'What is reimbursed; default the location’s.' }),
      ),
      travel_request: Type.Optional(
        Type.Union([Id, Type.Null()], { description: 'An approved travel request of yours, or null.', examples: [3] }),
      ),
      title: Type.Optional(Type.String({ maxLength: 500 })),
      lines: Type.Array(ExpenseLineInput, { minItems: 1, maxItems: MAX_EXPENSE_LINES }),
      ...readOnly,
    },
    {
      additionalProperties: false,
      description: 'Read-only fields (as GET returns them) are accepted and ignored.',
      examples: [
        {
          location: 1,
          title: 'Customer visit',
          lines: [{ date: '2026-11-20', merchant: 'Taxi Berlin', amount: '38.00', currency: 'EUR' }],
        },
      ],
    },
  ),
)
export type ExpenseReportInput = Static<typeof ExpenseReportInput>

const ReimburseBody = Type.Object(
  {
    reimbursed_at: Type.Optional(Type.String({ format: 'date-time', description: 'Default: now.' })),
    payment_reference: Type.Optional(Type.String({ maxLength: 200, examples: ['SEPA-2026-1181'] })),
  },
  { additionalProperties: false },
)
export const ReimburseInput = named('ExpenseReimburseInput', Type.Union([ReimburseBody, Type.Null()]))
export type ReimburseInput = Static<typeof ReimburseBody>

const IntFilter = (description: string, example: number) =>
  Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647, description, examples: [example] }))
export const ExpenseListQuery = listQuery(['id', 'created_at', 'updated_at', 'total'], {
  status: Type.Optional(ExpenseStatus),
  location: IntFilter('Only reports of this location.', 3),
  employee: IntFilter('Only reports of this employee (the id of /api/v3/users/{id}/, as `employee.id` shows it).', 7),
  travel_request: IntFilter('Only reports naming this travel request.', 3),
  updated_since: UpdatedSince,
})
export type ExpenseListQuery = Static<typeof ExpenseListQuery>
export const ExpenseParams = Type.Object({ id: Id })

declare module '../events/schema.ts' {
  interface EventObjects {
    'expense_report.created': ExpenseReport
    'expense_report.submitted': ExpenseReport
    'expense_report.approved': ExpenseReport
    'expense_report.rejected': ExpenseReport
    'expense_report.cancelled': ExpenseReport
    'expense_report.reimbursed': ExpenseReport
  }
}
