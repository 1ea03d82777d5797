/** Currency shapes on the wire (fields as the upstream reference spells them, §2.3). */
import { Type, type Static } from 'typebox'
import { listQuery } from '../http/list.ts'

export const Currency = Type.Object({
  id: Type.Integer(),
  name: Type.String({ maxLength: 10 }),
  description: Type.String({ maxLength: 100 }),
  // A decimal string, never a JSON number: rates keep all six decimals exactly ("1.350000").
  rate: Type.String({ pattern: '^-?\\d{1,9}(\\.\\d{1,6})?$' }),
  base: Type.Boolean(),
  active: Type.Boolean(),
})
export type Currency = Static<typeof Currency>

export const CURRENCY_ORDER_FIELDS = ['id', 'name'] as const

export const CurrencyListQuery = listQuery(CURRENCY_ORDER_FIELDS, {
  active: Type.Optional(Type.Boolean()),
  base: Type.Optional(Type.Boolean()),
  name: Type.Optional(Type.String({ maxLength: 10 })),
})
export type CurrencyListQuery = Static<typeof CurrencyListQuery>
