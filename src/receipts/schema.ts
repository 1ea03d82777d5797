/** Receipt shapes on the wire (DECISIONS, "Purchase orders and receiving"). */
import { Type, type Static } from 'typebox'
import { listQuery, UpdatedSince } from '../core/list-query.ts'
import { Id, named } from '../core/schema.ts'
import { Money, Person } from '../approvals/schema.ts'

const Type_ = Type.Union([Type.Literal('receipt'), Type.Literal('return')], {
  description: 'receipt: goods arrived (accepted and rejected); return: accepted goods given back.',
  examples: ['receipt'],
})
const Status = Type.Union([Type.Literal('posted'), Type.Literal('voided')], { examples: ['posted'] })

export const ReceiptLine = Type.Object({
  po_line: Type.Integer({ description: 'A line of the order.', examples: [101] }),
  accepted_quantity: Type.String({ examples: ['2'] }),
  rejected_quantity: Type.String({ examples: ['0'] }),
})

export const Receipt = named(
  'Receipt',
  Type.Object({
    id: Type.Integer({ examples: [9] }),
    number: Type.String({ examples: ['GR-000009'] }),
    type: Type_,
    status: Status,
    purchase_order: Type.Integer({ examples: [42] }),
    location: Type.Object(
      { id: Type.Integer(), name: Type.String() },
      { description: 'The order’s location.', examples: [{ id: 1, name: 'Head Office' }] },
    ),
    received_at: Type.String({ format: 'date-time' }),
    packing_slip: Type.String({ examples: ['PS-7781'] }),
    notes: Type.String(),
    lines: Type.Array(ReceiptLine, {
      description: 'Per order line: quantity accepted and rejected (a return: accepted quantity given back).',
      examples: [[{ po_line: 101, accepted_quantity: '2', rejected_quantity: '0' }]],
    }),
    created_by: Person,
    created_at: Type.String({ format: 'date-time' }),
    voided_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  }),
)
export type Receipt = Static<typeof Receipt>

export const ReceiptInput = named(
  'ReceiptInput',
  Type.Object(
    {
      purchase_order: Id,
      type: Type.Optional(Type_),
      received_at: Type.Optional(Type.String({ format: 'date-time' })),
      packing_slip: Type.Optional(Type.String({ maxLength: 200 })),
      notes: Type.Optional(Type.String({ maxLength: 4000 })),
      lines: Type.Array(
        Type.Object(
          {
            po_line: Id,
            accepted_quantity: Type.Optional(Money('Decimal string; default "0".', '2')),
            rejected_quantity: Type.Optional(Money('Decimal string; default "0" (receipts only).', '0')),
          },
          { additionalProperties: false },
        ),
        {
          minItems: 1,
          maxItems: 500,
          description: 'Per order line: accepted and rejected quantities.',
          examples: [[{ po_line: 101, accepted_quantity: '2' }]],
        },
      ),
    },
    { additionalProperties: false },
  ),
)
export type ReceiptInput = Static<typeof ReceiptInput>

export const ReceiptListQuery = listQuery(['id', 'created_at'], {
  purchase_order: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
  location: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
  type: Type.Optional(Type_),
  status: Type.Optional(Status),
  updated_since: UpdatedSince,
})
export type ReceiptListQuery = Static<typeof ReceiptListQuery>
export const ReceiptParams = Type.Object({ id: Id })

declare module '../events/schema.ts' {
  interface EventObjects {
    'receipt.created': Receipt
    'receipt.voided': Receipt
  }
}
