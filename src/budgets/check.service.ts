/**
 * The budget check of a document's new contribution (DECISIONS, "Checks"), at request submit, order issue and
 * bill submit (and expense or travel submit): the ledger moves the document is about to write (planLedger)
 * are summed per active budget they match; where that sum would take the budget's `available` below zero:
 *
 * - `warn`: it proceeds; the document carries `budget_warnings` (`recordBudgetOutcome` keeps them);
 * - `block`: 409 naming the budget, what is available and what is asked; nothing changes;
 * - `approve`: one extra approval step per such budget, before the rules' steps, ordered by budget id, whose
 *   candidate is the owner (or, when the owner is the submitter, the owner's active delegatee) — never the
 *   submitter; none → 409.
 *
 * The matching budgets are locked (`SELECT … FOR UPDATE`, in id order) before their figures are read, so two
 * documents checked against one budget at the same instant take turns and the second sees the first's entries.
 * `budget.exceeded` is recorded for each budget a document takes below zero or further below it, after its
 * entries are written (`recordBudgetOutcome`).
 */
import type { Kysely } from 'kysely'
import { actorLocationAccess, requireAnyAt } from '../access/location-permissions.ts'
import type { Actor } from '../access/actor.ts'
import { lineAmount, toBase } from '../core/decimal.ts'
import { conflict, Problem, validationFailed } from '../core/problem.ts'
import type { DB, PlannedStep } from '../db/schema.ts'
import { recordEvent } from '../events/service.ts'
import type { LedgerMove } from '../ledger/ledger.service.ts'
import { planDocument, type CountedDocument } from '../ledger/documents.service.ts'
import { fromCents, numericCents } from '../ledger/money.ts'
import * as repo from './repository.ts'
import type { BudgetWarning, CheckInput, CheckResult } from './schema.ts'
import { availableCents, toBudget } from './view.service.ts'

/** Where an amount counts: what a budget is matched against. */
export interface Placed {
  location_id: number
  department_id: number | null
  account_id: number | null
  budget_date: string
  amount: string
}

const matches = (b: repo.BudgetRow, m: Placed) =>
  (b.location_id === null || b.location_id === m.location_id) &&
  (b.department_id === null || b.department_id === m.department_id) &&
  (b.account_id === null || b.account_id === m.account_id) &&
  m.budget_date >= b.period_start &&
  m.budget_date <= b.period_end

/** The active budgets the amounts match, each with the sum (cents) of what matches it. */
async function matched(db: Kysely<DB>, tenantId: number, placed: readonly Placed[]) {
  if (placed.length === 0) return []
  const dates = placed.map((m) => m.budget_date).sort()
  const locations = [...new Set(placed.map((m) => m.location_id))]
  const budgets = await repo.activeBudgets(db, tenantId, dates[0]!, dates.at(-1)!, locations)
  return budgets
    .map((b) => {
      const hits = placed.filter((m) => matches(b, m))
      return { budget: b, hits: hits.length, cents: hits.reduce((s, m) => s + numericCents(m.amount), 0n) }
    })
    .filter((x) => x.hits > 0)
}

/** One budget the document takes below zero. */
interface Exceeded {
  budget: repo.BudgetRow
  available: bigint
  requested: bigint
}

/** What a check found: warnings to keep, approval steps to put first, budgets to record `budget.exceeded` for. */
export interface BudgetOutcome {
  warnings: BudgetWarning[]
  /** The budgets' approval steps, numbered from 1 (put them before the rules' steps with `withBudgetSteps`). */
  steps: PlannedStep[]
  exceeded: number[]
}

const overBy = (available: bigint, requested: bigint) => (requested > available ? requested - available : 0n)

/**
 * Checks the moves a document is about to write against the budgets they match (locking those it adds to).
 * Throws 409 for a `block` budget it would take below zero, or an `approve` budget with no candidate.
 * `submitterId`: the user submitting it (never a candidate). `noun`: how the sentence names the document.
 */
export async function checkBudgets(
  tx: Kysely<DB>,
  tenantId: number,
  moves: readonly LedgerMove[],
  options: { submitterId: number; noun?: string },
): Promise<BudgetOutcome> {
  const noun = options.noun ?? 'document'
  const adds = (await matched(tx, tenantId, moves)).filter((x) => x.cents > 0n)
  const locked = await repo.lockBudgets(
    tx,
    tenantId,
    adds.map((x) => x.budget.id),
  )
  const requested = new Map(adds.map((x) => [x.budget.id, x.cents]))
  const over: Exceeded[] = []
  for (const budget of locked) {
    const available = availableCents(budget)
    const asked = requested.get(budget.id) ?? 0n
    if (available - asked < 0n) over.push({ budget, available, requested: asked })
  }
  const blocked = over.filter((o) => o.budget.action === 'block')
  if (blocked.length > 0) {
    const named = blocked.map(
      (o) =>
        `budget “${o.budget.name}” (id ${o.budget.id}) has ${fromCents(o.available)} available and this ${noun} asks ` +
        `${fromCents(o.requested)}`,
    )
    throw new Problem(
      409,
      'Conflict',
      `The ${noun} would go over a budget that blocks: ${named.join('; ')} (amounts in the base currency). ` +
        `Lower the amounts, or ask the budget's manager to raise it. Nothing was changed.`,
      {
        errors: Object.fromEntries(
          blocked.map((o) => [
            `budgets.${o.budget.id}`,
            [`available ${fromCents(o.available)}, asked ${fromCents(o.requested)}`],
          ]),
        ),
      },
    )
  }
  const steps: PlannedStep[] = []
  for (const o of over.filter((x) => x.budget.action === 'approve')) {
    const owner = o.budget.owner_id!
    let candidate: number | undefined
    if (owner !== options.submitterId && (await repo.activeUser(tx, tenantId, owner))) candidate = owner
    else if (owner === options.submitterId) {
      const delegatee = await repo.activeDelegatee(tx, tenantId, owner)
      if (delegatee !== undefined && delegatee !== options.submitterId) candidate = delegatee
    }
    if (candidate === undefined)
      throw conflict(
        `Step ${steps.length + 1} of the approval chain (budget “${o.budget.name}”, id ${o.budget.id}, which this ` +
          `${noun} takes over) has no candidate: its owner is the submitter or not an active user. An ` +
          `administrator must give the budget another owner. The ${noun} stays as it was.`,
      )
    steps.push({ step: steps.length + 1, candidates: [candidate], budget: o.budget.id })
  }
  const warnings = over
    .filter((o) => o.budget.action === 'warn')
    .map((o): BudgetWarning => ({
      budget: { id: o.budget.id, name: o.budget.name },
      available: fromCents(o.available),
      requested: fromCents(o.requested),
      over_by: fromCents(overBy(o.available, o.requested)),
    }))
  return { warnings, steps, exceeded: over.map((o) => o.budget.id) }
}

/** The budgets' steps first, then the chain's (renumbered after them). */
export const withBudgetSteps = (budgetSteps: readonly PlannedStep[], chain: readonly PlannedStep[]): PlannedStep[] => [
  ...budgetSteps,
  ...chain.map((s, i) => ({ ...s, step: budgetSteps.length + i + 1 })),
]

/**
 * After the document's entries are written: keeps its warnings (its GET shows them; [] when none) and records
 * `budget.exceeded` for each budget it took below zero or further below (the budget as GET returns it now).
 */
export async function recordBudgetOutcome(
  tx: Kysely<DB>,
  tenantId: number,
  document: { type: string; id: number },
  outcome: BudgetOutcome,
): Promise<void> {
  await repo.setWarnings(tx, tenantId, document.type, document.id, outcome.warnings)
  for (const id of outcome.exceeded) {
    const row = await repo.findBudget(tx, tenantId, id)
    if (row !== undefined)
      await recordEvent(tx, tenantId, 'budget.exceeded', toBudget(row), {
        document: { type: document.type, id: document.id },
      })
  }
}

/** The warnings each document carries (`[]` when none): for the documents' read shapes. */
export async function budgetWarnings(
  db: Kysely<DB>,
  tenantId: number,
  type: string,
  ids: readonly number[],
): Promise<Map<number, BudgetWarning[]>> {
  const found = await repo.documentWarnings(db, tenantId, type, ids)
  return new Map(ids.map((id) => [id, (found.get(id) as BudgetWarning[] | undefined) ?? []]))
}

/**
 * POST /api/v3/budgets/check/: what a document with these lines would do to every budget they match, writing
 * nothing. Needs `nav_request` at the location.
 */
export async function checkDraft(db: Kysely<DB>, actor: Actor, input: CheckInput): Promise<CheckResult> {
  const access = await actorLocationAccess(db, actor)
  const currency = await repo.currencyFor(db, actor.tenantId, input.location, input.currency)
  const refs = await repo.references(db, actor.tenantId, {
    location: input.location,
    department: input.department ?? null,
    account: null,
  })
  if (refs.location === undefined) throw validationFailed({ location: [`no location ${input.location}`] })
  requireAnyAt(access, input.location, 'nav_request')
  const errors: Record<string, string[]> = {}
  if (currency === undefined) errors.currency = [`no currency ${JSON.stringify(input.currency)}`]
  if (input.department != null && (refs.department === undefined || refs.department.location_id !== input.location))
    errors.department = [`no department ${input.department} at location ${input.location}`]
  const date = input.date ?? new Date().toISOString().slice(0, 10)
  if (Number.isNaN(Date.parse(`${date}T00:00:00Z`))) errors.date = ['must be a date (YYYY-MM-DD)']
  if (Object.keys(errors).length > 0) throw validationFailed(errors)
  const placed = input.lines.map((l): Placed => ({
    location_id: input.location,
    department_id: input.department ?? null,
    account_id: l.account ?? null,
    budget_date: date,
    amount: toBase(lineAmount(l.quantity, l.unit_price), currency!.rate),
  }))
  const found = await matched(db, actor.tenantId, placed)
  return {
    budgets: found.map((x) => {
      const available = availableCents(x.budget)
      return {
        budget: { id: x.budget.id, name: x.budget.name, action: x.budget.action },
        available: fromCents(available),
        this_document: fromCents(x.cents),
        over_by: fromCents(x.cents > 0n ? overBy(available, x.cents) : 0n),
      }
    }),
  }
}

/**
 * The check of a request, order or bill as it now stands (its status already the one it is submitted into):
 * the moves its ledger sync would write, against the budgets. See `checkBudgets`.
 */
export async function checkDocument(
  tx: Kysely<DB>,
  tenantId: number,
  type: CountedDocument,
  id: number,
  submitterId: number,
): Promise<BudgetOutcome> {
  const moves = await planDocument(tx, tenantId, type, id)
  return checkBudgets(tx, tenantId, moves, { submitterId, noun: NOUNS[type] })
}

const NOUNS: Record<CountedDocument, string> = { request: 'request', purchase_order: 'order', bill: 'bill' }

/** The check of a bill being submitted: its lines as spent, less what they take off its order's commitment. */
export async function checkBill(
  tx: Kysely<DB>,
  tenantId: number,
  billId: number,
  orderId: number | null,
  submitterId: number,
): Promise<BudgetOutcome> {
  const moves = [
    ...(await planDocument(tx, tenantId, 'bill', billId)),
    ...(orderId === null ? [] : await planDocument(tx, tenantId, 'purchase_order', orderId)),
  ]
  return checkBudgets(tx, tenantId, moves, { submitterId, noun: 'bill' })
}
