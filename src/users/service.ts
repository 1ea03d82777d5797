/**
 * User rules: who may write (superuser or nav_setting), what a body may refer to (roles, locations,
 * departments at the home location, legal entities — all the tenant's), e-mail unique per tenant
 * case-insensitively, and batches all-or-nothing with one error object per submitted item.
 */
import { ControlledTransaction, type Kysely } from 'kysely'
import { requireAny, type Actor } from '../access/actor.ts'
import { enforceContainment } from '../access/containment.ts'
import { audit } from '../audit/service.ts'
import { type Page } from '../core/list-query.ts'
import { emailKey } from '../db/email.ts'
import type { DB } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import { conflict, notFound, Problem, validationFailed, type FieldErrors } from '../core/problem.ts'
import { recordEvent, recordEvents } from '../events/service.ts'
import { queueInvitations } from '../invitations/service.ts'
import { endUserSessions } from '../sessions/service.ts'
import { endDelegationsTo } from './delegation.repository.ts'
import * as repo from './repository.ts'
import { emailProblems, nameProblem } from './rules.ts'
import type { BatchUser, SingleUser, UserListQuery, UserProfile } from './schema.ts'
import * as writes from './write-repository.ts'

const WRITERS = ['superuser', 'nav_setting'] as const
/** The e-mail's field error when another user of the tenant has it (SCIM and sign-on tell it apart from others). */
export const EMAIL_TAKEN = 'a user with this e-mail already exists'
const EMPTY_COUNTS = { order: 0, expense: 0, travel: 0, bill: 0, payment: 0 }

export function toProfile(row: repo.ProfileRow): UserProfile {
  return {
    id: row.id,
    firstName: row.first_name,
    lastName: row.last_name,
    user: row.user_id,
    email: row.email,
    department: row.department,
    location: row.location,
    profile_image: row.profile_image,
    is_active: row.is_active,
    phone: row.phone,
    position: row.position,
    role: { id: row.role_id, name: row.role_name, type: row.role_type, tier: row.role_tier },
    approval_delegatee: row.delegatee,
    pending_approvals_count: { ...EMPTY_COUNTS, ...row.pending },
    expected_return_date: row.delegatee === null ? null : row.expected_return_date,
  }
}

export async function listUsers(db: Kysely<DB>, actor: Actor, query: UserListQuery): Promise<Page<UserProfile>> {
  const result = await repo.pageOfProfiles(db, actor.tenantId, query)
  return { ...result, rows: result.rows.map(toProfile) }
}

export async function getUser(db: Kysely<DB>, actor: Actor, profileId: number): Promise<UserProfile> {
  const row = await repo.findProfile(db, actor.tenantId, profileId)
  if (row === undefined) throw notFound(`No user ${profileId}.`)
  return toProfile(row)
}

/** Field names differ between the two request forms; errors use the names the client sent. */
interface Names {
  first: string
  last: string
  role: string
  location: string
  department: string
}
const BATCH_NAMES: Names = {
  first: 'first_name',
  last: 'last_name',
  role: 'role_id',
  location: 'home_location',
  department: 'home_department',
}
const SINGLE_NAMES: Names = {
  first: 'firstName',
  last: 'lastName',
  role: 'role_id',
  location: 'location',
  department: 'department',
}

/** Location access as listed, with a location named twice merged into one entry (departments combined). */
function mergeLocations(items: NonNullable<BatchUser['locations']>): writes.NewUser['locations'] {
  const merged = new Map<number, { id: number; allDepartments: boolean; departments: Set<number> }>()
  for (const item of items) {
    const l = typeof item === 'number' ? { id: item, all_departments: true, departments: [] } : item
    const entry = merged.get(l.id) ?? { id: l.id, allDepartments: false, departments: new Set<number>() }
    entry.allDepartments ||= l.all_departments ?? false
    for (const d of l.departments ?? []) entry.departments.add(typeof d === 'number' ? d : d.id)
    merged.set(l.id, entry)
  }
  return [...merged.values()].map((e) => ({
    id: e.id,
    allDepartments: e.allDepartments,
    departments: [...e.departments],
  }))
}

const fromBatch = (b: BatchUser): Omit<writes.NewUser, 'roleId'> & { roleId: number | undefined } => ({
  email: b.email.trim(),
  firstName: b.first_name ?? '',
  lastName: b.last_name ?? '',
  phone: b.phone ?? '',
  position: b.position ?? '',
  profileImage: '',
  ssoEnabled: false,
  roleId: b.role_id,
  allLocations: b.all_locations ?? false,
  locations: mergeLocations(b.locations ?? []),
  homeDepartment: b.home_department ?? null,
  homeLocation: b.home_location ?? null,
  legalEntities: b.legal_entities ?? [],
  invite: b.send_invitation_email ?? false,
})

const fromSingle = (s: SingleUser): ReturnType<typeof fromBatch> => ({
  email: s.email.trim(),
  firstName: s.firstName,
  lastName: s.lastName,
  phone: s.phone ?? '',
  position: s.position ?? '',
  profileImage: s.profile_image ?? '',
  ssoEnabled: s.is_sso_enabled ?? false,
  roleId: s.role_id,
  allLocations: false,
  locations: s.location === null ? [] : [{ id: s.location, allDepartments: true, departments: [] }],
  homeDepartment: s.department,
  homeLocation: s.location,
  legalEntities: s.legal_entities ?? [],
  invite: false,
})

/** Everything wrong with one user's e-mail, names and references, keyed by the field names of its form. */
function referenceErrors(u: ReturnType<typeof fromBatch>, refs: repo.ReferenceData, names: Names): FieldErrors {
  const errors: FieldErrors = {}
  const add = (field: string, message: string) => (errors[field] ??= []).push(message)
  for (const message of emailProblems(u.email)) add('email', message)
  for (const [field, value] of [
    [names.first, u.firstName],
    [names.last, u.lastName],
  ] as const) {
    const problem = nameProblem(value)
    if (problem !== undefined) add(field, problem)
  }
  if (u.roleId !== undefined && !refs.roles.has(u.roleId)) add(names.role, `no role ${u.roleId}`)
  if (u.roleId === undefined && refs.defaultRole === undefined)
    add(names.role, 'is required: the tenant has no roles to default to')
  if (u.homeLocation !== null && !refs.locations.has(u.homeLocation))
    add(names.location, `no location ${u.homeLocation}`)
  if (u.homeDepartment !== null) {
    const at = refs.departmentLocation.get(u.homeDepartment)
    if (at === undefined) add(names.department, `no department ${u.homeDepartment}`)
    else if (u.homeLocation !== null && at !== u.homeLocation)
      add(names.department, `department ${u.homeDepartment} is not at location ${u.homeLocation}`)
  }
  u.locations.forEach((l, i) => {
    if (!refs.locations.has(l.id)) add(`locations.${i}`, `no location ${l.id}`)
    for (const d of l.departments)
      if (refs.departmentLocation.get(d) !== l.id)
        add(`locations.${i}.departments`, `department ${d} is not at location ${l.id}`)
  })
  for (const e of u.legalEntities) if (!refs.legalEntities.has(e)) add('legal_entities', `no legal entity ${e}`)
  return errors
}

/** Whether `db` can still be read after a statement in `inTransaction(db, …)` failed (db/transaction.ts). */
const readableAfterFailure = (db: Kysely<DB>) => !db.isTransaction || db instanceof ControlledTransaction

/** Creates users all-or-nothing. `batch` decides the error shape: one object per item, or one object. */
async function createUsers(
  db: Kysely<DB>,
  actor: Actor,
  items: ReturnType<typeof fromBatch>[],
  names: Names,
  batch: boolean,
  origin: string,
): Promise<UserProfile[]> {
  requireAny(actor, ...WRITERS)
  const fail = (errors: FieldErrors[]) =>
    validationFailed(
      batch ? errors : errors[0]!,
      batch ? 'Some users are not valid; see errors (one object per submitted item). Nothing was created.' : undefined,
    )
  const check = async (conn: Kysely<DB>) => {
    const refs = await repo.referenceData(conn, actor.tenantId)
    const errors = items.map((u) => referenceErrors(u, refs, names))
    const keys = items.map((u) => emailKey(u.email))
    const taken = await repo.takenEmails(conn, actor.tenantId, [...new Set(keys)])
    const first = new Map<string, number>()
    keys.forEach((email, i) => {
      if (taken.has(email)) (errors[i]!.email ??= []).push(EMAIL_TAKEN)
      else if (first.has(email)) (errors[i]!.email ??= []).push(`repeats the e-mail of item ${first.get(email)}`)
      else first.set(email, i)
    })
    return { refs, errors }
  }
  try {
    return await inTransaction(db, async (tx) => {
      const { refs, errors } = await check(tx)
      if (errors.some((e) => Object.keys(e).length > 0)) throw fail(errors)
      const users = items.map((u) => ({ ...u, roleId: u.roleId ?? refs.defaultRole! }))
      await enforceContainment(tx, actor, { action: 'create', grantedRoleIds: users.map((u) => u.roleId) })
      const ids = await writes.insertUsers(tx, actor.tenantId, users, actor.userId)
      await audit(
        tx,
        actor,
        ...users.map((u, i) => ({ action: 'user.create', resourceType: 'user', resourceId: ids[i]!, changes: u })),
      )
      await queueInvitations(
        tx,
        actor.tenantId,
        users.flatMap((u, i) => (u.invite ? [{ userId: ids[i]!, email: u.email }] : [])),
        origin,
      )
      const rows = await repo.profilesOfUsers(tx, actor.tenantId, ids)
      const byUser = new Map(rows.map((r) => [r.user_id, r]))
      const profiles = ids.map((id) => toProfile(byUser.get(id)!))
      await recordEvents(tx, actor.tenantId, 'user.created', profiles)
      return profiles
    })
  } catch (error) {
    // A concurrent request took one of the e-mails between our check and our insert: report it like any other.
    // Inside a caller's transaction (SCIM, single sign-on) the failed statement ended that transaction's use,
    // so nothing more can be read in it: the caller answers the unique violation itself.
    if ((error as { code?: string }).code === '23505' && readableAfterFailure(db)) {
      const { errors } = await check(db)
      if (errors.some((e) => Object.keys(e).length > 0)) throw fail(errors)
    }
    throw error
  }
}

export const createBatch = (db: Kysely<DB>, actor: Actor, body: BatchUser[], origin: string) =>
  createUsers(db, actor, body.map(fromBatch), BATCH_NAMES, true, origin)

export const createOne = async (db: Kysely<DB>, actor: Actor, body: SingleUser, origin: string) =>
  (await createUsers(db, actor, [fromSingle(body)], SINGLE_NAMES, false, origin))[0]!

/** PUT: replaces exactly the single form's fields. */
export async function updateUser(
  db: Kysely<DB>,
  actor: Actor,
  profileId: number,
  body: SingleUser,
): Promise<UserProfile> {
  requireAny(actor, ...WRITERS)
  return inTransaction(db, async (tx) => {
    const owner = await writes.userOfProfile(tx, actor.tenantId, profileId)
    if (owner === undefined) throw notFound(`No user ${profileId}.`)
    const u = fromSingle(body)
    await enforceContainment(tx, actor, {
      action: 'edit',
      targetUserId: owner.user_id,
      grantedRoleIds: u.roleId === undefined ? [] : [u.roleId],
    })
    const errors = referenceErrors(u, await repo.referenceData(tx, actor.tenantId), SINGLE_NAMES)
    if ((await repo.takenEmails(tx, actor.tenantId, [u.email], owner.user_id)).size > 0) errors.email = [EMAIL_TAKEN]
    if (Object.keys(errors).length > 0) throw validationFailed(errors)
    await writes.updateUser(
      tx,
      actor.tenantId,
      owner.user_id,
      { ...u, location: u.homeLocation, department: u.homeDepartment, roleId: u.roleId },
      actor.userId,
    )
    await writes.replaceLegalEntities(tx, actor.tenantId, [owner.user_id], [u.legalEntities])
    await audit(tx, actor, { action: 'user.replace', resourceType: 'user', resourceId: owner.user_id, changes: body })
    const profile = toProfile((await repo.findProfile(tx, actor.tenantId, profileId))!)
    await recordEvent(tx, actor.tenantId, 'user.updated', profile)
    return profile
  })
}

/**
 * The refusal to deactivate the tenant's last active superuser: nobody could administer the company then, and
 * only the operator could undo it. SCIM answers it in its own words (400 `mutability`).
 */
export class LastSuperuser extends Problem {
  constructor() {
    super(
      409,
      'Conflict',
      "This user is the company's last active superuser, so they cannot be deactivated: give another active user a role with the superuser permission first.",
    )
  }
}

/**
 * DELETE: deactivates; the user's applications' tokens stop working at once (auth checks is_active). The
 * tenant's last active superuser is never deactivated: the superusers' rows are locked first, so two
 * deactivations of the last two at the same moment cannot both pass.
 */
export async function deactivateUser(db: Kysely<DB>, actor: Actor, profileId: number): Promise<void> {
  requireAny(actor, ...WRITERS)
  await inTransaction(db, async (tx) => {
    const owner = await writes.userOfProfile(tx, actor.tenantId, profileId)
    if (owner === undefined) throw notFound(`No user ${profileId}.`)
    if (owner.user_id === actor.userId) throw conflict('You cannot deactivate yourself; ask another administrator.')
    await enforceContainment(tx, actor, { action: 'deactivate', targetUserId: owner.user_id })
    const superusers = await writes.lockActiveSuperusers(tx, actor.tenantId)
    if (superusers.length === 1 && superusers[0] === owner.user_id) throw new LastSuperuser()
    const changed = await writes.deactivateUser(tx, actor.tenantId, owner.user_id, actor.userId)
    await endUserSessions(tx, actor.tenantId, owner.user_id)
    // A delegatee must be active: those who delegated to this user are no longer away for approvals.
    const delegators = await endDelegationsTo(tx, actor.tenantId, owner.user_id)
    await audit(tx, actor, {
      action: 'user.deactivate',
      resourceType: 'user',
      resourceId: owner.user_id,
      changes: { is_active: false },
    })
    if (changed)
      await recordEvent(
        tx,
        actor.tenantId,
        'user.deactivated',
        toProfile((await repo.findProfile(tx, actor.tenantId, profileId))!),
      )
    for (const profile of await repo.profilesOfUsers(tx, actor.tenantId, delegators))
      await recordEvent(tx, actor.tenantId, 'user.updated', toProfile(profile))
  })
}

/** Users with this e-mail (case-insensitively), in `domain` or in every tenant: the operator names people by e-mail. */
export const findUsersByEmail = repo.usersByEmail

/**
 * A new company's first administrator, made by `tenants create` in the tenant's creating transaction (there is
 * no actor yet to check permissions against: the operator is making the company). Returns the user id.
 */
export async function addFirstAdministrator(tx: Kysely<DB>, tenantId: number, user: writes.NewUser): Promise<number> {
  const [userId] = await writes.insertUsers(tx, tenantId, [user], null)
  return userId!
}

export { emailProblems, nameProblem } from './rules.ts'

/** Profile ids → user ids, for the profiles that are the tenant's (approval rules name approvers, SCIM group members by profile). */
export const usersOfProfiles = (db: Kysely<DB>, tenantId: number, profileIds: number[]) =>
  repo.usersOfProfiles(db, tenantId, profileIds)
