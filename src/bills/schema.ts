/** Bill shapes on the wire (DECISIONS, "Bills and matching"). */
import { Type, type Static } from 'typebox'
import { AccountRef } from '../accounts/schema.ts'
import { BudgetWarning } from '../budgets/schema.ts'
import { listQuery, UpdatedSince } from '../core/list-query.ts'
import { Id, named } from '../core/schema.ts'
import { Approval, Money, Person } from '../approvals/schema.ts'

export const MAX_BILL_LINES = 500
const Ref = (description: string, example: object) =>
  Type.Object({ id: Type.Integer(), name: Type.String() }, { description, examples: [example] })
const Dec = (description: string, example: string) => Type.String({ description, examples: [example] })
const NullableDate = (description: string, example: string) =>
  Type.Union([Type.String({ format: 'date' }), Type.Null()], { description, examples: [example] })

export const BillStatus = Type.Union(
  [
    Type.Literal('draft'),
    Type.Literal('pending_approval'),
    Type.Literal('approved'),
    Type.Literal('paid'),
    Type.Literal('cancelled'),
  ],
  {
    description:
      'draft → submit → pending_approval → approved (or back to draft when rejected) → pay → paid; cancel from ' +
      'draft, pending_approval or approved.',
    examples: ['pending_approval'],
  },
)
export const MatchStatus = Type.Union(
  [Type.Literal('not_required'), Type.Literal('matched'), Type.Literal('exception')],
  { description: 'Set at submit: not_required for a bill without an order.', examples: ['matched'] },
)
export const ExceptionCode = Type.Union(
  [
    Type.Literal('quantity_over_ordered'),
    Type.Literal('quantity_over_received'),
    Type.Literal('price_over_tolerance'),
    Type.Literal('line_closed'),
  ],
  { examples: ['quantity_over_received'] },
)

export const BillException = Type.Object({
  line: Type.Integer({ description: 'The bill line.', examples: [7] }),
  code: ExceptionCode,
  message: Type.String({
    description: 'What is wrong, as a sentence a person acts on.',
    examples: ['Line 1 (Ergonomic chair): billed 12, received 10.'],
  }),
})

export const BillLine = named(
  'BillLine',
  Type.Object({
    id: Type.Integer({ examples: [7] }),
    po_line: Type.Union([Type.Integer(), Type.Null()], { description: 'The order line, or null.', examples: [101] }),
    description: Type.String({ examples: ['Ergonomic chair'] }),
    quantity: Dec('Decimal string, without trailing zeros.', '12'),
    unit_price: Dec('Decimal string, without trailing zeros.', '199.99'),
    tax_rate: Dec('Percent, decimal string.', '8.25'),
    amount: Dec('quantity × unit_price, rounded half-up to 2 decimals.', '2399.88'),
    account: AccountRef,
  }),
)

export const Bill = named(
  'Bill',
  Type.Object({
    id: Type.Integer({ examples: [5] }),
    number: Type.String({ description: 'The vendor’s invoice number (unique per vendor).', examples: ['INV-2291'] }),
    vendor: Ref('The order’s vendor, or the one named.', { id: 3, name: 'Acme Supplies' }),
    location: Ref('The order’s location, or the one named.', { id: 1, name: 'Head Office' }),
    currency: Type.String({ examples: ['USD'] }),
    purchase_order: Type.Union([Type.Integer(), Type.Null()], {
      description: 'The order billed, or null.',
      examples: [42],
    }),
    status: BillStatus,
    match_status: MatchStatus,
    exceptions: Type.Array(BillException, {
      description: 'What matching found at the last submit; empty when matched or not required.',
      examples: [
        [{ line: 7, code: 'quantity_over_received', message: 'Line 1 (Ergonomic chair): billed 12, received 10.' }],
      ],
    }),
    invoice_date: NullableDate('The date on the vendor’s invoice.', '2026-11-20'),
    due_date: NullableDate('When payment is due.', '2026-12-20'),
    lines: Type.Array(BillLine),
    subtotal: Dec('Σ line amounts.', '2399.88'),
    tax: Dec('Σ line taxes (each rounded half-up to 2 decimals).', '198'),
    total: Dec('subtotal + tax.', '2597.88'),
    paid_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When it was paid (set by pay).',
      examples: ['2026-11-25T10:00:00.000Z'],
    }),
    payment_reference: Type.Union([Type.String(), Type.Null()], {
      description: 'The payment’s reference (set by pay).',
      examples: ['WIRE-88121'],
    }),
    amount_paid: Dec('What confirmed payment runs have paid of it; the rest of the total is open.', '0.00'),
    approvals: Type.Array(Approval),
    budget_warnings: Type.Array(BudgetWarning, {
      description: 'The `warn` budgets its submit took below zero (as of that moment); [] when none.',
    }),
    created_by: Person,
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  }),
)
export type Bill = Static<typeof Bill>

const IdOrRef = Type.Union([Id, Type.Object({ id: Id }, { additionalProperties: true })])

export const BillLineInput = Type.Object(
  {
    po_line: Type.Optional(
      Type.Union([Id, Type.Null()], { description: 'A line of the bill’s order; omit for a free line.' }),
    ),
    description: Type.Optional(Type.String({ maxLength: 1000, description: 'Default: the order line’s.' })),
    quantity: Money('Decimal string greater than 0, up to 4 decimals.', '12'),
    unit_price: Type.Optional(Money('Decimal string, up to 4 decimals; default: the order line’s.', '199.99')),
    tax_rate: Type.Optional(Money('Percent; default: the order line’s, else "0".', '8.25')),
    account: Type.Optional(
      Type.Union([Id, Type.Object({ id: Id }, { additionalProperties: true }), Type.Null()], {
        description: 'An account id, or null; default: the order line’s.',
        examples: [3],
      }),
    ),
  },
  { additionalProperties: true },
)

export const BillInput = named(
  'BillInput',
  Type.Object(
    {
      number: Type.String({
        minLength: 1,
        maxLength: 100,
        pattern: '\\S',
        description: 'The vendor’s invoice number.',
        examples: ['INV-2291'],
      }),
      purchase_order: Type.Optional(
        Type.Union([Id, Type.Null()], {
          description: 'The order billed; omit or null for free lines.',
          examples: [42],
        }),
      ),
      vendor: Type.Optional(IdOrRef),
      location: Type.Optional(IdOrRef),
      currency: Type.Optional(Type.String({ minLength: 1, maxLength: 10 })),
      invoice_date: Type.Optional(NullableDate('The date on the vendor’s invoice.', '2026-11-20')),
      due_date: Type.Optional(NullableDate('When payment is due.', '2026-12-20')),
      lines: Type.Array(BillLineInput, { minItems: 1, maxItems: MAX_BILL_LINES }),
    },
    {
      additionalProperties: true,
      description:
        'With purchase_order, vendor, location and currency are the order’s (vendor, if sent, must be it); without, ' +
        'vendor and location are required and currency defaults to the location’s. Read-only fields are ignored.',
      examples: [{ number: 'INV-2291', purchase_order: 42, lines: [{ po_line: 101, quantity: '12' }] }],
    },
  ),
)
export type BillInput = Static<typeof BillInput>

const PayBody = Type.Object(
  {
    paid_at: Type.Optional(Type.String({ format: 'date-time', description: 'Default: now.' })),
    payment_reference: Type.Optional(Type.String({ maxLength: 200, examples: ['WIRE-88121'] })),
  },
  { additionalProperties: false },
)
export const PayInput = named('BillPayInput', Type.Union([PayBody, Type.Null()]))
export type PayInput = Static<typeof PayBody>

const IntFilter = Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 }))
export const BillListQuery = listQuery(['id', 'created_at', 'updated_at'], {
  status: Type.Optional(BillStatus),
  match_status: Type.Optional(MatchStatus),
  vendor: IntFilter,
  purchase_order: IntFilter,
  location: IntFilter,
  updated_since: UpdatedSince,
})
export type BillListQuery = Static<typeof BillListQuery>
export const BillParams = Type.Object({ id: Id })

declare module '../events/schema.ts' {
  interface EventObjects {
    'bill.created': Bill
    'bill.submitted': Bill
    'bill.approved': Bill
    'bill.rejected': Bill
    'bill.paid': Bill
    'bill.cancelled': Bill
  }
}
