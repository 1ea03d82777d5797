/** Role shapes on the wire: a role is `{id, name, type, tier, permissions}` (the same as GET /api/v3/roles/ lists). */
import { Type, type Static } from 'typebox'
import { Id, Name, named } from '../core/schema.ts'
import { PERMISSION_KEYS } from '../db/schema.ts'
export { Role } from '../lookups/schema.ts'

export const PermissionKeySchema = Type.Union(
  [
    Type.Literal('superuser'),
    Type.Literal('accounts_payable'),
    Type.Literal('nav_request'),
    Type.Literal('nav_approval'),
    Type.Literal('nav_purchase'),
    Type.Literal('nav_receive'),
    Type.Literal('nav_manage'),
    Type.Literal('nav_setting'),
    Type.Literal('nav_report'),
  ],
  { description: 'A permission key.' },
)
// Every key of the database's list, and no other (a compile-time check).
const _all: readonly Static<typeof PermissionKeySchema>[] = PERMISSION_KEYS
void _all

export const RoleInput = named(
  'RoleInput',
  Type.Object(
    {
      name: Name(150, { pattern: '\\S', examples: ['Site approver'] }),
      type: Type.Optional(
        Type.Integer({
          minimum: 0,
          maximum: 10,
          default: 0,
          description:
            'Role type (default 0): 0 User, 1 Approver, 2 Purchaser, 3 Receiver, 4 Administrator, 5 EKA, 6 Accounting, 7 Superuser, 8 Accounts Payable, 9 FNG Approver, 10 FNG Controller.',
          examples: [1],
        }),
      ),
      tier: Type.Optional(Type.Union([Type.Literal('Basic'), Type.Literal('Pro')], { default: 'Basic' })),
      permissions: Type.Array(PermissionKeySchema, {
        maxItems: PERMISSION_KEYS.length,
        uniqueItems: true,
        description: 'Every permission key the role grants (the complete set).',
        examples: [['nav_request', 'nav_approval']],
      }),
      // Read-only field of the response, accepted so a GET body can be sent back; ignored.
      id: Type.Optional(Type.Integer()),
    },
    { additionalProperties: false },
  ),
)
export type RoleInput = Static<typeof RoleInput>
export const RoleParams = Type.Object({ id: Id })
