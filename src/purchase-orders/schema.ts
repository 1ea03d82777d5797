/**
 * Purchase order shapes on the wire (DECISIONS, "Purchase orders and receiving"): the order as read, its list
 * query and parameters. What is written is in input.schema.ts, the procurement settings in settings.schema.ts.
 */
import { Type, type Static } from 'typebox'
import { AccountRef } from '../accounts/schema.ts'
import { BudgetWarning } from '../budgets/schema.ts'
import { listQuery, UpdatedSince } from '../core/list-query.ts'
import { Id, named } from '../core/schema.ts'
import { Approval, Person } from '../approvals/schema.ts'

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
    account: AccountRef,
  }),
)

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
    budget_warnings: Type.Array(BudgetWarning, {
      description: 'The `warn` budgets its issue took below zero (as of that moment); [] when none.',
    }),
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
    /** Its issue's approval was rejected (back to `draft`), or its held revision's (the revision dropped). */
    'purchase_order.rejected': PurchaseOrder
  }
}
