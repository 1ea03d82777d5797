/**
 * Approval rules (superuser or nav_setting to manage them; any user of the tenant may read them). A rule is
 * checked when saved: each approver must hold `nav_approval` at its location (a rule of every location: at one
 * location at least), else 400 naming each approver and the location. The chains the rules drive are planned
 * in chain.service.ts.
 */
import { usersOfProfiles } from '../users/service.ts'
import type { Kysely } from 'kysely'
import { requireAny, type Actor } from '../access/actor.ts'
import { holdersAt } from '../access/location-permissions.ts'
import { audit } from '../audit/service.ts'
import { trimDecimal } from '../core/decimal.ts'
import type { Page } from '../core/list-query.ts'
import { notFound, validationFailed, type FieldErrors } from '../core/problem.ts'
import type { DB } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import * as repo from './rules.repository.ts'
import type { ApprovalRule, ApprovalRuleInput, ApprovalRuleListQuery } from './schema.ts'

export { planChain } from './chain.service.ts'

const MANAGERS = ['superuser', 'nav_setting'] as const

const toRule = (row: repo.RuleRow): ApprovalRule => ({
  id: row.id,
  location: row.location_id,
  min_total: trimDecimal(row.min_total),
  step: row.step,
  approvers: row.approvers,
  active: row.active,
  document: row.document,
})

export async function listRules(
  db: Kysely<DB>,
  actor: Actor,
  query: ApprovalRuleListQuery,
): Promise<Page<ApprovalRule>> {
  requireAny(actor, ...MANAGERS)
  const page = await repo.pageOfRules(db, actor.tenantId, query)
  return { ...page, rows: page.rows.map(toRule) }
}

export async function getRule(db: Kysely<DB>, actor: Actor, id: number): Promise<ApprovalRule> {
  requireAny(actor, ...MANAGERS)
  const row = await repo.findRule(db, actor.tenantId, id)
  if (row === undefined) throw notFound(`No approval rule ${id}.`)
  return toRule(row)
}

/** The rule's columns, its approvers turned from profile ids into user ids; 400 naming what does not exist. */
async function valuesOf(db: Kysely<DB>, actor: Actor, input: ApprovalRuleInput): Promise<repo.RuleValues> {
  const errors: FieldErrors = {}
  const location = input.location ?? null
  if (location !== null && input.document === 'payment_run')
    errors.location = ['must be left out (null): a payment run is tenant-wide, so its rules apply at every location']
  else if (location !== null && !(await repo.locationExists(db, actor.tenantId, location)))
    errors.location = [`no location ${location}`]
  const approvers = [...new Set(input.approvers)]
  const users = await usersOfProfiles(db, actor.tenantId, approvers)
  approvers.forEach((id) => {
    if (!users.has(id)) (errors.approvers ??= []).push(`no user ${id}`)
  })
  if (Object.keys(errors).length > 0) throw validationFailed(errors)
  const userIds = approvers.map((id) => users.get(id)!)
  await requireApproversHold(db, actor.tenantId, location, userIds)
  return {
    location_id: location,
    min_total: input.min_total ?? '0',
    step: input.step,
    approvers: userIds,
    active: input.active ?? true,
    document: input.document ?? 'request',
  }
}

/**
 * 400 naming each approver (user ids) who cannot decide the rule's steps: one not holding `nav_approval` at
 * `location` (null, every location: at no location at all) or not active.
 */
async function requireApproversHold(db: Kysely<DB>, tenantId: number, location: number | null, userIds: number[]) {
  let missing = [...userIds]
  for (const at of location === null ? await repo.locationIds(db, tenantId) : [location]) {
    if (missing.length === 0) break
    const holders = await holdersAt(db, tenantId, missing, at, 'nav_approval')
    missing = missing.filter((id) => !holders.has(id))
  }
  if (missing.length === 0) return
  const names = await repo.userNames(db, tenantId, missing)
  const where =
    location === null ? 'any location' : ((await repo.locationName(db, tenantId, location)) ?? `location ${location}`)
  const lines = missing.map(
    (id) => `${names.get(id) ?? `user ${id}`} holds no nav_approval at ${where} (or is not active)`,
  )
  throw validationFailed(
    { approvers: lines },
    `Every approver must hold nav_approval at ${where}: ${lines.join('; ')}. Grant nav_approval ` +
      `${location === null ? 'at a location' : 'there'} to each of them (Set-up, users) or choose other approvers; ` +
      'the rule was not saved.',
  )
}

export async function createRule(db: Kysely<DB>, actor: Actor, input: ApprovalRuleInput): Promise<ApprovalRule> {
  requireAny(actor, ...MANAGERS)
  return inTransaction(db, async (tx) => {
    const id = await repo.insertRule(tx, actor.tenantId, await valuesOf(tx, actor, input))
    await audit(tx, actor, {
      action: 'approval_rule.create',
      resourceType: 'approval_rule',
      resourceId: id,
      changes: input,
    })
    return toRule((await repo.findRule(tx, actor.tenantId, id))!)
  })
}

export async function replaceRule(
  db: Kysely<DB>,
  actor: Actor,
  id: number,
  input: ApprovalRuleInput,
): Promise<ApprovalRule> {
  requireAny(actor, ...MANAGERS)
  return inTransaction(db, async (tx) => {
    if ((await repo.findRule(tx, actor.tenantId, id)) === undefined) throw notFound(`No approval rule ${id}.`)
    await repo.updateRule(tx, actor.tenantId, id, await valuesOf(tx, actor, input))
    await audit(tx, actor, {
      action: 'approval_rule.replace',
      resourceType: 'approval_rule',
      resourceId: id,
      changes: input,
    })
    return toRule((await repo.findRule(tx, actor.tenantId, id))!)
  })
}

export async function deleteRule(db: Kysely<DB>, actor: Actor, id: number): Promise<void> {
  requireAny(actor, ...MANAGERS)
  await inTransaction(db, async (tx) => {
    if (!(await repo.deleteRule(tx, actor.tenantId, id))) throw notFound(`No approval rule ${id}.`)
    await audit(tx, actor, { action: 'approval_rule.delete', resourceType: 'approval_rule', resourceId: id })
  })
}
