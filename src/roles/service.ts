/**
 * Roles through the API (DECISIONS, "Roles and grants through the API"): superuser or nav_setting, under
 * containment — a role may carry only permissions its writer holds, and a role that carries more than its
 * writer holds (e.g. a superuser role) cannot be changed or deleted by them. A role in use (a profile's
 * role or a grant) cannot be deleted: 409.
 */
import type { Kysely } from 'kysely'
import { requireAny, type Actor } from '../access/actor.ts'
import { requireMayGrant } from '../access/containment.ts'
import { audit } from '../audit/service.ts'
import { conflict, notFound } from '../core/problem.ts'
import type { DB } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import * as repo from './repository.ts'
import type { Role, RoleInput } from './schema.ts'

const WRITERS = ['superuser', 'nav_setting'] as const

const toRole = (row: repo.RoleRow): Role => ({ ...row, permissions: [...row.permissions] })

const fieldsOf = (input: RoleInput) => ({ name: input.name.trim(), type: input.type ?? 0, tier: input.tier ?? 'Basic' })

/** One role by id: like every role route beyond the look-up list, `superuser` or `nav_setting` (DECISIONS). */
export async function getRole(db: Kysely<DB>, actor: Actor, id: number): Promise<Role> {
  requireAny(actor, ...WRITERS)
  const row = await repo.findRole(db, actor.tenantId, id)
  if (row === undefined) throw notFound(`No role ${id}.`)
  return toRole(row)
}

async function checkName(db: Kysely<DB>, actor: Actor, name: string, exceptId?: number) {
  if (await repo.nameTaken(db, actor.tenantId, name, exceptId))
    throw conflict(`The tenant already has a role named ${name}; choose another name, or edit that role.`)
}

export async function createRole(db: Kysely<DB>, actor: Actor, input: RoleInput): Promise<Role> {
  requireAny(actor, ...WRITERS)
  const fields = fieldsOf(input)
  requireMayGrant(actor, [{ role: fields.name, permissions: input.permissions }])
  return inTransaction(db, async (tx) => {
    await checkName(tx, actor, fields.name)
    const id = await repo.insertRole(tx, actor.tenantId, fields)
    await repo.setPermissions(tx, actor.tenantId, id, input.permissions)
    await audit(tx, actor, { action: 'role.create', resourceType: 'role', resourceId: id, changes: input })
    return toRole((await repo.findRole(tx, actor.tenantId, id))!)
  })
}

export async function replaceRole(db: Kysely<DB>, actor: Actor, id: number, input: RoleInput): Promise<Role> {
  requireAny(actor, ...WRITERS)
  const fields = fieldsOf(input)
  return inTransaction(db, async (tx) => {
    const current = await repo.findRole(tx, actor.tenantId, id, true)
    if (current === undefined) throw notFound(`No role ${id}.`)
    requireMayGrant(actor, [
      { role: current.name, permissions: current.permissions },
      { role: fields.name, permissions: input.permissions },
    ])
    await checkName(tx, actor, fields.name, id)
    await repo.updateRole(tx, actor.tenantId, id, fields)
    await repo.setPermissions(tx, actor.tenantId, id, input.permissions)
    await audit(tx, actor, { action: 'role.replace', resourceType: 'role', resourceId: id, changes: input })
    return toRole((await repo.findRole(tx, actor.tenantId, id))!)
  })
}

export async function deleteRole(db: Kysely<DB>, actor: Actor, id: number): Promise<void> {
  requireAny(actor, ...WRITERS)
  await inTransaction(db, async (tx) => {
    const current = await repo.findRole(tx, actor.tenantId, id, true)
    if (current === undefined) throw notFound(`No role ${id}.`)
    requireMayGrant(actor, [{ role: current.name, permissions: current.permissions }])
    const used = await repo.uses(tx, actor.tenantId, id)
    if (used.profiles + used.grants > 0)
      throw conflict(
        `The role ${JSON.stringify(current.name)} is in use (${used.profiles} user${used.profiles === 1 ? '' : 's'}, ` +
          `${used.grants} grant${used.grants === 1 ? '' : 's'}); give them another role first.`,
      )
    await repo.deleteRole(tx, actor.tenantId, id)
    await audit(tx, actor, { action: 'role.delete', resourceType: 'role', resourceId: id })
  })
}
