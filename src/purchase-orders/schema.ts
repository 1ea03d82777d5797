/** Purchase order shapes on the wire (DECISIONS, "Purchase orders and receiving"). */
import { Type, type Static } from 'typebox'
import { listQuery, UpdatedSince } from '../core/list-query.ts'
import { DECIMAL_PATTERN } from '../core/decimal.ts'
import { Id, named } from '../core/schema.ts'
import { Approval, Money, Person } from '../approvals/schema.ts'

export const MAX_ORDER_LINES = 500
const Ref = Type.Object({ id: Type.Integer(), name: Type.String() })
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T, options = {}) =>
  Type.Union([t, Type.Null()], options)

export const OrderStatus = Type.Union(
  [
    Type.Literal('draft'),
    Type.Literal('pending_approval'),
    Type.Literal('issued'),
    Type.Literal('closed'),
    Type.Literal('cancelled'),
  ],
  {
    description:
      'draft → issue → issued (or pending_approval → issued on approval, back to draft on rejection) → close → ' +
      'closed → reopen → issued; cancel from draft, pending_approval, or issued with nothing received or billed.',
    examples: ['issued'],
  },
)
export const ReceiptStatus = Type.Union(
  [Type.Literal('none'), Type.Literal('partial'), Type.Literal('full'), Type.Literal('over')],
  {
    description: 'Derived from the lines’ accepted quantities; a closed line counts as complete.',
    examples: ['partial'],
  },
)
export const BillingStatus = Type.Union([Type.Literal('none'), Type.Literal('partial'), Type.Literal('full')], {
  description: 'Derived from the lines’ billed quantities.',
  examples: ['none'],
})

export const OrderAddress = named(
  'OrderAddress',
  Type.Object({
    name: Type.String({ examples: ['Head Office'] }),
    addressLineOne: Type.String({ examples: ['1 Main Street'] }),
    city: Type.String({ examples: ['Springfield'] }),
    postalCode: Type.String({ examples: ['12345'] }),
    state_province: Type.String({ examples: ['IL'] }),
    country: Type.String({ examples: ['US'] }),
  }),
)

const Dec = (description: string, example: string) => Type.String({ description, examples: [example] })

export const OrderLine = named(
  'PurchaseOrderLine',
  Type.Object({
    id: Type.Integer({ examples: [101] }),
    request_line: Nullable(Type.Integer(), { description: 'The request line it orders, or null.', examples: [55] }),
    description: Type.String({ examples: ['Ergonomic chair'] }),
    quantity: Dec('Decimal string, without trailing zeros.', '3'),
    unit_price: Dec('Decimal string, without trailing zeros.', '199.99'),
    tax_rate: Dec('Percent, decimal string.', '8.25'),
    amount: Dec('quantity × unit_price, rounded half-up to 2 decimals.', '599.97'),
    received_quantity: Dec('Accepted, net of returns.', '2'),
    rejected_quantity: Dec('Rejected at receipt.', '0'),
    billed_quantity: Dec('On submitted, approved and paid bills.', '0'),
    closed: Type.Boolean({ description: 'Closed short: no more is received against it.', examples: [false] }),
  }),
)

export const LineInput = named(
  'PurchaseOrderLineInput',
  Type.Object(
    {
      id: Type.Optional(
        Type.Integer({
          description: 'An existing line of this order (kept, with its quantities); omit for a new line.',
        }),
      ),
      description: Type.Optional(Type.String({ maxLength: 1000, examples: ['Ergonomic chair'] })),
      quantity: Money('Decimal string greater than 0, up to 4 decimals.', '3'),
      unit_price: Money('Decimal string, up to 4 decimals.', '199.99'),
      tax_rate: Type.Optional(Money('Percent; default "0".', '8.25')),
      request_line: Type.Optional(
        Type.Unknown({ description: 'Read-only; kept from the existing line.', examples: [null] }),
      ),
    },
    { additionalProperties: true },
  ),
)
export type LineInput = Static<typeof LineInput>

const IdOrRef = Type.Union([Id, Type.Object({ id: Id }, { additionalProperties: true })])

export const OrderInput = named(
  'PurchaseOrderInput',
  Type.Object(
    {
      vendor: IdOrRef,
      location: IdOrRef,
      department: Type.Optional(Type.Union([IdOrRef, Type.Null()])),
      currency: Type.Optional(Type.String({ minLength: 1, maxLength: 10, description: 'Default: the location’s.' })),
      promise_date: Type.Optional(Type.Union([Type.String({ format: 'date' }), Type.Null()])),
      notes: Type.Optional(Type.String({ maxLength: 4000 })),
      lines: Type.Array(LineInput, { minItems: 1, maxItems: MAX_ORDER_LINES }),
    },
    { additionalProperties: true, description: 'Read-only fields of a GET body are accepted and ignored.' },
  ),
)
export type OrderInput = Static<typeof OrderInput>

export const RevisionChange = Type.Object({
  path: Type.String({ examples: ['lines.0.quantity'] }),
  from: Type.Unknown(),
  to: Type.Unknown(),
})
export const Revision = named(
  'PurchaseOrderRevision',
  Type.Object({
    version: Type.Integer({ examples: [2] }),
    changed_at: Type.String({ format: 'date-time' }),
    changed_by: Person,
    changes: Type.Array(RevisionChange),
  }),
)
export type Revision = Static<typeof Revision>

export const PendingRevision = Type.Object(
  {
    body: Type.Unknown({ description: 'The proposed order body (as PUT sent it).' }),
    total: Type.String({ examples: ['1299.00'] }),
    proposed_by: Type.Integer({ description: 'The proposer’s user id.' }),
    proposed_at: Type.String({ format: 'date-time' }),
    approvals: Type.Array(Approval),
  },
  { description: 'A revision beyond the approval tolerance, held until its approval chain ends.' },
)

export const PurchaseOrder = named(
  'PurchaseOrder',
  Type.Object({
    id: Type.Integer({ examples: [42] }),
    number: Type.String({ examples: ['PO-000042'] }),
    status: OrderStatus,
    receipt_status: ReceiptStatus,
    billing_status: BillingStatus,
    version: Type.Integer({ description: '0 while a draft; 1 at issue; +1 per applied revision.', examples: [1] }),
    vendor: Type.Object(Ref.properties, { description: 'The vendor.', examples: [{ id: 4, name: 'Acme Supplies' }] }),
    location: Type.Object(Ref.properties, { description: 'The location.', examples: [{ id: 1, name: 'Head Office' }] }),
    department: Nullable(Ref, {
      description: 'A department of the location, or null.',
      examples: [{ id: 3, name: 'Operations' }],
    }),
    request: Nullable(Type.Integer(), { description: 'The request it was made from, or null.', examples: [31] }),
    currency: Type.String({ examples: ['USD'] }),
    ship_to: Nullable(OrderAddress),
    bill_to: Nullable(OrderAddress),
    promise_date: Nullable(Type.String({ format: 'date' })),
    notes: Type.String(),
    lines: Type.Array(OrderLine),
    subtotal: Dec('Σ amounts.', '599.97'),
    tax: Dec('Σ line taxes (amount × tax_rate / 100, each rounded half-up to 2).', '49.50'),
    total: Dec('subtotal + tax.', '649.47'),
    approvals: Type.Array(Approval, { description: 'Approvals of its issue and of its revisions.' }),
    pending_revision: Nullable(PendingRevision),
    created_by: Person,
    issued_at: Nullable(Type.String({ format: 'date-time' })),
    sent_at: Nullable(Type.String({ format: 'date-time' })),
    closed_at: Nullable(Type.String({ format: 'date-time' })),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  }),
)
export type PurchaseOrder = Static<typeof PurchaseOrder>

export const OrderListQuery = listQuery(['id', 'created_at', 'total', 'number'], {
  status: Type.Optional(OrderStatus),
  receipt_status: Type.Optional(ReceiptStatus),
  billing_status: Type.Optional(BillingStatus),
  vendor: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
  location: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
  request: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
  updated_since: UpdatedSince,
})
export type OrderListQuery = Static<typeof OrderListQuery>
export const OrderParams = Type.Object({ id: Id })
export const LineParams = Type.Object({ id: Id, line_id: Id })

export const FromRequestInput = named(
  'OrdersFromRequestInput',
  Type.Union([
    Type.Object(
      {
        line_vendors: Type.Optional(
          Type.Array(Type.Object({ line: Id, vendor: Id }, { additionalProperties: false }), { maxItems: 200 }),
        ),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ]),
)

export const SendInput = named(
  'PurchaseOrderSendInput',
  Type.Union([
    Type.Object(
      {
        to: Type.Optional(Type.Array(Type.String({ format: 'email', maxLength: 254 }), { minItems: 1, maxItems: 20 })),
        message: Type.Optional(Type.String({ maxLength: 4000 })),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ]),
)

export const ProcurementSettings = named(
  'ProcurementSettings',
  Type.Object({
    over_receipt_tolerance_percent: Dec('How far a line’s accepted total may exceed its quantity, in percent.', '0'),
    po_approval_tolerance_percent: Dec('How far an order may exceed its approved total without approval.', '10'),
    price_tolerance_percent: Dec('How far a bill’s unit price may exceed the order’s.', '5'),
    match_mode: Type.Union([Type.Literal('two_way'), Type.Literal('three_way')], { examples: ['three_way'] }),
  }),
)
export type ProcurementSettings = Static<typeof ProcurementSettings>
const Percent = (example: string) =>
  Type.String({ pattern: DECIMAL_PATTERN, maxLength: 9, description: 'Percent, decimal string.', examples: [example] })
export const SettingsInput = named(
  'ProcurementSettingsInput',
  Type.Object(
    {
      over_receipt_tolerance_percent: Type.Optional(Percent('0')),
      po_approval_tolerance_percent: Type.Optional(Percent('10')),
      price_tolerance_percent: Type.Optional(Percent('5')),
      match_mode: Type.Optional(Type.Union([Type.Literal('two_way'), Type.Literal('three_way')])),
    },
    { additionalProperties: false },
  ),
)
export type SettingsInput = Static<typeof SettingsInput>

declare module '../events/schema.ts' {
  interface EventObjects {
    'purchase_order.created': PurchaseOrder
    'purchase_order.issued': PurchaseOrder
    'purchase_order.revised': PurchaseOrder
    'purchase_order.sent': PurchaseOrder
    'purchase_order.closed': PurchaseOrder
    'purchase_order.reopened': PurchaseOrder
    'purchase_order.cancelled': PurchaseOrder
    'purchase_order.line_closed': PurchaseOrder
  }
}
