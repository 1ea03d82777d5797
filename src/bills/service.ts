/**
 * Bills (DECISIONS, "Bills and matching"): list, read, enter and edit while `draft`. The vendor's invoice
 * number is unique per vendor in the tenant, compared on its key (number-key.ts; 409 naming the bill that has
 * it; the unique index on the key settles two at the same instant). Writes need `accounts_payable` at the
 * bill's location; reads are scoped as `billScope` says (others 404).
 */
import { requireStatus } from '../core/lifecycle.ts'
import type { Kysely } from 'kysely'
import { actingUser, type Actor } from '../access/actor.ts'
import { requireAnyAt } from '../access/location-permissions.ts'
import { audit } from '../audit/service.ts'
import type { Page } from '../core/list-query.ts'
import { conflict } from '../core/problem.ts'
import type { DB } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import { recordEvent } from '../events/service.ts'
import * as repo from './repository.ts'
import type { Bill, BillInput, BillListQuery } from './schema.ts'
import { billValues } from './values.service.ts'
import { accessOf, billScope, billView, toBills, visibleBill } from './view.service.ts'

export async function listBills(db: Kysely<DB>, actor: Actor, query: BillListQuery): Promise<Page<Bill>> {
  const scope = billScope(actor, await accessOf(db, actor))
  const page = await repo.pageOfBills(db, actor.tenantId, query, scope)
  return { ...page, rows: await toBills(db, actor.tenantId, page.rows) }
}

export async function getBill(db: Kysely<DB>, actor: Actor, id: number): Promise<Bill> {
  const row = await visibleBill(db, actor, await accessOf(db, actor), id)
  return (await toBills(db, actor.tenantId, [row]))[0]!
}

/** The 409 for a number the vendor already has, naming the bill that has it (as written, or spelled otherwise). */
function duplicate(number: string, other: { id: number; number: string }) {
  const spelling =
    other.number === number
      ? ''
      : ` — ${JSON.stringify(number)} is the same number written another way (numbers are compared without ` +
        'case, width, spaces or punctuation)'
  return conflict(
    `The vendor already has a bill numbered ${JSON.stringify(other.number)} (bill ${other.id})${spelling}; a ` +
      "vendor's invoice is entered once.",
  )
}

/**
 * Runs a write; a unique violation on the number's key — a twin committed after the write's own check — becomes
 * the same 409, naming the twin. When the twin cannot be read (the caller's transaction is the one that failed),
 * the violation goes on as it is (the error handler's 409 for a lost race).
 */
async function uniqueNumber<T>(
  db: Kysely<DB>,
  tenantId: number,
  values: repo.BillValues,
  except: number,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write()
  } catch (error) {
    if ((error as { code?: string }).code !== '23505') throw error
    const twin = await repo.sameKey(db, tenantId, values.vendor_id, values.number_key, except).catch(() => undefined)
    if (twin === undefined) throw error
    throw duplicate(values.number, twin)
  }
}

export async function createBill(db: Kysely<DB>, actor: Actor, input: BillInput): Promise<Bill> {
  const userId = actingUser(actor)
  const access = await accessOf(db, actor)
  const { values, lines } = await billValues(db, actor, access, input)
  return uniqueNumber(db, actor.tenantId, values, 0, () =>
    inTransaction(db, async (tx) => {
      const twin = await repo.sameKey(tx, actor.tenantId, values.vendor_id, values.number_key)
      if (twin !== undefined) throw duplicate(values.number, twin)
      const id = await repo.insertBill(tx, actor.tenantId, values, userId)
      await repo.replaceLines(tx, actor.tenantId, id, lines)
      await audit(tx, actor, { action: 'bill.create', resourceType: 'bill', resourceId: id, changes: input })
      const bill = await billView(tx, actor.tenantId, id)
      await recordEvent(tx, actor.tenantId, 'bill.created', bill)
      return bill
    }),
  )
}

/**
 * Replaces a draft. Moving it to another location (DECISIONS: any document) needs accounts_payable where it
 * leaves and where it enters (403 at either, nothing changes); where it leaves is judged again on the locked
 * row, so a move committed meanwhile by someone else is judged where the bill now is.
 */
export async function putBill(db: Kysely<DB>, actor: Actor, id: number, input: BillInput): Promise<Bill> {
  const access = await accessOf(db, actor)
  const seen = await visibleBill(db, actor, access, id)
  requireAnyAt(access, seen.location_id, 'accounts_payable')
  const { values, lines } = await billValues(db, actor, access, input)
  requireAnyAt(access, values.location_id, 'accounts_payable')
  return uniqueNumber(db, actor.tenantId, values, id, () =>
    inTransaction(db, async (tx) => {
      const row = await visibleBill(tx, actor, access, id, true)
      requireAnyAt(access, row.location_id, 'accounts_payable')
      requireStatus({ subject: `Bill ${row.number}`, noun: 'bill' }, row.status, ['draft'], 'edited')
      const twin = await repo.sameKey(tx, actor.tenantId, values.vendor_id, values.number_key, id)
      if (twin !== undefined) throw duplicate(values.number, twin)
      await repo.updateBill(tx, actor.tenantId, id, values)
      await repo.replaceLines(tx, actor.tenantId, id, lines)
      await audit(tx, actor, { action: 'bill.update', resourceType: 'bill', resourceId: id, changes: input })
      return billView(tx, actor.tenantId, id)
    }),
  )
}

/** The bills of these ids the actor may see (others left out), in one read of their approvals: for the inbox. */
export async function billsByIds(db: Kysely<DB>, actor: Actor, ids: readonly number[]): Promise<Bill[]> {
  if (ids.length === 0) return []
  const scope = billScope(actor, await accessOf(db, actor))
  const rows = await Promise.all([...new Set(ids)].map((id) => repo.findBill(db, actor.tenantId, id, scope)))
  return toBills(
    db,
    actor.tenantId,
    rows.filter((r) => r !== undefined),
  )
}
