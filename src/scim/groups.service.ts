/**
 * SCIM Groups: the identity provider's groups and their members. A group grants nothing by itself: Single
 * sign-on's `group_roles` maps its name to roles, which its members get and lose as they join and leave
 * (sso/grants.service.ts), with a `user.updated` event whenever someone's roles change.
 */
import { usersOfProfiles } from '../users/service.ts'
import type { Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import { audit } from '../audit/service.ts'
import type { DB } from '../db/schema.ts'
import { syncGroupRoles } from '../sso/grants.service.ts'
import { nameProblem } from '../users/service.ts'
import { GROUP_SCHEMA, listOf } from './discovery.ts'
import { invalidValue, isUniqueViolation, scimNotFound, uniqueness } from './errors.ts'
import type { Equality } from './filter.ts'
import { applyPatch } from './patch.ts'
import * as repo from './repository.ts'

type Json = Record<string, unknown>
type Member = { id: number; email: string; user_id: number }

const groupResource = (base: string, row: repo.GroupRow, members: Member[] | undefined) => ({
  schemas: [GROUP_SCHEMA],
  id: String(row.id),
  ...(row.external_id === null ? {} : { externalId: row.external_id }),
  displayName: row.display_name,
  ...(members === undefined
    ? {}
    : { members: members.map((m) => ({ value: String(m.id), display: m.email, $ref: `${base}/Users/${m.id}` })) }),
  meta: {
    resourceType: 'Group',
    created: row.created_at.toISOString(),
    lastModified: row.updated_at.toISOString(),
    location: `${base}/Groups/${row.id}`,
  },
})
type GroupResource = ReturnType<typeof groupResource>

const idOf = (id: string) => (/^[1-9][0-9]{0,9}$/.test(id) && Number(id) <= 2147483647 ? Number(id) : undefined)

async function findGroup(db: Kysely<DB>, actor: Actor, id: string) {
  const groupId = idOf(id)
  const row = groupId === undefined ? undefined : await repo.findGroup(db, actor.tenantId, groupId)
  if (row === undefined) throw scimNotFound(`No group ${id}.`)
  return row
}

export async function getScimGroup(db: Kysely<DB>, actor: Actor, base: string, id: string, withMembers = true) {
  const row = await findGroup(db, actor, id)
  const members = withMembers ? ((await repo.membersOf(db, actor.tenantId, [row.id])).get(row.id) ?? []) : undefined
  return groupResource(base, row, members)
}

export async function listScimGroups(
  db: Kysely<DB>,
  actor: Actor,
  base: string,
  filter: Equality | undefined,
  paging: repo.Paging,
  withMembers: boolean,
) {
  const { total, rows } = await repo.listGroups(db, actor.tenantId, filter, paging)
  const members = withMembers
    ? await repo.membersOf(
        db,
        actor.tenantId,
        rows.map((r) => r.id),
      )
    : undefined
  return listOf(
    rows.map((r) => groupResource(base, r, members === undefined ? undefined : (members.get(r.id) ?? []))),
    paging.startIndex,
    total,
  )
}

interface DesiredGroup {
  name: string
  externalId: string | null | undefined
  /** User ids; undefined: members unchanged. */
  members: number[] | undefined
}

async function desiredOf(tx: Kysely<DB>, actor: Actor, body: Json): Promise<DesiredGroup> {
  const name = typeof body.displayName === 'string' ? body.displayName.trim() : ''
  if (name === '') throw invalidValue('displayName is required.')
  if (name.length > 256) throw invalidValue('displayName must be at most 256 characters.')
  const problem = nameProblem(name)
  if (problem !== undefined) throw invalidValue(`displayName ${problem}.`)
  const external = body.externalId
  if (external !== undefined && external !== null && typeof external !== 'string')
    throw invalidValue('externalId must be a string.')
  if (body.members === undefined || body.members === null) return { name, externalId: external, members: undefined }
  if (!Array.isArray(body.members)) throw invalidValue('members must be a list of {"value": "<user id>"}.')
  const ids = body.members.map((m: unknown) => {
    const value = (m as { value?: unknown } | null)?.value
    const id = typeof value === 'string' || typeof value === 'number' ? idOf(String(value)) : undefined
    if (id === undefined) throw invalidValue(`members: ${JSON.stringify(value ?? null)} is not a user id.`)
    return id
  })
  const users = await usersOfProfiles(tx, actor.tenantId, [...new Set(ids)])
  const unknown = ids.filter((id) => !users.has(id))
  if (unknown.length > 0) throw invalidValue(`members: there is no user ${unknown.join(', ')}.`)
  return { name, externalId: external, members: [...new Set(ids.map((id) => users.get(id)!))] }
}

/** Writes a group's name and members; re-applies group roles to everyone whose groups changed. */
async function store(tx: Kysely<DB>, actor: Actor, groupId: number, wanted: DesiredGroup, before?: repo.GroupRow) {
  const other = await repo.groupByName(tx, actor.tenantId, wanted.name)
  if (other !== undefined && other.id !== groupId) throw uniqueness(`A group named ${wanted.name} already exists.`)
  const externalId = wanted.externalId === undefined ? (before?.external_id ?? null) : wanted.externalId
  const renamed = before !== undefined && (before.display_name !== wanted.name || before.external_id !== externalId)
  if (renamed) await repo.updateGroup(tx, actor.tenantId, groupId, wanted.name, externalId)
  const members = (await repo.membersOf(tx, actor.tenantId, [groupId])).get(groupId) ?? []
  const change =
    wanted.members === undefined
      ? { joined: [], left: [] }
      : await repo.replaceMembers(tx, actor.tenantId, groupId, wanted.members)
  if (before === undefined || renamed || change.joined.length > 0 || change.left.length > 0)
    await audit(tx, actor, {
      action: before === undefined ? 'scim_group.create' : 'scim_group.update',
      resourceType: 'scim_group',
      resourceId: groupId,
      changes: { display_name: wanted.name, external_id: externalId, joined: change.joined, left: change.left },
    })
  // A renamed group may now map to other roles: all its members; otherwise those who joined or left.
  const affected = new Set([...change.joined, ...change.left, ...(renamed ? members.map((m) => m.user_id) : [])])
  for (const userId of affected) await syncGroupRoles(tx, actor, userId)
}

export async function createScimGroup(db: Kysely<DB>, actor: Actor, base: string, body: Json): Promise<GroupResource> {
  let name = ''
  // Identical creates at the same moment all pass the look-up; the unique index lets one insert, the others lose.
  const id = await db
    .transaction()
    .execute(async (tx) => {
      const wanted = await desiredOf(tx, actor, body)
      name = wanted.name
      if ((await repo.groupByName(tx, actor.tenantId, wanted.name)) !== undefined)
        throw uniqueness(`A group named ${wanted.name} already exists.`)
      const row = await repo.insertGroup(tx, actor.tenantId, wanted.name, wanted.externalId ?? null)
      await store(tx, actor, row.id, wanted)
      return row.id
    })
    .catch(async (error: unknown) => {
      if (isUniqueViolation(error) && (await repo.groupByName(db, actor.tenantId, name)) !== undefined)
        throw uniqueness(`A group named ${name} already exists.`)
      throw error
    })
  return getScimGroup(db, actor, base, String(id))
}

export async function replaceScimGroup(db: Kysely<DB>, actor: Actor, base: string, id: string, body: Json) {
  await db.transaction().execute(async (tx) => {
    const before = await findGroup(tx, actor, id)
    if (body.id !== undefined && (typeof body.id === 'number' ? String(body.id) : body.id) !== id)
      throw invalidValue('id cannot be changed.')
    const wanted = await desiredOf(tx, actor, body)
    // PUT replaces the group: no members listed means none, no externalId means none.
    await store(
      tx,
      actor,
      before.id,
      { ...wanted, externalId: wanted.externalId ?? null, members: wanted.members ?? [] },
      before,
    )
  })
  return getScimGroup(db, actor, base, id)
}

export async function patchScimGroup(db: Kysely<DB>, actor: Actor, base: string, id: string, body: unknown) {
  await db.transaction().execute(async (tx) => {
    const current = await getScimGroup(tx, actor, base, id)
    const before = await findGroup(tx, actor, id)
    const withMembers = { ...current, members: current.members ?? [] }
    const after = applyPatch(withMembers, body)
    const wanted = await desiredOf(tx, actor, { ...after, members: after.members ?? [] })
    // The patched group is the whole group: an externalId it lacks was removed.
    await store(tx, actor, before.id, { ...wanted, externalId: wanted.externalId ?? null }, before)
  })
  return getScimGroup(db, actor, base, id)
}

export async function deleteScimGroup(db: Kysely<DB>, actor: Actor, id: string): Promise<void> {
  await db.transaction().execute(async (tx) => {
    const row = await findGroup(tx, actor, id)
    const members = (await repo.membersOf(tx, actor.tenantId, [row.id])).get(row.id) ?? []
    await repo.deleteGroup(tx, actor.tenantId, row.id)
    await audit(tx, actor, { action: 'scim_group.delete', resourceType: 'scim_group', resourceId: row.id })
    for (const m of members) await syncGroupRoles(tx, actor, m.user_id)
  })
}
