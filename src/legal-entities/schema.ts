/** Legal entity shapes on the wire (LegalEntitySummary of the upstream reference, plus `active`). */
import { Type, type Static } from 'typebox'
import { listQuery } from '../http/list.ts'

export const LegalEntity = Type.Object({
  id: Type.Integer(),
  uuid: Type.String({ format: 'uuid' }),
  name: Type.String({ maxLength: 150 }),
  active: Type.Boolean(),
})
export type LegalEntity = Static<typeof LegalEntity>

export const LEGAL_ENTITY_ORDER_FIELDS = ['id', 'name'] as const

export const LegalEntityListQuery = listQuery(LEGAL_ENTITY_ORDER_FIELDS, {
  active: Type.Optional(Type.Boolean()),
})
export type LegalEntityListQuery = Static<typeof LegalEntityListQuery>
