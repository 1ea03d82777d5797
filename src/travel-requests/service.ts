/**
 * Travel requests (DECISIONS, "Expense reports and travel requests"): list, read, make, edit, submit, cancel.
 * Anyone with `nav_request` at the location makes their own (the caller is the traveller); the traveller edits
 * it (PUT) while it is a draft, or after a rejection before submitting it again; cancel from draft or
 * pending_approval. Submit locks the currency's rate and routes it through the `travel_request` rules; no
 * matching rule → approved at once. Once approved, its estimates are committed in the ledger.
 */
import type { Kysely } from 'kysely'
import { actingUser, type Actor } from '../access/actor.ts'
import { actorLocationAccess, requireAnyAt } from '../access/location-permissions.ts'
import { planChain } from '../approvals/chain.service.ts'
import type { MailBase } from '../approvals/notify.service.ts'
import { cancelChain, startChain } from '../approvals/service.ts'
import { audit } from '../audit/service.ts'
import { checkBudgets, recordBudgetOutcome, withBudgetSteps } from '../budgets/check.service.ts'
import { requireStatus } from '../core/lifecycle.ts'
import type { Page } from '../core/list-query.ts'
import { forbidden } from '../core/problem.ts'
import { nextNumber } from '../db/numbering.ts'
import type { DB } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import { recordEvent } from '../events/service.ts'
import { planLedger } from '../ledger/ledger.service.ts'
import { ratesOf } from '../expense-reports/references.repository.ts'
import { committedLines, ledgerDocument, travelApproved } from './ledger.service.ts'
import * as repo from './repository.ts'
import type { TravelListQuery, TravelRequest, TravelRequestInput } from './schema.ts'
import type { TravelStatus } from './tables.ts'
import { travelValues } from './values.service.ts'
import { toTravels, travelScope, travelView, visibleTravel } from './view.service.ts'

const accessOf = actorLocationAccess

export async function listTravel(db: Kysely<DB>, actor: Actor, query: TravelListQuery): Promise<Page<TravelRequest>> {
  const page = await repo.pageOfTravel(db, actor.tenantId, query, travelScope(actor, await accessOf(db, actor)))
  return { ...page, rows: await toTravels(db, actor.tenantId, page.rows) }
}

export async function getTravel(db: Kysely<DB>, actor: Actor, id: number): Promise<TravelRequest> {
  const row = await visibleTravel(db, actor, await accessOf(db, actor), id)
  return (await toTravels(db, actor.tenantId, [row]))[0]!
}

/** The travel requests of these ids the actor may see (others left out): for the approvals inbox. */
export async function travelByIds(db: Kysely<DB>, actor: Actor, ids: readonly number[]): Promise<TravelRequest[]> {
  if (ids.length === 0) return []
  const scope = travelScope(actor, await accessOf(db, actor))
  const rows = await Promise.all([...new Set(ids)].map((id) => repo.findTravel(db, actor.tenantId, id, scope)))
  return toTravels(
    db,
    actor.tenantId,
    rows.filter((r) => r !== undefined),
  )
}

function requireTraveller(actor: Actor, row: repo.TravelRow, action: string) {
  if (row.traveller_id !== actor.userId)
    throw forbidden(`Only the traveller who made travel request ${row.number} may ${action} it.`)
}
const requireTravelStatus = (row: repo.TravelRow, allowed: readonly TravelStatus[], action: string) =>
  requireStatus({ subject: `Travel request ${row.number}`, noun: 'travel request' }, row.status, allowed, action)

export async function createTravel(db: Kysely<DB>, actor: Actor, input: TravelRequestInput): Promise<TravelRequest> {
  const userId = actingUser(actor)
  const access = await accessOf(db, actor)
  return inTransaction(db, async (tx) => {
    const { values, estimates } = await travelValues(tx, actor, access, input)
    const number = await nextNumber(tx, actor.tenantId, 'travel_request')
    const id = await repo.insertTravel(tx, actor.tenantId, number, userId, values)
    await repo.replaceEstimates(tx, actor.tenantId, id, estimates)
    await audit(tx, actor, {
      action: 'travel_request.create',
      resourceType: 'travel_request',
      resourceId: id,
      changes: input,
    })
    const travel = await travelView(tx, actor.tenantId, id)
    await recordEvent(tx, actor.tenantId, 'travel_request.created', travel)
    return travel
  })
}

export async function putTravel(
  db: Kysely<DB>,
  actor: Actor,
  id: number,
  input: TravelRequestInput,
): Promise<TravelRequest> {
  const access = await accessOf(db, actor)
  return inTransaction(db, async (tx) => {
    const row = await visibleTravel(tx, actor, access, id, true)
    requireTraveller(actor, row, 'edit')
    requireTravelStatus(row, ['draft', 'rejected'], 'edited')
    requireAnyAt(access, row.location_id, 'nav_request')
    const kept = new Set(row.estimates.flatMap((e) => (e.account_id === null ? [] : [e.account_id])))
    const { values, estimates } = await travelValues(tx, actor, access, input, kept)
    await repo.updateTravel(tx, actor.tenantId, id, values)
    await repo.replaceEstimates(tx, actor.tenantId, id, estimates)
    await audit(tx, actor, {
      action: 'travel_request.update',
      resourceType: 'travel_request',
      resourceId: id,
      changes: input,
    })
    return travelView(tx, actor.tenantId, id)
  })
}

/** `base`: where the links of the approval e-mail start (none without it). */
export async function submitTravel(db: Kysely<DB>, actor: Actor, id: number, base?: MailBase): Promise<TravelRequest> {
  const access = await accessOf(db, actor)
  return inTransaction(db, async (tx) => {
    const row = await visibleTravel(tx, actor, access, id, true)
    requireTraveller(actor, row, 'submit')
    requireTravelStatus(row, ['draft', 'rejected'], 'submitted')
    requireAnyAt(access, row.location_id, 'nav_request')
    const rate = (await ratesOf(tx, actor.tenantId, [row.currency_id])).get(row.currency_id)!
    // The budgets' check of what approval will commit (DECISIONS, "Checks").
    const moves = await planLedger(tx, actor.tenantId, ledgerDocument(row), committedLines(row, rate))
    const budgets = await checkBudgets(tx, actor.tenantId, moves, {
      submitterId: row.traveller_id,
      noun: 'travel request',
    })
    const rules = await planChain(tx, actor.tenantId, {
      document: 'travel_request',
      locationId: row.location_id,
      total: row.total,
      currencyId: row.currency_id,
      requesterId: row.traveller_id,
    })
    const chain = withBudgetSteps(budgets.steps, rules)
    await repo.updateTravel(tx, actor.tenantId, id, {
      status: chain.length === 0 ? 'approved' : 'pending_approval',
      rate,
      submitted_at: new Date(),
    })
    if (chain.length > 0)
      await startChain(
        tx,
        actor,
        { type: 'travel_request', id, locationId: row.location_id, submitterId: row.traveller_id },
        chain,
        base,
      )
    else await travelApproved(tx, actor.tenantId, id)
    await recordBudgetOutcome(tx, actor.tenantId, { type: 'travel_request', id }, budgets)
    await audit(tx, actor, { action: 'travel_request.submit', resourceType: 'travel_request', resourceId: id })
    const travel = await travelView(tx, actor.tenantId, id)
    await recordEvent(tx, actor.tenantId, 'travel_request.submitted', travel)
    if (chain.length === 0) await recordEvent(tx, actor.tenantId, 'travel_request.approved', travel)
    else await recordEvent(tx, actor.tenantId, 'approval.created', travel.approvals.at(-1)!)
    return travel
  })
}

export async function cancelTravel(db: Kysely<DB>, actor: Actor, id: number): Promise<TravelRequest> {
  const access = await accessOf(db, actor)
  return inTransaction(db, async (tx) => {
    const row = await visibleTravel(tx, actor, access, id, true)
    requireTraveller(actor, row, 'cancel')
    requireTravelStatus(row, ['draft', 'pending_approval'], 'cancelled')
    await repo.updateTravel(tx, actor.tenantId, id, { status: 'cancelled' })
    await cancelChain(tx, actor, 'travel_request', id)
    await audit(tx, actor, { action: 'travel_request.cancel', resourceType: 'travel_request', resourceId: id })
    const travel = await travelView(tx, actor.tenantId, id)
    await recordEvent(tx, actor.tenantId, 'travel_request.cancelled', travel)
    return travel
  })
}
