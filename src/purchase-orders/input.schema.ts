/** What a client writes to purchase orders: an order and its lines, orders from a request, a send. */
import { Type, type Static } from 'typebox'
import { Id, named } from '../core/schema.ts'
import { Money } from '../approvals/schema.ts'

export const MAX_ORDER_LINES = 500

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
      account: Type.Optional(
        Type.Union([Id, Type.Object({ id: Id }, { additionalProperties: true }), Type.Null()], {
          description: 'An account id, or null; absent: a kept line keeps its account.',
          examples: [3],
        }),
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
      notes: Type.Optional(Type.String({ maxLength: 10000 })),
      lines: Type.Array(LineInput, { minItems: 1, maxItems: MAX_ORDER_LINES }),
    },
    { additionalProperties: true, description: 'Read-only fields of a GET body are accepted and ignored.' },
  ),
)
export type OrderInput = Static<typeof OrderInput>

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
