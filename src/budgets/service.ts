/**
 * Budgets (DECISIONS, "Accounts, budgets and the commitment ledger"): location, department, account (each
 * optional: null matches any), a period of at most 366 days, an amount in the base currency, an action and an
 * owner (required for `approve`). Writes need `superuser`, or `nav_manage` at the budget's location (a budget of
 * every location: `superuser`); readers are the writers, holders of `nav_report` at the location (every
 * location: tenant-wide `nav_report`) and the owner; anyone else gets 404. Audited; `budget.*` events. The
 * figures are computed from the ledger (ledger/), never stored on the budget: editing a budget rewrites no entry.
 */
import type { Kysely } from 'kysely'
import { actingUser, type Actor } from '../access/actor.ts'
import {
  actorLocationAccess,
  holdsAnyAt,
  locationsWithAny,
  type LocationAccess,
} from '../access/location-permissions.ts'
import { audit } from '../audit/service.ts'
import type { Page } from '../core/list-query.ts'
import { forbidden, notFound, validationFailed, type FieldErrors } from '../core/problem.ts'
import type { DB } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import { recordEvent } from '../events/service.ts'
import { fromCents, numericCents } from '../ledger/money.ts'
import * as repo from './repository.ts'
import type { Budget, BudgetInput, BudgetListQuery, EntryListQuery, LedgerEntry } from './schema.ts'
import { toBudget } from './view.service.ts'

const superuser = (actor: Actor) => actor.userId === null || actor.permissions.has('superuser')

/** Whether the actor may write a budget at `location` (null: every location). */
const mayWrite = (actor: Actor, access: LocationAccess, location: number | null) =>
  superuser(actor) || (location !== null && holdsAnyAt(access, location, 'nav_manage'))

const mayRead = (actor: Actor, access: LocationAccess, row: repo.BudgetRow) =>
  mayWrite(actor, access, row.location_id) ||
  (row.owner_id !== null && row.owner_id === actor.userId) ||
  (row.location_id === null ? actor.permissions.has('nav_report') : holdsAnyAt(access, row.location_id, 'nav_report'))

/** The scope values of the list: the user, the locations they read at, whether they read every-location budgets. */
function readScope(actor: Actor, access: LocationAccess): unknown[] | undefined {
  if (superuser(actor)) return undefined
  const at = locationsWithAny(access, 'nav_manage', 'nav_report')
  return [actor.userId ?? 0, at === 'all' ? [] : at, actor.permissions.has('nav_report')]
}

export async function listBudgets(db: Kysely<DB>, actor: Actor, query: BudgetListQuery): Promise<Page<Budget>> {
  const access = await actorLocationAccess(db, actor)
  const page = await repo.pageOfBudgets(db, actor.tenantId, query, readScope(actor, access))
  return { ...page, rows: page.rows.map(toBudget) }
}

async function readableBudget(db: Kysely<DB>, actor: Actor, access: LocationAccess, id: number, lock = false) {
  const row = await repo.findBudget(db, actor.tenantId, id, lock)
  if (row === undefined || !mayRead(actor, access, row)) throw notFound(`No budget ${id}.`)
  return row
}

export async function getBudget(db: Kysely<DB>, actor: Actor, id: number): Promise<Budget> {
  return toBudget(await readableBudget(db, actor, await actorLocationAccess(db, actor), id))
}

/** The budget as GET returns it, read inside a write's transaction (for events). */
export const budgetView = async (db: Kysely<DB>, tenantId: number, id: number) =>
  toBudget((await repo.findBudget(db, tenantId, id))!)

const MAX_DAYS = 366
const dayNumber = (date: string) => Date.parse(`${date}T00:00:00Z`) / 86_400_000

async function valuesOf(db: Kysely<DB>, actor: Actor, input: BudgetInput): Promise<repo.BudgetValues> {
  const errors: FieldErrors = {}
  const add = (field: string, message: string) => (errors[field] ??= []).push(message)
  const location = input.location ?? null
  const department = input.department ?? null
  const account = input.account ?? null
  const name = input.name.trim()
  if (name === '') add('name', 'must not be blank')
  const refs = await repo.references(db, actor.tenantId, { location, department, account })
  if (location !== null && refs.location === undefined) add('location', `no location ${location}`)
  if (department !== null) {
    if (refs.department === undefined) add('department', `no department ${department}`)
    else if (location !== null && refs.department.location_id !== location)
      add('department', `department ${department} is not at location ${location}`)
  }
  if (account !== null && refs.account === undefined) add('account', `no account ${account}`)
  const start = dayNumber(input.period_start)
  const end = dayNumber(input.period_end)
  if (Number.isNaN(start)) add('period_start', 'must be a date (YYYY-MM-DD)')
  if (Number.isNaN(end)) add('period_end', 'must be a date (YYYY-MM-DD)')
  else if (end < start) add('period_end', 'must be on or after period_start')
  else if (end - start + 1 > MAX_DAYS)
    add('period_end', `the period may be at most ${MAX_DAYS} days, counting both ends`)
  let owner: number | null = null
  if (input.owner !== undefined && input.owner !== null) {
    const user = await repo.userOfProfile(db, actor.tenantId, input.owner)
    if (user === undefined) add('owner', `no user ${input.owner}`)
    else if (!user.is_active) add('owner', `user ${input.owner} is not active; choose an active owner`)
    else owner = user.id
  }
  if (input.action === 'approve' && (input.owner === undefined || input.owner === null))
    add('owner', 'is required when action is "approve": the owner approves what goes over the budget')
  if (Object.keys(errors).length > 0) throw validationFailed(errors)
  return {
    name,
    location_id: location,
    department_id: department,
    account_id: account,
    period_start: input.period_start,
    period_end: input.period_end,
    amount: fromCents(numericCents(input.amount)),
    action: input.action,
    owner_id: owner,
    active: input.active ?? true,
  }
}

const requireWrite = (actor: Actor, access: LocationAccess, location: number | null) => {
  if (!mayWrite(actor, access, location))
    throw forbidden(
      location === null
        ? 'A budget of every location needs the superuser permission.'
        : `Writing this budget needs the nav_manage permission at location ${location} (or superuser).`,
    )
}

export async function createBudget(db: Kysely<DB>, actor: Actor, input: BudgetInput): Promise<Budget> {
  actingUser(actor)
  const access = await actorLocationAccess(db, actor)
  requireWrite(actor, access, input.location ?? null)
  return inTransaction(db, async (tx) => {
    const id = await repo.insertBudget(tx, actor.tenantId, await valuesOf(tx, actor, input))
    await audit(tx, actor, { action: 'budget.create', resourceType: 'budget', resourceId: id, changes: input })
    const budget = await budgetView(tx, actor.tenantId, id)
    await recordEvent(tx, actor.tenantId, 'budget.created', budget)
    return budget
  })
}

export async function replaceBudget(db: Kysely<DB>, actor: Actor, id: number, input: BudgetInput): Promise<Budget> {
  const access = await actorLocationAccess(db, actor)
  return inTransaction(db, async (tx) => {
    const row = await readableBudget(tx, actor, access, id, true)
    requireWrite(actor, access, row.location_id)
    requireWrite(actor, access, input.location ?? null)
    await repo.updateBudget(tx, actor.tenantId, id, await valuesOf(tx, actor, input))
    await audit(tx, actor, { action: 'budget.update', resourceType: 'budget', resourceId: id, changes: input })
    const budget = await budgetView(tx, actor.tenantId, id)
    await recordEvent(tx, actor.tenantId, 'budget.updated', budget)
    return budget
  })
}

export async function deleteBudget(db: Kysely<DB>, actor: Actor, id: number): Promise<void> {
  const access = await actorLocationAccess(db, actor)
  await inTransaction(db, async (tx) => {
    const row = await readableBudget(tx, actor, access, id, true)
    requireWrite(actor, access, row.location_id)
    const budget = toBudget(row)
    await repo.deleteBudget(tx, actor.tenantId, id)
    await audit(tx, actor, { action: 'budget.delete', resourceType: 'budget', resourceId: id })
    await recordEvent(tx, actor.tenantId, 'budget.deleted', budget)
  })
}

const toEntry = (r: repo.EntryRow): LedgerEntry => ({
  id: r.id,
  created_at: new Date(r.created_at).toISOString(),
  stage: r.stage,
  amount: fromCents(numericCents(r.amount)),
  currency: r.currency,
  original_amount: fromCents(numericCents(r.original_amount)),
  rate: r.rate,
  document: { type: r.document_type, id: r.document_id, number: r.document_number },
  line: r.line_id,
  location: r.location_id,
  department: r.department_id,
  account: r.account_id,
  budget_date: r.budget_date,
  reason: r.reason,
})

/** The entries the budget matches, newest first (unless `order_by` says otherwise). */
export async function listEntries(
  db: Kysely<DB>,
  actor: Actor,
  id: number,
  query: EntryListQuery,
): Promise<Page<LedgerEntry>> {
  const row = await readableBudget(db, actor, await actorLocationAccess(db, actor), id)
  const page = await repo.pageOfEntries(db, actor.tenantId, { ...query, order_by: query.order_by ?? '-id' }, [
    row.location_id,
    row.department_id,
    row.account_id,
    row.period_start,
    row.period_end,
  ])
  return { ...page, rows: page.rows.map(toEntry) }
}

/**
 * Where the actor may write budgets, for a form's choices and its buttons: a test of a budget's location
 * (null: every location) by the same rule the writes apply.
 */
export async function budgetWriter(db: Kysely<DB>, actor: Actor): Promise<(location: number | null) => boolean> {
  const access = await actorLocationAccess(db, actor)
  return (location) => mayWrite(actor, access, location)
}
