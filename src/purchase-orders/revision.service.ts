/**
 * Revisions of an issued order (DECISIONS, "Revisions"): `If-Match` on the version (412 when stale); no line
 * below what was received or billed, and no such line removed (409 naming it); the vendor and location stay.
 * Within `po_approval_tolerance_percent` of the last approved total the revision applies at once (`version`
 * + 1 and a revision record of the changes); beyond it, it is held as `pending_revision` and goes through the
 * `purchase_order` rules, applied on approval and dropped on rejection; while one is pending another → 409.
 */
import type { Kysely } from 'kysely'
import { actingUser, type Actor } from '../access/actor.ts'
import type { LocationAccess } from '../access/location-permissions.ts'
import { planChain } from '../approvals/rules.service.ts'
import type { MailBase } from '../approvals/notify.service.ts'
import { startChain } from '../approvals/service.ts'
import { audit } from '../audit/service.ts'
import { compareDecimal, exceedsByPercent, trimDecimal } from '../core/decimal.ts'
import { conflict, preconditionFailed } from '../core/problem.ts'
import type { DB } from '../db/schema.ts'
import { recordEvent } from '../events/service.ts'
import { syncDocument } from '../ledger/documents.service.ts'
import * as lineWrites from './lines-repository.ts'
import * as orderWrites from './write-repository.ts'
import type * as repo from './repository.ts'
import type { OrderInput } from './input.schema.ts'
import type { PurchaseOrder } from './schema.ts'
import { procurementSettings } from '../procurement-settings/service.ts'
import { valuesOf } from './values.service.ts'
import { orderView, type StoredRevision } from './view.service.ts'

type Resolved = StoredRevision['resolved']
interface Change {
  path: string
  from: unknown
  to: unknown
}

const LINE_FIELDS = ['description', 'quantity', 'unit_price', 'tax_rate'] as const
const lineShape = (l: Pick<repo.LineRow, (typeof LINE_FIELDS)[number]>) =>
  Object.fromEntries(LINE_FIELDS.map((f) => [f, f === 'description' ? l[f] : trimDecimal(l[f])]))

/** What the revision changes, field by field: `[{path, from, to}]`. */
export function changesOf(row: repo.OrderRow, next: Resolved): Change[] {
  const changes: Change[] = []
  const top: [string, unknown, unknown][] = [
    ['department', row.department_id, next.values.department_id],
    ['currency', row.currency_id, next.values.currency_id],
    ['promise_date', row.promise_date, next.values.promise_date],
    ['notes', row.notes, next.values.notes],
  ]
  for (const [path, from, to] of top) if (from !== to) changes.push({ path, from, to })
  const byId = new Map(row.lines.map((l, i) => [l.id, { line: l, index: i }]))
  next.lines.forEach((l, i) => {
    const old = l.id === undefined ? undefined : byId.get(l.id)
    if (old === undefined) return changes.push({ path: `lines.${i}`, from: null, to: lineShape(l) })
    for (const f of LINE_FIELDS) {
      const from = f === 'description' ? old.line[f] : trimDecimal(old.line[f])
      const to = f === 'description' ? l[f] : trimDecimal(l[f])
      if (from !== to) changes.push({ path: `lines.${i}.${f}`, from, to })
    }
  })
  const kept = new Set(next.lines.map((l) => l.id))
  for (const [id, { line, index }] of byId)
    if (!kept.has(id)) changes.push({ path: `lines.${index}`, from: lineShape(line), to: null })
  if (row.total !== next.values.total) changes.push({ path: 'total', from: row.total, to: next.values.total })
  return changes
}

/** 409 naming each line the revision would take below its received or billed quantity, or remove. */
export function requireAboveReceived(row: repo.OrderRow, next: Resolved) {
  const wanted = new Map(next.lines.flatMap((l) => (l.id === undefined ? [] : [[l.id, l.quantity] as const])))
  const problems: string[] = []
  for (const line of row.lines) {
    const floor =
      compareDecimal(line.received_quantity, line.billed_quantity) >= 0 ? line.received_quantity : line.billed_quantity
    if (compareDecimal(floor, '0') === 0) continue
    const quantity = wanted.get(line.id)
    if (quantity === undefined)
      problems.push(`line ${line.id} cannot be removed: ${trimDecimal(floor)} received or billed`)
    else if (compareDecimal(quantity, floor) < 0)
      problems.push(`line ${line.id} cannot go below ${trimDecimal(floor)} (received or billed); asked ${quantity}`)
  }
  if (problems.length > 0) throw conflict(`The revision is refused: ${problems.join('; ')}.`)
}

/**
 * 409 naming each of vendor, currency and location that the revision would change: an issued order's stay
 * what was approved and sent (a bill is matched against them), whatever the total.
 */
function requireSameTerms(row: repo.OrderRow, next: Resolved) {
  const changed = [
    next.values.vendor_id !== row.vendor_id ? 'vendor' : undefined,
    next.values.currency_id !== row.currency_id ? 'currency' : undefined,
    next.values.location_id !== row.location_id ? 'location' : undefined,
  ].filter((f) => f !== undefined)
  if (changed.length > 0)
    throw conflict(
      `Purchase order ${row.number} is issued: its ${changed.join(' and ')} cannot change. ` +
        'Cancel it and make another order, or revise only its lines, dates and notes.',
    )
}

/** Applies a revision: the new values and lines, `version` + 1, its record and `purchase_order.revised`. */
export async function applyRevision(
  tx: Kysely<DB>,
  actor: Actor,
  row: repo.OrderRow,
  next: Resolved,
  changedBy: number,
  extra: { approved_total?: string; pending_revision?: null } = {},
  record = true,
): Promise<PurchaseOrder> {
  requireAboveReceived(row, next)
  const changes = changesOf(row, next)
  const version = row.version + 1
  await orderWrites.updateOrder(tx, actor.tenantId, row.id, { ...next.values, version, ...extra })
  await lineWrites.replaceLines(tx, actor.tenantId, row.id, next.lines)
  await lineWrites.refreshStatuses(tx, actor.tenantId, row.id)
  await orderWrites.insertRevision(tx, actor.tenantId, row.id, version, changedBy, changes)
  // The ledger counts the revised lines (a revision approved by a chain: reason `approved`).
  await syncDocument(tx, actor.tenantId, 'purchase_order', row.id, record ? 'issued' : 'approved')
  const order = await orderView(tx, actor.tenantId, row.id)
  if (record) await recordEvent(tx, actor.tenantId, 'purchase_order.revised', order)
  return order
}

export async function reviseIssued(
  tx: Kysely<DB>,
  actor: Actor,
  access: LocationAccess,
  row: repo.OrderRow,
  input: OrderInput,
  ifMatch: string,
  base: MailBase,
): Promise<PurchaseOrder> {
  const userId = actingUser(actor)
  const tags = ifMatch.split(',').map((t) =>
    t
      .trim()
      .replace(/^W\//, '')
      .replace(/^"(.*)"$/, '$1'),
  )
  if (!tags.some((t) => t === '*' || t === String(row.version)))
    throw preconditionFailed(
      `Purchase order ${row.number} is at version ${row.version} (ETag "${row.version}"); read it again and revise that.`,
    )
  if (row.pending_revision !== null)
    throw conflict(`A revision of ${row.number} is pending approval; it must be decided before another.`)
  const next = await valuesOf(tx, actor, access, input, new Map(row.lines.map((l) => [l.id, l])))
  // A revision that names no currency keeps the order's (not the location's, as a new draft would take).
  if (input.currency === undefined) next.values.currency_id = row.currency_id
  requireSameTerms(row, next)
  requireAboveReceived(row, next)
  const changes = changesOf(row, next)
  if (changes.length === 0) return orderView(tx, actor.tenantId, row.id)
  await audit(tx, actor, {
    action: 'purchase_order.revise',
    resourceType: 'purchase_order',
    resourceId: row.id,
    changes: input,
  })
  const settings = await procurementSettings(tx, actor.tenantId)
  const approved = row.approved_total ?? row.total
  if (exceedsByPercent(next.values.total, approved, settings.po_approval_tolerance_percent)) {
    const location = row.location_id
    const chain = await planChain(tx, actor.tenantId, {
      locationId: location,
      total: next.values.total,
      currencyId: next.values.currency_id,
      requesterId: userId,
      document: 'purchase_order',
    })
    if (chain.length > 0) {
      const doc = { type: 'purchase_order' as const, id: row.id, locationId: location, submitterId: userId }
      const first = await startChain(tx, actor, doc, chain, base)
      const held: StoredRevision = {
        body: input,
        total: next.values.total,
        proposed_by: userId,
        proposed_at: new Date().toISOString(),
        first_approval: first,
        resolved: next,
      }
      await orderWrites.updateOrder(tx, actor.tenantId, row.id, { pending_revision: JSON.stringify(held) })
      const order = await orderView(tx, actor.tenantId, row.id)
      await recordEvent(
        tx,
        actor.tenantId,
        'approval.created',
        order.approvals.find((a) => a.id === first)!,
      )
      return order
    }
    return applyRevision(tx, actor, row, next, userId, { approved_total: next.values.total })
  }
  return applyRevision(tx, actor, row, next, userId)
}
