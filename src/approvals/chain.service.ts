/**
 * The approval chain a document goes through, planned when it is submitted (DECISIONS, "Purchase requests and
 * approvals"): the active rules of its type matching its location with `min_total` ≤ its total in the base
 * currency (÷ its currency's rate, half-up) form the chain, grouped by step, ascending; each step's candidates
 * are its approvers who hold `nav_approval` at the location, minus the submitter. A step with no candidate is
 * refused (409) with a sentence naming the step, the location and what an administrator must do.
 *
 * Steps come from sources, in chain order; `draftChain` lists them. A source that must run before the rules'
 * steps (a budget's) puts its steps first and the rules' steps are numbered after it (`after`).
 */
import type { Kysely } from 'kysely'
import { holdersAt } from '../access/location-permissions.ts'
import { toBase } from '../core/decimal.ts'
import { conflict } from '../core/problem.ts'
import type { DB, DocumentType, PermissionKey, PlannedStep } from '../db/schema.ts'
import * as repo from './rules.repository.ts'

/** The document whose chain is planned. */
export interface ChainDocument {
  /** What it is (its rules are those of this type); default `request`. */
  document?: DocumentType
  locationId: number
  /** Its total, in its own currency. */
  total: string
  /** Its currency's id: the total is converted to the base currency (÷ rate) before it meets `min_total`. */
  currencyId?: number
  /** Who submits it: never a candidate of its own chain. */
  requesterId: number
}

/** A step as planned, before it is refused or kept: its candidates may be none. */
export interface DraftStep extends PlannedStep {
  /** The people named for it (user ids) before the permission and the submitter were taken out. */
  approvers: number[]
  /** Where the step comes from, for the sentence that refuses it: `rules` (approval rules) or another source. */
  source: 'rules' | (string & {})
}

/** `steps` numbered after `before`'s last step (their order kept). */
export const after = (before: readonly DraftStep[], steps: readonly DraftStep[]): DraftStep[] => {
  const last = before.at(-1)?.step ?? 0
  return last === 0 ? [...steps] : steps.map((s, i) => ({ ...s, step: last + i + 1 }))
}

/** The document's total in the base currency (unchanged without a currency or in the base currency itself). */
async function baseTotal(db: Kysely<DB>, tenantId: number, doc: ChainDocument): Promise<string> {
  if (doc.currencyId === undefined) return doc.total
  const rate = await repo.currencyRate(db, tenantId, doc.currencyId)
  return rate === undefined ? doc.total : toBase(doc.total, rate)
}

/** The steps of the document's approval rules, one per distinct rule step, ascending, each with its candidates. */
async function ruleSteps(db: Kysely<DB>, tenantId: number, doc: ChainDocument): Promise<DraftStep[]> {
  const total = await baseTotal(db, tenantId, doc)
  const rules = await repo.matchingRules(db, tenantId, doc.document ?? 'request', doc.locationId, total)
  const byStep = new Map<number, Set<number>>()
  for (const rule of rules) {
    const set = byStep.get(rule.step) ?? new Set<number>()
    for (const user of rule.approver_users) set.add(user)
    byStep.set(rule.step, set)
  }
  const steps: DraftStep[] = []
  for (const [step, named] of [...byStep].sort(([a], [b]) => a - b)) {
    const approvers = [...named]
    const holders = await holdersAt(db, tenantId, approvers, doc.locationId, 'nav_approval')
    const candidates = [...holders].filter((id) => id !== doc.requesterId).sort((a, b) => a - b)
    steps.push({ step, candidates, approvers, source: 'rules' })
  }
  return steps
}

/**
 * Every step the document would go through if it were submitted now, in order, each with its candidates (none
 * for a step that would be refused). Sources in chain order: the approval rules' steps.
 */
export async function draftChain(db: Kysely<DB>, tenantId: number, doc: ChainDocument): Promise<DraftStep[]> {
  return ruleSteps(db, tenantId, doc)
}

const DOCUMENT_NAMES: Record<string, string> = {
  request: 'request',
  purchase_order: 'order',
  bill: 'bill',
  expense_report: 'expense report',
  travel_request: 'travel request',
  payment_request: 'payment request',
  payment_run: 'payment run',
}

/** How a sentence names a document of this type: `the request`, `the order`, `the expense report`. */
export const documentName = (type: DocumentType = 'request'): string => DOCUMENT_NAMES[type] ?? type.replace('_', ' ')

/** The sentence refusing a step with no candidate: the step, the location and what an administrator must do. */
export async function noCandidate(
  db: Kysely<DB>,
  tenantId: number,
  doc: ChainDocument,
  step: DraftStep,
): Promise<string> {
  const where = (await repo.locationName(db, tenantId, doc.locationId)) ?? `location ${doc.locationId}`
  const permission: PermissionKey = step.permission ?? 'nav_approval'
  const name = documentName(doc.document)
  const fix =
    step.source === 'rules'
      ? `An administrator must grant ${permission} at ${where} to one of the step's approvers other than the ` +
        `submitter, or change the ${name} approval rules of step ${step.step}.`
      : `An administrator must grant ${permission} at ${where} to someone other than the submitter.`
  return (
    `Step ${step.step} of the approval chain has no candidate at ${where}: nobody it names, other than the ` +
    `submitter, is an active user holding ${permission} there. ${fix} The ${name} stays as it was.`
  )
}

/**
 * The chain for a document (the rules of its type): one planned step per step, ascending, each with its
 * candidates (user ids). Empty when no rule matches. 409 naming the step, the location and the fix when a step
 * is left with no candidate.
 */
export async function planChain(db: Kysely<DB>, tenantId: number, doc: ChainDocument): Promise<PlannedStep[]> {
  const steps = await draftChain(db, tenantId, doc)
  const empty = steps.find((s) => s.candidates.length === 0)
  if (empty !== undefined) throw conflict(await noCandidate(db, tenantId, doc, empty))
  return steps.map(({ step, candidates, permission }) =>
    permission === undefined ? { step, candidates } : { step, candidates, permission },
  )
}
