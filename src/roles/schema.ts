/** Role shapes on the wire: a role with its permission keys (the "system roles" of the upstream reference, §4.3). */
import { Type, type Static } from 'typebox'
import { listQuery } from '../http/list.ts'

export const Role = Type.Object({
  id: Type.Integer(),
  name: Type.String({ maxLength: 150 }),
  type: Type.Integer({ minimum: 0, maximum: 10 }),
  tier: Type.Union([Type.Literal('Basic'), Type.Literal('Pro')]),
  permissions: Type.Array(Type.String(), { description: 'The permission keys the role grants, sorted.' }),
})
export type Role = Static<typeof Role>

export const ROLE_ORDER_FIELDS = ['id', 'name'] as const

export const RoleListQuery = listQuery(ROLE_ORDER_FIELDS, {})
export type RoleListQuery = Static<typeof RoleListQuery>
