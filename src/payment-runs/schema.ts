/** Payment run shapes on the wire (DECISIONS, "Payment requests and payment runs"). */
import { Type, type Static } from 'typebox'
import { listQuery, UpdatedSince } from '../core/list-query.ts'
import { Id, named } from '../core/schema.ts'
import { Approval, Money, Person } from '../approvals/schema.ts'

export const MAX_RUN_ITEMS = 2000
const Ref = (description: string, example: object) =>
  Type.Object({ id: Type.Integer(), name: Type.String() }, { description, examples: [example] })
const Instant = (description: string, example: string | null) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description, examples: [example] })

export const PaymentRunStatus = Type.Union(
  [
    Type.Literal('draft'),
    Type.Literal('pending_approval'),
    Type.Literal('approved'),
    Type.Literal('confirmed'),
    Type.Literal('cancelled'),
  ],
  {
    description:
      'draft → submit → pending_approval → approved (back to draft when rejected) → confirm → confirmed; cancel ' +
      'from draft, pending_approval or approved (its documents are free again).',
    examples: ['approved'],
  },
)

export const RunDocumentType = Type.Union([Type.Literal('bill'), Type.Literal('payment_request')], {
  examples: ['bill'],
})

export const PaymentRunItem = named(
  'PaymentRunItem',
  Type.Object({
    id: Type.Integer({ examples: [11] }),
    document: Type.Object(
      { type: RunDocumentType, id: Type.Integer(), number: Type.String() },
      {
        description: 'The bill (number: the vendor’s invoice number) or payment request (PAY-…) it pays.',
        examples: [{ type: 'bill', id: 5, number: 'INV-2291' }],
      },
    ),
    vendor: Ref('Whom it pays.', { id: 3, name: 'Acme Supplies' }),
    location: Ref('The document’s location.', { id: 1, name: 'Head Office' }),
    amount: Type.String({ description: 'What this run pays of it (≤ what was open).', examples: ['2597.88'] }),
    reference: Type.String({
      description: 'Remittance text for the vendor; default: the invoice number.',
      examples: ['INV-2291'],
    }),
  }),
)

export const PaymentRun = named(
  'PaymentRun',
  Type.Object({
    id: Type.Integer({ examples: [2] }),
    number: Type.String({ description: '"RUN-" and at least 6 digits.', examples: ['RUN-000002'] }),
    status: PaymentRunStatus,
    bank_account: Ref('The company account it pays from.', { id: 1, name: 'Operating account' }),
    currency: Type.String({ description: 'The bank account’s currency; every item’s.', examples: ['EUR'] }),
    execution_date: Type.String({ format: 'date', description: 'When the bank should pay.', examples: ['2026-12-01'] }),
    items: Type.Array(PaymentRunItem, { description: 'The bills and payment requests it pays, and how much of each.' }),
    total: Type.String({ description: 'Σ item amounts.', examples: ['2597.88'] }),
    approvals: Type.Array(Approval),
    submitted_at: Instant('When it was last submitted.', null),
    confirmed_at: Instant('When the bank executed it (set by confirm); null until then.', '2026-12-01T15:00:00.000Z'),
    created_by: Person,
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  }),
)
export type PaymentRun = Static<typeof PaymentRun>

export const PaymentRunItemInput = Type.Object(
  {
    document: Type.Object(
      { type: RunDocumentType, id: Id },
      { additionalProperties: true, description: 'The approved bill or payment request to pay.' },
    ),
    amount: Type.Optional(Money('Up to 2 decimals, > 0 and ≤ what is open; default: all that is open.', '2597.88')),
    reference: Type.Optional(
      Type.String({
        maxLength: 140,
        format: 'name',
        description: 'Default: the invoice number.',
        examples: ['INV-2291'],
      }),
    ),
  },
  { additionalProperties: true },
)
export type PaymentRunItemInput = Static<typeof PaymentRunItemInput>

export const PaymentRunInput = named(
  'PaymentRunInput',
  Type.Object(
    {
      bank_account: Type.Union([Id, Type.Object({ id: Id }, { additionalProperties: true })], {
        description: 'The company bank account (its currency is the run’s).',
        examples: [1],
      }),
      execution_date: Type.String({
        format: 'date',
        description: 'When the bank should pay (YYYY-MM-DD).',
        examples: ['2026-12-01'],
      }),
      items: Type.Array(PaymentRunItemInput, {
        minItems: 1,
        maxItems: MAX_RUN_ITEMS,
        description: 'The approved bills and payment requests to pay (1 to 2,000), each at most once.',
        examples: [[{ document: { type: 'bill', id: 5 }, amount: '100.00', reference: 'INV-2291' }]],
      }),
    },
    {
      additionalProperties: true,
      description: 'Read-only fields (id, number, status, total, approvals, …) are accepted and ignored.',
      examples: [
        {
          bank_account: 1,
          execution_date: '2026-12-01',
          items: [{ document: { type: 'bill', id: 5 }, amount: '100.00' }],
        },
      ],
    },
  ),
)
export type PaymentRunInput = Static<typeof PaymentRunInput>

const ConfirmBody = Type.Object(
  {
    confirmed_at: Type.Optional(
      Type.String({ format: 'date-time', description: 'When the bank executed it; default: now.' }),
    ),
  },
  { additionalProperties: false },
)
export const ConfirmInput = named('PaymentRunConfirmInput', Type.Union([ConfirmBody, Type.Null()]))
export type ConfirmInput = Static<typeof ConfirmBody>

export const PaymentRunListQuery = listQuery(['id', 'created_at', 'updated_at', 'execution_date'], {
  status: Type.Optional(PaymentRunStatus),
  bank_account: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 2147483647,
      description: 'Only runs paying from this company bank account (its id).',
      examples: [1],
    }),
  ),
  updated_since: UpdatedSince,
})
export type PaymentRunListQuery = Static<typeof PaymentRunListQuery>
export const PaymentRunParams = Type.Object({ id: Id })

declare module '../events/schema.ts' {
  interface EventObjects {
    'payment_run.created': PaymentRun
    'payment_run.submitted': PaymentRun
    'payment_run.approved': PaymentRun
    'payment_run.rejected': PaymentRun
    'payment_run.confirmed': PaymentRun
    'payment_run.cancelled': PaymentRun
  }
}
