/** The procurement settings on the wire: the tolerances and the match mode. */
import { Type, type Static } from 'typebox'
import { DECIMAL_PATTERN } from '../core/decimal.ts'
import { named } from '../core/schema.ts'

const Dec = (description: string, example: string) => Type.String({ description, examples: [example] })

export const ProcurementSettings = named(
  'ProcurementSettings',
  Type.Object({
    over_receipt_tolerance_percent: Dec('How far a line’s accepted total may exceed its quantity, in percent.', '0'),
    po_approval_tolerance_percent: Dec('How far an order may exceed its approved total without approval.', '10'),
    price_tolerance_percent: Dec('How far a bill’s unit price may exceed the order’s.', '5'),
    match_mode: Type.Union([Type.Literal('two_way'), Type.Literal('three_way')], { examples: ['three_way'] }),
    receipt_required_over: Dec(
      'An expense report line above this amount (in the report’s currency) needs a receipt; 2 decimals.',
      '25.00',
    ),
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
      receipt_required_over: Type.Optional(
        Type.String({
          pattern: '^\\d{1,16}(\\.\\d{1,2})?$',
          maxLength: 19,
          description: 'Expense lines above this (report currency) need a receipt; decimal string, up to 2 decimals.',
          examples: ['25.00'],
        }),
      ),
    },
    { additionalProperties: false },
  ),
)
export type SettingsInput = Static<typeof SettingsInput>
