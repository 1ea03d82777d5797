/**
 * SCIM Users on the users service: created, renamed, deactivated and re-activated through the same rules as
 * the API (e-mail and name rules, audit, `user.*` events), acting for the tenant's owner. `id` is the profile
 * id of `/api/v3/users/{id}/`; `userName` is the e-mail; `DELETE` and `active: false` deactivate, never delete.
 */
import type { Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import { audit } from '../audit/service.ts'
import { Problem } from '../core/problem.ts'
import { emailKey } from '../db/email.ts'
import type { DB } from '../db/schema.ts'
import { configOfTenant } from '../sso/service.ts'
import { activateUser } from '../users/grants.service.ts'
import { editUser } from '../users/manage.service.ts'
import {
  createOne,
  deactivateUser,
  EMAIL_TAKEN,
  emailProblems,
  getUser,
  LastSuperuser,
  nameProblem,
} from '../users/service.ts'
import { listOf, USER_SCHEMA } from './discovery.ts'
import { invalidValue, isUniqueViolation, mutability, scimNotFound, uniqueness } from './errors.ts'
import type { Equality } from './filter.ts'
import { applyPatch } from './patch.ts'
import * as repo from './repository.ts'

type Json = Record<string, unknown>

const userResource = (base: string, row: repo.UserRow, groups: { id: number; display_name: string }[]) => {
  const display = `${row.first_name} ${row.last_name}`.trim()
  return {
    schemas: [USER_SCHEMA],
    id: String(row.id),
    ...(row.external_id === null ? {} : { externalId: row.external_id }),
    userName: row.email,
    name: { givenName: row.first_name, familyName: row.last_name, formatted: display },
    displayName: display,
    emails: [{ value: row.email, type: 'work', primary: true }],
    active: row.is_active,
    groups: groups.map((g) => ({ value: String(g.id), display: g.display_name, $ref: `${base}/Groups/${g.id}` })),
    meta: {
      resourceType: 'User',
      created: row.created_at.toISOString(),
      lastModified: row.updated_at.toISOString(),
      location: `${base}/Users/${row.id}`,
    },
  }
}
export type UserResource = ReturnType<typeof userResource>

/** What the provider wants the person to be. */
interface Desired {
  email: string
  firstName: string
  lastName: string
  active: boolean
  externalId: string | null | undefined
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value.trim() : undefined)

/** `true`/`false`, also as the strings Entra sends ("False"). */
function booleanOf(value: unknown, field: string): boolean {
  if (typeof value === 'boolean') return value
  if (typeof value === 'string' && /^(true|false)$/i.test(value.trim())) return value.trim().toLowerCase() === 'true'
  throw invalidValue(`${field} must be true or false.`)
}

function primaryEmail(emails: unknown): string | undefined {
  if (!Array.isArray(emails)) return undefined
  const list = emails.filter((e): e is Json => typeof e === 'object' && e !== null)
  return text((list.find((e) => e.primary === true) ?? list[0])?.value)
}

/** The person a body (POST, PUT, or the resource after a PATCH) describes; `before` is the stored one. */
function desiredOf(body: Json, before?: UserResource): Desired {
  let email = text(body.userName)
  // userName is the e-mail; a PATCH that changed only the work e-mail (Entra) changes it as well.
  const mailed = primaryEmail(body.emails)
  if (before !== undefined && email === before.userName && mailed !== undefined && mailed !== before.emails[0]!.value)
    email = mailed
  if (email === undefined || email === '') throw invalidValue('userName is required: the e-mail address of the person.')
  const problems = emailProblems(email)
  if (problems.length > 0) throw invalidValue(`userName ${problems.join(', ')} (userName is the e-mail address).`)
  const name = (typeof body.name === 'object' && body.name !== null ? body.name : {}) as Json
  const display = text(body.displayName)
  const local = email.slice(0, email.lastIndexOf('@'))
  const firstName = text(name.givenName) || display?.split(/\s+/)[0] || local
  const lastName = text(name.familyName) ?? (display?.split(/\s+/).slice(1).join(' ') || '')
  for (const [field, value] of [
    ['name.givenName', firstName],
    ['name.familyName', lastName],
  ] as const) {
    const problem = nameProblem(value)
    if (problem !== undefined) throw invalidValue(`${field} ${problem}.`)
    if (value.length > 100) throw invalidValue(`${field} must be at most 100 characters.`)
  }
  const external = body.externalId
  if (external !== undefined && external !== null && typeof external !== 'string')
    throw invalidValue('externalId must be a string.')
  if (typeof external === 'string' && external.length > 500)
    throw invalidValue('externalId must be at most 500 characters.')
  return {
    email,
    firstName,
    lastName,
    active: body.active === undefined ? (before?.active ?? true) : booleanOf(body.active, 'active'),
    externalId: external,
  }
}

/**
 * The users service's 400s in SCIM's words (its field names are the API's). An e-mail another user has — one
 * taken by a concurrent request after this one looked — is SCIM's 409 `uniqueness`.
 */
async function translated<T>(email: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (!(error instanceof Problem) || error.status !== 400) throw error
    const errors = [error.extra.errors ?? {}].flat()[0] ?? {}
    if (errors.email?.includes(EMAIL_TAKEN) === true) throw uniqueness(`A user with userName ${email} already exists.`)
    const fields = Object.entries(errors)
      .map(
        ([f, m]) =>
          `${{ email: 'userName', firstName: 'name.givenName', lastName: 'name.familyName' }[f] ?? f} ${m.join(', ')}`,
      )
      .join('; ')
    throw invalidValue(fields === '' ? error.detail : `${fields}.`)
  }
}

/** Deactivates through the users service; the tenant's last active superuser stays, as SCIM says it (400 `mutability`). */
async function deactivate(db: Kysely<DB>, actor: Actor, profileId: number): Promise<void> {
  try {
    await deactivateUser(db, actor, profileId)
  } catch (error) {
    throw error instanceof LastSuperuser ? mutability(error.detail) : error
  }
}

export async function getScimUser(db: Kysely<DB>, actor: Actor, base: string, id: string): Promise<UserResource> {
  const profileId = /^[1-9][0-9]{0,9}$/.test(id) ? Number(id) : 0
  const row = profileId > 2147483647 || profileId === 0 ? undefined : await repo.findUser(db, actor.tenantId, profileId)
  if (row === undefined) throw scimNotFound(`No user ${id}.`)
  const groups = await repo.groupsOfUsers(db, actor.tenantId, [row.user_id])
  return userResource(base, row, groups.get(row.user_id) ?? [])
}

export async function listScimUsers(
  db: Kysely<DB>,
  actor: Actor,
  base: string,
  filter: Equality | undefined,
  paging: repo.Paging,
) {
  const { total, rows } = await repo.listUsers(db, actor.tenantId, filter, paging)
  const groups = await repo.groupsOfUsers(
    db,
    actor.tenantId,
    rows.map((r) => r.user_id),
  )
  return listOf(
    rows.map((r) => userResource(base, r, groups.get(r.user_id) ?? [])),
    paging.startIndex,
    total,
  )
}

export async function createScimUser(db: Kysely<DB>, actor: Actor, base: string, body: Json): Promise<UserResource> {
  const wanted = desiredOf(body)
  const taken = () => uniqueness(`A user with userName ${wanted.email} already exists.`)
  // Identical creates at the same moment all pass the look-up; the unique index lets one insert, the others lose.
  const profileId = await db
    .transaction()
    .execute(async (tx) => {
      if ((await repo.userByEmail(tx, actor.tenantId, wanted.email)) !== undefined) throw taken()
      const config = await configOfTenant(tx, actor.tenantId)
      const role = config?.default_role_id ?? null
      const profile = await translated(wanted.email, () =>
        createOne(
          tx,
          actor,
          {
            email: wanted.email,
            firstName: wanted.firstName,
            lastName: wanted.lastName,
            location: null,
            department: null,
            is_sso_enabled: true,
            ...(role === null ? {} : { role_id: role }),
          },
          '',
        ),
      )
      if (wanted.externalId !== undefined) await repo.setExternalId(tx, actor.tenantId, profile.user, wanted.externalId)
      if (!wanted.active) await deactivate(tx, actor, profile.id)
      return profile.id
    })
    .catch(async (error: unknown) => {
      if (isUniqueViolation(error) && (await repo.userByEmail(db, actor.tenantId, wanted.email)) !== undefined)
        throw taken()
      throw error
    })
  return getScimUser(db, actor, base, String(profileId))
}

/** Makes the stored person what `wanted` says (PUT, and PATCH after its operations). */
async function applyDesired(db: Kysely<DB>, actor: Actor, before: UserResource, wanted: Desired): Promise<void> {
  const profileId = Number(before.id)
  await db.transaction().execute(async (tx) => {
    const current = await getUser(tx, actor, profileId)
    if (emailKey(wanted.email) !== emailKey(before.userName)) {
      const other = await repo.userByEmail(tx, actor.tenantId, wanted.email)
      if (other !== undefined && other.id !== profileId)
        throw uniqueness(`A user with userName ${wanted.email} already exists.`)
    }
    const renamed =
      wanted.email !== before.userName || wanted.firstName !== current.firstName || wanted.lastName !== current.lastName
    if (renamed)
      await translated(wanted.email, () =>
        editUser(tx, actor, profileId, {
          email: wanted.email,
          firstName: wanted.firstName,
          lastName: wanted.lastName,
          location: current.location?.id ?? null,
          department: current.department?.id ?? null,
          phone: current.phone,
          position: current.position,
        }),
      )
    // PUT replaces the resource and PATCH yields the whole of it: an externalId it lacks is cleared.
    const externalId = wanted.externalId ?? null
    if (externalId !== (before.externalId ?? null)) {
      await repo.setExternalId(tx, actor.tenantId, current.user, externalId)
      await audit(tx, actor, {
        action: 'user.external_id',
        resourceType: 'user',
        resourceId: current.user,
        changes: { external_id: externalId },
      })
    }
    if (wanted.active !== before.active) {
      if (wanted.active) await activateUser(tx, actor, profileId)
      else await deactivate(tx, actor, profileId)
    }
  })
}

export async function replaceScimUser(db: Kysely<DB>, actor: Actor, base: string, id: string, body: Json) {
  const before = await getScimUser(db, actor, base, id)
  if (body.id !== undefined && (typeof body.id === 'number' ? String(body.id) : body.id) !== before.id)
    throw invalidValue('id cannot be changed.')
  await applyDesired(db, actor, before, desiredOf(body, before))
  return getScimUser(db, actor, base, id)
}

export async function patchScimUser(db: Kysely<DB>, actor: Actor, base: string, id: string, body: unknown) {
  const before = await getScimUser(db, actor, base, id)
  const after = applyPatch(before, body)
  await applyDesired(db, actor, before, desiredOf(after, before))
  return getScimUser(db, actor, base, id)
}

export async function deactivateScimUser(db: Kysely<DB>, actor: Actor, base: string, id: string): Promise<void> {
  const before = await getScimUser(db, actor, base, id)
  if (before.active) await deactivate(db, actor, Number(before.id))
}
