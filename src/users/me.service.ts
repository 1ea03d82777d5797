/** The current user's account (`GET /api/v3/users/me/`): who the token's owner is and what they may do, where. */
import type { Kysely } from 'kysely'
import { PERMISSION_KEYS, type DB } from '../db/schema.ts'
import { actingUser, type Actor } from '../access/actor.ts'
import { notFound } from '../core/problem.ts'
import type { LocationView } from '../locations/schema.ts'
import { getLocation } from '../locations/service.ts'
import { audit } from '../audit/service.ts'
import { inTransaction } from '../db/transaction.ts'
import * as meRepo from './me.repository.ts'
import * as repo from './repository.ts'
import { BRANCH_FIELDS, type Me } from './schema.ts'
import { toProfile } from './service.ts'

type Structured = Me['systemaccess_cache']['structured']

const keysOf = (entry: Structured[string]) => new Set(entry.roles.flatMap((r) => r.permissions.map((p) => p.name)))

/** Whether the grants make a tenant-wide superuser (the profile role or a grant without a location). */
const isSuperuser = (grants: meRepo.GrantRow[]) =>
  grants.some((g) => g.location_id === null && g.permissions.some((p) => p.name === 'superuser'))

/**
 * Groups grants by location id (as a string) and "system"; each group and the whole get a sorted union of
 * keys. A tenant-wide superuser holds everything at every location (DECISIONS, "Permissions at a location"),
 * so every location of the tenant (`locations`, given for them) has an entry, whose `flattened` lists every
 * key, with the roles granted there (none where nothing is granted).
 */
function accessCache(grants: meRepo.GrantRow[], locations: readonly number[] = []): Me['systemaccess_cache'] {
  const structured: Structured = {}
  for (const g of grants) {
    const key = g.location_id === null ? 'system' : String(g.location_id)
    const entry = (structured[key] ??= { flattened: [], roles: [] })
    entry.roles.push({ id: g.role_id, name: g.role_name, permissions: g.permissions })
  }
  const all = new Set<string>()
  const superuser = isSuperuser(grants)
  if (superuser) for (const id of locations) structured[String(id)] ??= { flattened: [], roles: [] }
  for (const [where, entry] of Object.entries(structured)) {
    const keys = superuser && where !== 'system' ? new Set<string>(PERMISSION_KEYS) : keysOf(entry)
    entry.flattened = [...keys].sort()
    for (const k of keys) all.add(k)
  }
  return { structured, flattened: [...all].sort() }
}

const withoutId = <T extends { id: unknown }>(value: T): Omit<T, 'id'> =>
  Object.fromEntries(Object.entries(value).filter(([key]) => key !== 'id')) as Omit<T, 'id'>

/** The department's location as `me` shows it (its fields, currency and addresses without ids). */
function branchOf(view: LocationView): NonNullable<Me['department']>['branch'] {
  return {
    ...(Object.fromEntries(BRANCH_FIELDS.map((field) => [field, view[field]])) as Pick<
      LocationView,
      (typeof BRANCH_FIELDS)[number]
    >),
    currency: withoutId(view.currency),
    primary_billing_address: withoutId(view.primary_billing_address),
    primary_shipping_address: withoutId(view.primary_shipping_address),
  }
}

async function departmentWithBranch(db: Kysely<DB>, actor: Actor, departmentId: number) {
  const department = await meRepo.departmentOf(db, actor.tenantId, departmentId)
  if (department === undefined) return undefined
  return { ...department, view: (await getLocation(db, actor, department.location_id)).view }
}

/** The acting user's own account: who they are and what they may do, where. */
export async function me(db: Kysely<DB>, actor: Actor): Promise<Me> {
  const userId = actingUser(actor)
  const row = await repo.findProfileOfUser(db, actor.tenantId, userId)
  if (row === undefined) throw notFound('The token’s user has no profile.')
  const [tenant, grants, delegatee, department] = await Promise.all([
    meRepo.tenantOf(db, actor.tenantId),
    meRepo.grantsOf(db, actor.tenantId, userId),
    meRepo.isDelegatee(db, actor.tenantId, userId),
    row.department_id === null ? undefined : departmentWithBranch(db, actor, row.department_id),
  ])
  const profile = toProfile(row)
  return {
    id: row.id,
    domains: { active: tenant.active, service_domains: [{ subdomain: tenant.domain, name: tenant.name }] },
    systemaccess_cache: accessCache(
      grants,
      isSuperuser(grants) ? await meRepo.locationIdsOf(db, actor.tenantId) : undefined,
    ),
    approval_delegatee: profile.approval_delegatee,
    is_approval_delegatee: delegatee,
    department:
      department === undefined
        ? null
        : {
            branch: branchOf(department.view),
            external_id: department.external_id,
            name: department.name,
            active: department.active,
          },
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    position: row.position,
    phone: row.phone,
    address: row.address,
    notifications: row.notifications,
    is_active: row.is_active,
    pending_invite: row.pending_invite,
    role: row.role_type,
    mobile: row.mobile,
    profile_image: row.profile_image,
    chat_user_id: row.chat_user_id,
    is_sso_enabled: row.is_sso_enabled || tenant.sso,
    last_changed_by: row.last_changed_by,
    user: row.user_id,
    pending_approvals_count: profile.pending_approvals_count,
  }
}

/** Whether approval e-mail reaches the signed-in user. */
export const approvalEmails = (db: Kysely<DB>, actor: Actor): Promise<boolean> =>
  meRepo.approvalEmails(db, actor.tenantId, actingUser(actor))

/** Turns the signed-in user's approval e-mail on or off (audited). */
export async function setApprovalEmails(db: Kysely<DB>, actor: Actor, on: boolean): Promise<void> {
  const userId = actingUser(actor)
  await inTransaction(db, async (tx) => {
    await meRepo.setApprovalEmails(tx, actor.tenantId, userId, on)
    await audit(tx, actor, {
      action: 'user.approval_emails',
      resourceType: 'user',
      resourceId: userId,
      changes: { on },
    })
  })
}
