/**
 * Purchase request rules (DECISIONS, "Purchase requests and approvals"): creating, editing and submitting
 * need `nav_request` at the request's location; only a draft may be edited or submitted; the requester (or a
 * superuser) edits, submits and cancels; the total is computed here with exact decimals. Who sees a request:
 * its requester, its approvals' candidates (and delegatees), and anyone holding `nav_approval`,
 * `nav_purchase` or `superuser` at its location; anyone else gets 404, as for another tenant's.
 */
import { requireStatus } from '../core/lifecycle.ts'
import type { Kysely } from 'kysely'
import { actingUser, type Actor } from '../access/actor.ts'
import { actorLocationAccess, requestScope, requireAnyAt, type LocationAccess } from '../access/location-permissions.ts'
import { cancelChain, startChain } from '../approvals/service.ts'
import { planChain } from '../approvals/rules.service.ts'
import type { MailBase } from '../approvals/notify.service.ts'
import { audit } from '../audit/service.ts'
import { lineTotal, parseDecimal } from '../core/decimal.ts'
import type { Page } from '../core/list-query.ts'
import { forbidden, notFound, validationFailed, type FieldErrors } from '../core/problem.ts'
import type { DB, RequestStatus } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import { recordEvent } from '../events/service.ts'
import { checkDocument, recordBudgetOutcome, withBudgetSteps } from '../budgets/check.service.ts'
import { syncDocument } from '../ledger/documents.service.ts'
import { accountIdOf, lineAccountErrors } from '../accounts/service.ts'
import * as repo from './repository.ts'
import { requestView, toRequests } from './view.service.ts'
import type { LineInput, PurchaseRequest, RequestInput, RequestListQuery, RequestPatch } from './schema.ts'

export async function listRequests(
  db: Kysely<DB>,
  actor: Actor,
  query: RequestListQuery,
): Promise<Page<PurchaseRequest>> {
  const page = await repo.pageOfRequests(db, actor.tenantId, query, await requestScope(db, actor))
  return { ...page, rows: await toRequests(db, actor.tenantId, page.rows) }
}

/** The requests among `ids` the actor may see (the rest are left out), in one query whatever their number. */
export async function requestsByIds(db: Kysely<DB>, actor: Actor, ids: readonly number[]): Promise<PurchaseRequest[]> {
  const rows = await repo.findRequests(db, actor.tenantId, [...new Set(ids)], await requestScope(db, actor))
  return toRequests(db, actor.tenantId, rows)
}

/** The request if the actor may see it (locked for a write when `lock`); 404 otherwise. */
async function visibleRequest(db: Kysely<DB>, actor: Actor, id: number, lock = false) {
  const scope = await requestScope(db, actor)
  if (scope !== undefined && !(await repo.isVisible(db, actor.tenantId, id, scope[0], scope[1])))
    throw notFound(`No request ${id}.`)
  const row = await repo.findRequest(db, actor.tenantId, id, lock)
  if (row === undefined) throw notFound(`No request ${id}.`)
  return row
}

export async function getRequest(db: Kysely<DB>, actor: Actor, id: number): Promise<PurchaseRequest> {
  const row = await visibleRequest(db, actor, id)
  return (await toRequests(db, actor.tenantId, [row]))[0]!
}

const idOf = (value: number | { id: number } | null | undefined) =>
  value === null || value === undefined ? value : typeof value === 'number' ? value : value.id

/**
 * The columns of a request body, checked against the tenant's data; 400 naming each field that is wrong. At a
 * location that exists, the caller must hold `nav_request` there (403) before anything else is judged.
 */
interface Body {
  location: number | { id: number }
  department?: number | { id: number } | null | undefined
  currency?: string | undefined
  description?: string | undefined
  needed_by?: string | null | undefined
  lines: LineInput[]
}

/** `keptLines`: the lines are the stored ones (a PATCH without lines): their accounts are not judged again. */
async function valuesOf(db: Kysely<DB>, actor: Actor, access: LocationAccess, input: Body, keptLines = false) {
  const location = idOf(input.location)!
  const department = idOf(input.department) ?? null
  const lines = input.lines.map((l) => ({
    description: l.description ?? '',
    vendor: l.vendor ?? null,
    quantity: l.quantity,
    unit_price: l.unit_price,
    account: accountIdOf(l.account) ?? null,
  }))
  const refs = await repo.references(
    db,
    actor.tenantId,
    location,
    input.currency,
    lines.flatMap((l) => (l.vendor === null ? [] : [l.vendor])),
  )
  if (refs.location !== undefined) requireAnyAt(access, location, 'nav_request')
  const errors: FieldErrors = {}
  const add = (field: string, message: string) => (errors[field] ??= []).push(message)
  if (refs.location === undefined) add('location', `no location ${location}`)
  else if (department !== null && !refs.departments.has(department))
    add('department', `no department ${department} at location ${location}`)
  if (input.currency !== undefined && refs.currencyId === undefined)
    add('currency', `no currency ${JSON.stringify(input.currency)}`)
  lines.forEach((l, i) => {
    if (parseDecimal(l.quantity) === 0n) add(`lines.${i}.quantity`, 'must be greater than 0')
    if (l.vendor !== null && !refs.vendors.has(l.vendor)) add(`lines.${i}.vendor`, `no vendor ${l.vendor}`)
  })
  if (!keptLines)
    for (const [field, messages] of Object.entries(
      await lineAccountErrors(
        db,
        actor.tenantId,
        lines.map((l) => l.account),
      ),
    ))
      for (const message of messages) add(field, message)
  if (Object.keys(errors).length > 0) throw validationFailed(errors)
  return {
    values: {
      location_id: location,
      department_id: department,
      currency_id: refs.currencyId ?? refs.location!.currency_id,
      description: input.description ?? '',
      needed_by: input.needed_by ?? null,
      total: lineTotal(lines),
    },
    lines,
  }
}

export async function createRequest(db: Kysely<DB>, actor: Actor, input: RequestInput): Promise<PurchaseRequest> {
  const userId = actingUser(actor)
  const access = await actorLocationAccess(db, actor)
  return inTransaction(db, async (tx) => {
    const { values, lines } = await valuesOf(tx, actor, access, input)
    const id = await repo.insertRequest(tx, actor.tenantId, userId, values)
    await repo.replaceLines(tx, actor.tenantId, id, lines)
    await audit(tx, actor, { action: 'request.create', resourceType: 'request', resourceId: id, changes: input })
    const request = await requestView(tx, actor.tenantId, id)
    await recordEvent(tx, actor.tenantId, 'request.created', request)
    return request
  })
}

/** The requester (or a superuser) acts on their request; others who may see it get 403. */
function requireOwner(actor: Actor, row: repo.RequestRow, action: string) {
  if (row.requester_id !== actor.userId && !actor.permissions.has('superuser'))
    throw forbidden(`Only the requester (or a superuser) may ${action} this request.`)
}

const requireRequestStatus = (row: repo.RequestRow, allowed: readonly RequestStatus[], action: string) =>
  requireStatus({ subject: 'The request', noun: 'request' }, row.status, allowed, action)

export async function updateRequest(
  db: Kysely<DB>,
  actor: Actor,
  id: number,
  patch: RequestPatch,
): Promise<PurchaseRequest> {
  const access = await actorLocationAccess(db, actor)
  return inTransaction(db, async (tx) => {
    const row = await visibleRequest(tx, actor, id, true)
    requireOwner(actor, row, 'edit')
    requireRequestStatus(row, ['draft'], 'edited')
    // The location it is at (and, in valuesOf, the one it moves to): a move needs nav_request at both.
    requireAnyAt(access, row.location_id, 'nav_request')
    // Another location: the department and currency chosen for the old one do not carry over.
    const moved = patch.location !== undefined && idOf(patch.location) !== row.location_id
    const merged = {
      ...patch,
      location: patch.location ?? row.location_id,
      department: patch.department !== undefined ? patch.department : moved ? null : row.department_id,
      currency: patch.currency ?? (moved ? undefined : row.currency),
      description: patch.description ?? row.description,
      needed_by: patch.needed_by !== undefined ? patch.needed_by : row.needed_by,
      lines: patch.lines ?? row.lines,
    }
    const { values, lines } = await valuesOf(tx, actor, access, merged, patch.lines === undefined)
    await repo.updateRequest(tx, actor.tenantId, id, values)
    if (patch.lines !== undefined) await repo.replaceLines(tx, actor.tenantId, id, lines)
    await audit(tx, actor, { action: 'request.update', resourceType: 'request', resourceId: id, changes: patch })
    // No event: editing a draft has no event type (docs/webhooks.md).
    return requestView(tx, actor.tenantId, id)
  })
}

/** `base`: where the links of the approval e-mail start (none without it). */
export async function submitRequest(
  db: Kysely<DB>,
  actor: Actor,
  id: number,
  base?: MailBase,
): Promise<PurchaseRequest> {
  const access = await actorLocationAccess(db, actor)
  return inTransaction(db, async (tx) => {
    const row = await visibleRequest(tx, actor, id, true)
    requireOwner(actor, row, 'submit')
    requireRequestStatus(row, ['draft'], 'submitted')
    requireAnyAt(access, row.location_id, 'nav_request')
    const rules = await planChain(tx, actor.tenantId, {
      locationId: row.location_id,
      total: row.total,
      currencyId: row.currency_id,
      requesterId: row.requester_id,
    })
    // Budgets (budgets/check.service.ts): its lines as pending, checked; a block throws and nothing changes.
    await repo.setStatus(tx, actor.tenantId, id, 'pending', { submitted: true })
    const budgets = await checkDocument(tx, actor.tenantId, 'request', id, row.requester_id)
    const chain = withBudgetSteps(budgets.steps, rules)
    await repo.setStatus(tx, actor.tenantId, id, chain.length === 0 ? 'approved' : 'pending', {
      submitted: true,
      chain,
    })
    await syncDocument(tx, actor.tenantId, 'request', id, 'submitted')
    await recordBudgetOutcome(tx, actor.tenantId, { type: 'request', id }, budgets)
    if (chain.length > 0)
      await startChain(
        tx,
        actor,
        { type: 'request', id, locationId: row.location_id, submitterId: row.requester_id },
        chain,
        base,
      )
    await audit(tx, actor, { action: 'request.submit', resourceType: 'request', resourceId: id })
    const request = await requestView(tx, actor.tenantId, id)
    await recordEvent(tx, actor.tenantId, 'request.submitted', request)
    if (chain.length === 0) await recordEvent(tx, actor.tenantId, 'request.approved', request)
    else await recordEvent(tx, actor.tenantId, 'approval.created', request.approvals[0]!)
    return request
  })
}

export async function cancelRequest(db: Kysely<DB>, actor: Actor, id: number): Promise<PurchaseRequest> {
  return inTransaction(db, async (tx) => {
    const row = await visibleRequest(tx, actor, id, true)
    requireOwner(actor, row, 'cancel')
    requireRequestStatus(row, ['draft', 'pending'], 'cancelled')
    await repo.setStatus(tx, actor.tenantId, id, 'cancelled')
    await cancelChain(tx, actor, 'request', id)
    await syncDocument(tx, actor.tenantId, 'request', id, 'cancelled')
    await audit(tx, actor, { action: 'request.cancel', resourceType: 'request', resourceId: id })
    // Its pending approval, now cancelled, shows in the object; an approval's cancellation has no event type.
    const request = await requestView(tx, actor.tenantId, id)
    await recordEvent(tx, actor.tenantId, 'request.cancelled', request)
    return request
  })
}

/** The approved total of a request (for an order's approval tolerance); undefined when there is none. */
export async function requestTotal(db: Kysely<DB>, tenantId: number, id: number): Promise<string | undefined> {
  return (await repo.findRequest(db, tenantId, id))?.total
}

/**
 * The request, locked, for making orders from it: 404 unless the actor may see it. Its lines, location,
 * department and currency are what the orders copy.
 */
export async function requestForOrdering(db: Kysely<DB>, actor: Actor, id: number) {
  const row = await visibleRequest(db, actor, id, true)
  return { ...(await toRequests(db, actor.tenantId, [row]))[0]!, currency_id: row.currency_id }
}
