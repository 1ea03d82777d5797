/**
 * Bills (DECISIONS, "Bills and matching"): list, read, enter and edit while `draft`. The vendor's invoice
 * number is unique per vendor in the tenant (409; the unique index settles two at the same instant). Writes
 * need `accounts_payable` at the bill's location; reads are scoped as `billScope` says (others 404).
 */
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
import { billValues } from './values.ts'
import { accessOf, billScope, billView, toBills, visibleBill } from './view.service.ts'
import './approval.service.ts'

export async function listBills(db: Kysely<DB>, actor: Actor, query: BillListQuery): Promise<Page<Bill>> {
  const scope = billScope(actor, await accessOf(db, actor))
  const page = await repo.pageOfBills(db, actor.tenantId, query, scope)
  return { ...page, rows: await toBills(db, actor.tenantId, page.rows) }
}

export async function getBill(db: Kysely<DB>, actor: Actor, id: number): Promise<Bill> {
  const row = await visibleBill(db, actor, await accessOf(db, actor), id)
  return (await toBills(db, actor.tenantId, [row]))[0]!
}

const duplicate = (number: string) =>
  conflict(`The vendor already has a bill numbered ${JSON.stringify(number)}; a vendor's invoice is entered once.`)

/** Runs a write; a unique violation on (vendor, number) — a concurrent twin — becomes the same 409. */
async function uniqueNumber<T>(number: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write()
  } catch (error) {
    if ((error as { code?: string }).code === '23505') throw duplicate(number)
    throw error
  }
}

export async function createBill(db: Kysely<DB>, actor: Actor, input: BillInput): Promise<Bill> {
  const userId = actingUser(actor)
  const access = await accessOf(db, actor)
  const { values, lines } = await billValues(db, actor, access, input)
  return uniqueNumber(values.number, () =>
    inTransaction(db, async (tx) => {
      if ((await repo.sameNumber(tx, actor.tenantId, values.vendor_id, values.number)) !== undefined)
        throw duplicate(values.number)
      const id = await repo.insertBill(tx, actor.tenantId, values, userId)
      await repo.replaceLines(tx, actor.tenantId, id, lines)
      await audit(tx, actor, { action: 'bill.create', resourceType: 'bill', resourceId: id, changes: input })
      const bill = await billView(tx, actor.tenantId, id)
      await recordEvent(tx, actor.tenantId, 'bill.created', bill)
      return bill
    }),
  )
}

export async function putBill(db: Kysely<DB>, actor: Actor, id: number, input: BillInput): Promise<Bill> {
  const access = await accessOf(db, actor)
  const seen = await visibleBill(db, actor, access, id)
  requireAnyAt(access, seen.location_id, 'accounts_payable')
  const { values, lines } = await billValues(db, actor, access, input)
  return uniqueNumber(values.number, () =>
    inTransaction(db, async (tx) => {
      const row = await visibleBill(tx, actor, access, id, true)
      if (row.status !== 'draft')
        throw conflict(`Bill ${row.number} is ${row.status}; only a draft bill can be edited.`)
      if ((await repo.sameNumber(tx, actor.tenantId, values.vendor_id, values.number, id)) !== undefined)
        throw duplicate(values.number)
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
