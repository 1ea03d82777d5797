/** Travel request shapes on the wire (DECISIONS, "Expense reports and travel requests"). */
import { Type, type Static } from 'typebox'
import { listQuery, UpdatedSince } from '../core/list-query.ts'
import { Id, named } from '../core/schema.ts'
import { Approval, Money, Person } from '../approvals/schema.ts'
import { AccountRef, BUDGET_WARNING_EXAMPLE, BudgetWarning } from '../expense-reports/schema.ts'

export const MAX_ESTIMATES = 200
export const TRAVEL_STATUSES = ['draft', 'pending_approval', 'approved', 'rejected', 'cancelled'] as const
export const TravelStatus = Type.Union(
  TRAVEL_STATUSES.map((s) => Type.Literal(s)) as [ReturnType<typeof Type.Literal<(typeof TRAVEL_STATUSES)[number]>>],
  {
    description:
      'draft → submit → pending_approval → approved | rejected (editable and submitted again); cancel from draft ' +
      'or pending_approval.',
    examples: ['approved'],
  },
)
export const TRAVEL_CATEGORIES = ['airfare', 'lodging', 'ground', 'meals', 'other'] as const
export const TravelCategory = Type.Union(
  TRAVEL_CATEGORIES.map((c) => Type.Literal(c)) as [
    ReturnType<typeof Type.Literal<(typeof TRAVEL_CATEGORIES)[number]>>,
  ],
  {
    description: 'What it is for: airfare, lodging, ground (transport on the ground), meals or other.',
    examples: ['lodging'],
  },
)
const Ref = (example: object) => Type.Object({ id: Type.Integer(), name: Type.String() }, { examples: [example] })
const Timestamp = (description: string) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description })

export const TravelEstimate = named(
  'TravelEstimate',
  Type.Object({
    category: TravelCategory,
    amount: Type.String({ description: 'In the request’s currency; without trailing zeros.', examples: ['420'] }),
    account: AccountRef,
  }),
)

export const TravelRequest = named(
  'TravelRequest',
  Type.Object({
    id: Type.Integer({ examples: [3] }),
    number: Type.String({ description: '"TR-" and at least 6 digits.', examples: ['TR-000003'] }),
    status: TravelStatus,
    traveller: Person,
    location: Ref({ id: 1, name: 'Head Office' }),
    department: Type.Union([Ref({ id: 3, name: 'Sales' }), Type.Null()], { examples: [{ id: 3, name: 'Sales' }] }),
    purpose: Type.String({ description: 'Why the trip is made.', examples: ['Customer workshop'] }),
    destination: Type.String({ description: 'Where the traveller goes.', examples: ['Berlin'] }),
    departure_date: Type.String({
      format: 'date',
      description: 'The first day of the trip (YYYY-MM-DD); the estimates’ budget date.',
      examples: ['2026-12-07'],
    }),
    return_date: Type.String({
      format: 'date',
      description: 'The last day of the trip (YYYY-MM-DD), on or after departure_date.',
      examples: ['2026-12-09'],
    }),
    currency: Type.String({ examples: ['EUR'] }),
    estimates: Type.Array(TravelEstimate, {
      description: 'What the trip is expected to cost, by category, in the request’s currency.',
    }),
    total: Type.String({ description: 'Σ estimates, rounded half-up to 2 decimals.', examples: ['1240.00'] }),
    expensed_total: Type.String({
      description:
        'Σ of the totals of approved (and reimbursed) expense reports naming it, each converted into its currency ' +
        'at the rates locked when the report was submitted.',
      examples: ['310.55'],
    }),
    budget_warnings: Type.Array(BudgetWarning, {
      description: 'What the budget check at submit warned of; [] when none.',
      examples: [[BUDGET_WARNING_EXAMPLE]],
    }),
    approvals: Type.Array(Approval),
    submitted_at: Timestamp('When it was last submitted.'),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  }),
)
export type TravelRequest = Static<typeof TravelRequest>

const IdOrRef = Type.Union([Id, Type.Object({ id: Id }, { additionalProperties: true })])

export const TravelEstimateInput = Type.Object(
  {
    category: TravelCategory,
    amount: Money('Decimal string, up to 4 decimals.', '420.00'),
    account: Type.Optional(
      Type.Union([IdOrRef, Type.Null()], { description: 'A general-ledger account id, or null.' }),
    ),
  },
  { additionalProperties: false },
)

/** Read-only fields no other schema describes by their name (http/field-docs.ts describes the rest). */
const READ_ONLY_DOCS: Record<string, [description: string, example: unknown]> = {
  traveller: [
    'Read-only: who travels, as GET returns it; ignored (the traveller is who creates it).',
    { id: 7, first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' },
  ],
  expensed_total: ['Read-only: computed from the expense reports that name it; ignored.', '310.55'],
  budget_warnings: ['Read-only: what the budget check at submit warned of; ignored.', []],
}
const readOnly = Object.fromEntries(
  [
    'id',
    'number',
    'status',
    'traveller',
    'total',
    'expensed_total',
    'budget_warnings',
    'approvals',
    'submitted_at',
    'created_at',
    'updated_at',
  ].map((k) => {
    const doc = READ_ONLY_DOCS[k]
    return [k, Type.Optional(Type.Unknown(doc && { description: doc[0], examples: [doc[1]] }))]
  }),
)

export const TravelRequestInput = named(
  'TravelRequestInput',
  Type.Object(
    {
      location: IdOrRef,
      department: Type.Optional(Type.Union([IdOrRef, Type.Null()], { description: 'A department of the location.' })),
      purpose: Type.String({ maxLength: 2000, description: 'Why the trip is made.', examples: ['Customer workshop'] }),
      destination: Type.String({ maxLength: 500, description: 'Where the traveller goes.', examples: ['Berlin'] }),
      departure_date: Type.String({
        format: 'date',
        description: 'The first day of the trip (YYYY-MM-DD); the estimates’ budget date.',
        examples: ['2026-12-07'],
      }),
      return_date: Type.String({
        format: 'date',
        description: 'On or after departure_date.',
        examples: ['2026-12-09'],
      }),
      currency: Type.Optional(
        Type.String({ minLength: 1, maxLength: 10, description: 'A currency name; default the location’s.' }),
      ),
      estimates: Type.Array(TravelEstimateInput, {
        minItems: 1,
        maxItems: MAX_ESTIMATES,
        description: 'What the trip is expected to cost, by category, in the request’s currency (1 to 200).',
        examples: [[{ category: 'airfare', amount: '420.00' }]],
      }),
      ...readOnly,
    },
    {
      additionalProperties: false,
      description: 'Read-only fields (as GET returns them) are accepted and ignored.',
      examples: [
        {
          location: 1,
          purpose: 'Customer workshop',
          destination: 'Berlin',
          departure_date: '2026-12-07',
          return_date: '2026-12-09',
          currency: 'EUR',
          estimates: [{ category: 'airfare', amount: '420.00' }],
        },
      ],
    },
  ),
)
export type TravelRequestInput = Static<typeof TravelRequestInput>

const IntFilter = (description: string, example: number) =>
  Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647, description, examples: [example] }))
export const TravelListQuery = listQuery(['id', 'created_at', 'updated_at', 'departure_date', 'total'], {
  status: Type.Optional(TravelStatus),
  location: IntFilter('Only requests of this location.', 3),
  traveller: IntFilter(
    'Only requests of this traveller (the id of /api/v3/users/{id}/, as `traveller.id` shows it).',
    7,
  ),
  updated_since: UpdatedSince,
})
export type TravelListQuery = Static<typeof TravelListQuery>
export const TravelParams = Type.Object({ id: Id })

declare module '../events/schema.ts' {
  interface EventObjects {
    'travel_request.created': TravelRequest
    'travel_request.submitted': TravelRequest
    'travel_request.approved': TravelRequest
    'travel_request.rejected': TravelRequest
    'travel_request.cancelled': TravelRequest
  }
}
