/** Payment request shapes on the wire (DECISIONS, "Payment requests and payment runs"). */
import { Type, type Static } from 'typebox'
import { listQuery, UpdatedSince } from '../core/list-query.ts'
import { Id, named } from '../core/schema.ts'
import { Approval, Money, Person } from '../approvals/schema.ts'

const Ref = (description: string, example: object) =>
  Type.Object({ id: Type.Integer(), name: Type.String() }, { description, examples: [example] })
const NullableRef = (description: string, example: object | null) =>
  Type.Union([Type.Object({ id: Type.Integer(), name: Type.String() }), Type.Null()], {
    description,
    examples: [example],
  })
const NullableDate = (description: string, example: string) =>
  Type.Union([Type.String({ format: 'date' }), Type.Null()], { description, examples: [example] })
const Instant = (description: string, example: string | null) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description, examples: [example] })

export const PAYMENT_REQUEST_STATUSES = [
  'draft',
  'pending_approval',
  'approved',
  'rejected',
  'cancelled',
  'paid',
] as const
export const PaymentRequestStatus = Type.Union(
  [
    Type.Literal('draft'),
    Type.Literal('pending_approval'),
    Type.Literal('approved'),
    Type.Literal('rejected'),
    Type.Literal('cancelled'),
    Type.Literal('paid'),
  ],
  {
    description:
      'draft → submit → pending_approval → approved | rejected; approved → paid when a payment run that pays ' +
      'all of it is confirmed; cancel from draft, pending_approval or approved (not while a run holds it).',
    examples: ['pending_approval'],
  },
)

export const BudgetWarning = Type.Object(
  {},
  { additionalProperties: true, description: 'What the budget check found over a warn budget.' },
)

export const PaymentRequest = named(
  'PaymentRequest',
  Type.Object({
    id: Type.Integer({ examples: [4] }),
    number: Type.String({ description: '"PAY-" and at least 6 digits.', examples: ['PAY-000004'] }),
    status: PaymentRequestStatus,
    requester: Person,
    location: Ref('Where it is paid from.', { id: 1, name: 'Head Office' }),
    department: NullableRef('A department of the location, or null.', { id: 2, name: 'Facilities' }),
    vendor: Ref('Whom it pays.', { id: 3, name: 'Acme Supplies' }),
    currency: Type.String({ examples: ['EUR'] }),
    amount: Type.String({ description: 'Decimal string, 2 decimals.', examples: ['1500.00'] }),
    amount_paid: Type.String({ description: 'What confirmed payment runs have paid of it.', examples: ['0.00'] }),
    account: Type.Union([Type.Integer(), Type.Null()], {
      description: 'The general-ledger account id, or null.',
      examples: [12],
    }),
    due_date: NullableDate('When it should be paid.', '2026-12-15'),
    invoice_number: Type.String({
      description: 'The vendor’s reference (the file’s remittance text).',
      examples: ['DEP-2026-11'],
    }),
    reason: Type.String({
      description: 'What it pays for and why.',
      examples: ['Deposit for the December offsite venue'],
    }),
    budget_warnings: Type.Array(BudgetWarning, {
      description: 'What the last budget check found; [] when none.',
      examples: [
        [{ budget: { id: 5, name: 'Facilities 2026' }, available: '900.00', requested: '1500.00', over_by: '600.00' }],
      ],
    }),
    approvals: Type.Array(Approval),
    submitted_at: Instant('When it was last submitted.', null),
    paid_at: Instant('When the run that paid it off was confirmed; null until then.', '2026-12-01T15:00:00.000Z'),
    payment_reference: Type.Union([Type.String(), Type.Null()], {
      description: 'The number of the run that paid it off.',
      examples: ['RUN-000002'],
    }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  }),
)
export type PaymentRequest = Static<typeof PaymentRequest>

const IdOrRef = Type.Union([Id, Type.Object({ id: Id }, { additionalProperties: true })])
const NullableIdOrRef = Type.Union([Id, Type.Null(), Type.Object({ id: Id }, { additionalProperties: true })])

export const PaymentRequestInput = named(
  'PaymentRequestInput',
  Type.Object(
    {
      location: IdOrRef,
      department: Type.Optional(NullableIdOrRef),
      vendor: IdOrRef,
      currency: Type.Optional(
        Type.Union([Type.String({ minLength: 1, maxLength: 10 }), Type.Object({ name: Type.String() })], {
          description: 'Default: the location’s currency.',
        }),
      ),
      amount: Money('Decimal string greater than 0, up to 2 decimals.', '1500.00'),
      account: Type.Optional(
        Type.Union([Id, Type.Null(), Type.Object({ id: Id }, { additionalProperties: true })], {
          description: 'A general-ledger account id (GET /api/v3/accounts/), or null.',
          examples: [12],
        }),
      ),
      due_date: Type.Optional(NullableDate('When it should be paid.', '2026-12-15')),
      invoice_number: Type.Optional(
        Type.String({
          maxLength: 100,
          format: 'name',
          description: 'The vendor’s reference (the payment file’s remittance text).',
          examples: ['DEP-2026-11'],
        }),
      ),
      reason: Type.Optional(
        Type.String({
          maxLength: 2000,
          description: 'What it pays for and why.',
          examples: ['Deposit for the December offsite venue'],
        }),
      ),
    },
    {
      additionalProperties: true,
      description: 'Read-only fields (id, number, status, requester, approvals, …) are accepted and ignored.',
      examples: [{ location: 1, vendor: 3, amount: '1500.00', reason: 'Venue deposit' }],
    },
  ),
)
export type PaymentRequestInput = Static<typeof PaymentRequestInput>

const IntFilter = Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 }))
export const PaymentRequestListQuery = listQuery(['id', 'created_at', 'updated_at', 'due_date'], {
  status: Type.Optional(PaymentRequestStatus),
  vendor: IntFilter,
  location: IntFilter,
  updated_since: UpdatedSince,
})
export type PaymentRequestListQuery = Static<typeof PaymentRequestListQuery>
export const PaymentRequestParams = Type.Object({ id: Id })

declare module '../events/schema.ts' {
  interface EventObjects {
    'payment_request.created': PaymentRequest
    'payment_request.submitted': PaymentRequest
    'payment_request.approved': PaymentRequest
    'payment_request.rejected': PaymentRequest
    'payment_request.cancelled': PaymentRequest
    'payment_request.paid': PaymentRequest
  }
}
