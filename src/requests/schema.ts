/** Purchase request shapes on the wire (DECISIONS, "Purchase requests and approvals"). */
import { Type, type Static } from 'typebox'
import { listQuery, UpdatedSince } from '../core/list-query.ts'
import { Id, named } from '../core/schema.ts'
import { Approval, Money, Person } from '../approvals/schema.ts'
import { AccountRef } from '../accounts/schema.ts'
import { BudgetWarning } from '../budgets/schema.ts'

export const MAX_LINES = 200
export const REQUEST_STATUSES = ['draft', 'pending', 'approved', 'rejected', 'cancelled'] as const
export const RequestStatus = Type.Union(
  [
    Type.Literal('draft'),
    Type.Literal('pending'),
    Type.Literal('approved'),
    Type.Literal('rejected'),
    Type.Literal('cancelled'),
  ],
  {
    description: 'draft → (submit) → pending → approved | rejected; draft or pending → (cancel) → cancelled.',
    examples: ['pending'],
  },
)
const Ref = Type.Object({ id: Type.Integer(), name: Type.String() })

export const RequestLine = named(
  'RequestLine',
  Type.Object({
    id: Type.Integer(),
    description: Type.String({ examples: ['Ergonomic chair'] }),
    vendor: Type.Union([Type.Integer(), Type.Null()], { description: 'A vendor id, or null.', examples: [4] }),
    quantity: Type.String({ description: 'Decimal string, without trailing zeros.', examples: ['3'] }),
    unit_price: Type.String({ description: 'Decimal string, without trailing zeros.', examples: ['19.99'] }),
    account: AccountRef,
  }),
)

export const PurchaseRequest = named(
  'PurchaseRequest',
  Type.Object({
    id: Type.Integer({ examples: [31] }),
    uuid: Type.String({ format: 'uuid' }),
    status: RequestStatus,
    requester: Person,
    location: Type.Object(Ref.properties, { examples: [{ id: 1, name: 'Head Office' }] }),
    department: Type.Union([Ref, Type.Null()], { examples: [{ id: 3, name: 'Operations' }] }),
    currency: Type.String({ description: 'The currency’s name.', examples: ['USD'] }),
    description: Type.String({ examples: ['Chairs for the new hires'] }),
    needed_by: Type.Union([Type.String({ format: 'date' }), Type.Null()], { examples: ['2026-12-15'] }),
    lines: Type.Array(RequestLine),
    total: Type.String({
      description: 'Σ quantity × unit_price, rounded half-up to 2 decimals; computed, never accepted.',
      examples: ['59.97'],
    }),
    approvals: Type.Array(Approval, { description: 'The approval chain so far, by step.' }),
    budget_warnings: Type.Array(BudgetWarning, {
      description: 'The `warn` budgets its submit took below zero (as of that moment); [] when none.',
    }),
    submitted_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  }),
)
export type PurchaseRequest = Static<typeof PurchaseRequest>

const IdOrRef = Type.Union([Id, Type.Object({ id: Id }, { additionalProperties: true })])

export const LineInput = named(
  'RequestLineInput',
  Type.Object(
    {
      description: Type.Optional(Type.String({ maxLength: 1000, examples: ['Ergonomic chair'] })),
      vendor: Type.Optional(
        Type.Union([Id, Type.Null()], { description: 'A vendor id (GET /api/v3/vendors/), or null.', examples: [4] }),
      ),
      quantity: Money('Decimal string greater than 0, up to 4 decimals, no exponent.', '3'),
      unit_price: Money('Decimal string, up to 4 decimals, no exponent.', '19.99'),
      id: Type.Optional(Type.Integer({ description: 'Read-only; ignored (lines are replaced as a whole).' })),
      account: Type.Optional(
        Type.Union([Id, Type.Object({ id: Id }, { additionalProperties: true }), Type.Null()], {
          description: 'An account id (GET /api/v3/accounts/), or null.',
          examples: [3],
        }),
      ),
    },
    { additionalProperties: false },
  ),
)
export type LineInput = Static<typeof LineInput>

const requestFields = {
  location: IdOrRef,
  department: Type.Optional(Type.Union([IdOrRef, Type.Null()], { description: 'A department of the location.' })),
  currency: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 10,
      description: 'A currency name; default: the location’s.',
      examples: ['USD'],
    }),
  ),
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  needed_by: Type.Optional(Type.Union([Type.String({ format: 'date' }), Type.Null()])),
  lines: Type.Array(LineInput, { minItems: 1, maxItems: MAX_LINES }),
}
// Read-only fields of the response, accepted so a GET body can be sent back; ignored.
const readOnly = Object.fromEntries(
  [
    'id',
    'uuid',
    'status',
    'requester',
    'total',
    'approvals',
    'budget_warnings',
    'submitted_at',
    'created_at',
    'updated_at',
  ].map((k) => [
    k,
    Type.Optional(
      k === 'budget_warnings'
        ? Type.Unknown({
            description: 'Read-only: what the budget check at submit warned of; ignored.',
            examples: [[]],
          })
        : Type.Unknown(),
    ),
  ]),
)

export const RequestInput = named(
  'RequestInput',
  Type.Object({ ...requestFields, ...readOnly }, { additionalProperties: false }),
)
export type RequestInput = Static<typeof RequestInput>
export const RequestPatch = named(
  'RequestPatch',
  Type.Partial(Type.Object({ ...requestFields, ...readOnly }), { additionalProperties: false }),
)
export type RequestPatch = Static<typeof RequestPatch>

export const RequestListQuery = listQuery(['id', 'created_at', 'total'], {
  status: Type.Optional(RequestStatus),
  location: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
  requester: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 2147483647, description: 'The requester’s user id.', examples: [7] }),
  ),
  updated_since: UpdatedSince,
})
export type RequestListQuery = Static<typeof RequestListQuery>
export const RequestParams = Type.Object({ id: Id })

declare module '../events/schema.ts' {
  interface EventObjects {
    'request.created': PurchaseRequest
    'request.submitted': PurchaseRequest
    'request.approved': PurchaseRequest
    'request.rejected': PurchaseRequest
    'request.cancelled': PurchaseRequest
  }
}
