/** The standard roles every new company starts with (and the demo's). `type` is the role-type enum (docs/api.md). */
import { PERMISSION_KEYS, type PermissionKey } from '../db/schema.ts'

export interface StandardRole {
  name: string
  type: number
  tier: 'Basic' | 'Pro'
  permissions: PermissionKey[]
}

export const ADMINISTRATOR: StandardRole = {
  name: 'Administrator',
  type: 4,
  tier: 'Pro',
  // Every key but accounts_payable (a finance duty an administrator does not hold by default).
  permissions: PERMISSION_KEYS.filter((key) => key !== 'accounts_payable'),
}
export const BUYER: StandardRole = {
  name: 'Buyer',
  type: 2,
  tier: 'Basic',
  permissions: ['nav_request', 'nav_purchase', 'nav_receive'],
}
export const REQUESTER: StandardRole = { name: 'Requester', type: 0, tier: 'Basic', permissions: ['nav_request'] }
export const APPROVER: StandardRole = {
  name: 'Approver',
  type: 1,
  tier: 'Basic',
  permissions: ['nav_request', 'nav_approval'],
}

export const STANDARD_ROLES: readonly StandardRole[] = [ADMINISTRATOR, BUYER, REQUESTER, APPROVER]
