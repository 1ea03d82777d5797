/** Department shapes on the wire (DepartmentRead of the upstream reference, §4.1). */
import { Type, type Static } from 'typebox'
import { listQuery } from '../http/list.ts'

/** The department's location; `headquarter` marks the tenant's first location. */
export const Branch = Type.Object({
  id: Type.Integer(),
  name: Type.String({ maxLength: 150 }),
  headquarter: Type.Boolean(),
})

export const Department = Type.Object({
  id: Type.Integer(),
  name: Type.String({ maxLength: 150 }),
  external_id: Type.String({ maxLength: 100 }),
  active: Type.Boolean(),
  punchout_email: Type.String(),
  branch: Branch,
})
export type Department = Static<typeof Department>

export const DEPARTMENT_ORDER_FIELDS = ['id', 'name'] as const

export const DepartmentListQuery = listQuery(DEPARTMENT_ORDER_FIELDS, {
  location: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'Only departments of this location.' })),
  active: Type.Optional(Type.Boolean()),
})
export type DepartmentListQuery = Static<typeof DepartmentListQuery>
