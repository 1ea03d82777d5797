/**
 * The permission keys a user holds right now, as a SQL expression over the user row aliased `u`. Only
 * system-wide roles count (the profile's role and grants without a location): a role granted at one
 * location shows in the account view under that location, but does not authorize tenant-wide actions.
 */
import { sql } from 'kysely'
import type { PermissionKey } from '../db/schema.ts'

export const permissionsOfUser = sql<PermissionKey[]>`array(
  select distinct p.key from permissions p
  join role_permissions rp on rp.permission_id = p.id
  where rp.tenant_id = u.tenant_id and rp.role_id in (
    select role_id from user_profiles where tenant_id = u.tenant_id and user_id = u.id
    union select role_id from role_grants where tenant_id = u.tenant_id and user_id = u.id and location_id is null))`
