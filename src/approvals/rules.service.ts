/**
 * Approval rules (superuser or nav_setting to manage them; any user of the tenant may read them) and the
 * routing they drive on submit: the rules matching the location with `min_total` ≤ total form the chain,
 * grouped by step; each step's candidates are its approvers who hold `nav_approval` at the location, minus
 * the requester. A step with no candidate → 409 (the caller leaves the request a draft).
 */
import { usersOfProfiles } from '../users/service.ts'
import type { Kysely } from 'kysely'
import { requireAny, type Actor } from '../access/actor.ts'
import { holdersAt } from '../access/location-permissions.ts'
import { audit } from '../audit/service.ts'
import { trimDecimal } from '../core/decimal.ts'
import type { Page } from '../core/list-query.ts'
import { conflict, notFound, validationFailed, type FieldErrors } from '../core/problem.ts'
import type { DB, DocumentType, PlannedStep } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import * as repo from './rules.repository.ts'
import type { ApprovalRule, ApprovalRuleInput, ApprovalRuleListQuery } from './schema.ts'

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
  if (location !== null && !(await repo.locationExists(db, actor.tenantId, location)))
    errors.location = [`no location ${location}`]
  const approvers = [...new Set(input.approvers)]
  const users = await usersOfProfiles(db, actor.tenantId, approvers)
  approvers.forEach((id) => {
    if (!users.has(id)) (errors.approvers ??= []).push(`no user ${id}`)
  })
  if (Object.keys(errors).length > 0) throw validationFailed(errors)
  return {
    location_id: location,
    min_total: input.min_total ?? '0',
    step: input.step,
    approvers: approvers.map((id) => users.get(id)!),
    active: input.active ?? true,
    document: input.document ?? 'request',
  }
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

/**
 * The chain for a document (the rules of its type): one planned step per distinct rule step, ascending, each
 * with its candidates (user ids). Empty when no rule matches. 409 naming the step when a step is left with no
 * candidate.
 */
export async function planChain(
  db: Kysely<DB>,
  tenantId: number,
  request: { locationId: number; total: string; requesterId: number; document?: DocumentType },
): Promise<PlannedStep[]> {
  const document = request.document ?? 'request'
  const rules = await repo.matchingRules(db, tenantId, document, request.locationId, request.total)
  const byStep = new Map<number, Set<number>>()
  for (const rule of rules) {
    const set = byStep.get(rule.step) ?? new Set<number>()
    for (const user of rule.approver_users) set.add(user)
    byStep.set(rule.step, set)
  }
  const chain: PlannedStep[] = []
  for (const [step, approvers] of [...byStep].sort(([a], [b]) => a - b)) {
    const holders = await holdersAt(db, tenantId, [...approvers], request.locationId, 'nav_approval')
    const candidates = [...holders].filter((id) => id !== request.requesterId).sort((a, b) => a - b)
    if (candidates.length === 0)
      throw conflict(
        `Step ${step} of the approval chain has no candidate: none of its approvers (other than the requester) ` +
          `is an active user holding nav_approval at location ${request.locationId}. The ` +
          (document === 'request' ? 'request stays a draft.' : `${document.replace('_', ' ')} stays as it was.`),
      )
    chain.push({ step, candidates })
  }
  return chain
}
