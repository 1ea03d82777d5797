/**
 * Payment run rows → the API shape (items and approvals): one mapping, so an event's object is exactly what
 * GET /api/v3/payment-runs/{id}/ returns. A run is tenant-wide: holders of accounts_payable anywhere (and
 * superusers) see every run; anyone else only the runs whose approvals name them (others 404).
 */
import type { Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import { approvalsByDocument } from '../approvals/view.service.ts'
import { holdsPayables } from '../bank-accounts/vendor.service.ts'
import { notFound } from '../core/problem.ts'
import type { DB } from '../db/schema.ts'
import * as repo from './repository.ts'
import type { PaymentRun } from './schema.ts'

export async function toRuns(db: Kysely<DB>, tenantId: number, rows: repo.RunRow[]): Promise<PaymentRun[]> {
  const ids = rows.map((r) => r.id)
  const [items, approvals] = await Promise.all([
    repo.runItems(db, tenantId, ids),
    approvalsByDocument(db, tenantId, 'payment_run', ids),
  ])
  return rows.map((row) => ({
    id: row.id,
    number: row.number,
    status: row.status,
    bank_account: { id: row.bank_account_id, name: row.bank_account_name },
    currency: row.currency,
    execution_date: row.execution_date,
    items: (items.get(row.id) ?? []).map((i) => ({
      id: i.id,
      document: { type: i.type, id: i.document_id, number: i.number },
      vendor: { id: i.vendor_id, name: i.vendor_name },
      location: { id: i.location_id, name: i.location_name },
      amount: i.amount,
      reference: i.reference,
    })),
    total: row.total,
    approvals: approvals.get(row.id) ?? [],
    submitted_at: row.submitted_at === null ? null : row.submitted_at.toISOString(),
    confirmed_at: row.confirmed_at === null ? null : row.confirmed_at.toISOString(),
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  }))
}

export async function runView(db: Kysely<DB>, tenantId: number, id: number): Promise<PaymentRun> {
  const row = await repo.findRun(db, tenantId, id)
  if (row === undefined) throw new Error(`payment run ${id} of tenant ${tenantId} vanished inside its transaction`)
  return (await toRuns(db, tenantId, [row]))[0]!
}

/** undefined: the actor sees every run; else the user id whose approvals decide what they see. */
export const runScope = async (db: Kysely<DB>, actor: Actor): Promise<number | undefined> =>
  (await holdsPayables(db, actor)) ? undefined : (actor.userId ?? 0)

/** The run row if the actor may see it (locked first when `lock`); 404 otherwise. */
export async function visibleRun(db: Kysely<DB>, actor: Actor, id: number, lock = false) {
  const scope = await runScope(db, actor)
  if (lock && (await repo.lockRun(db, actor.tenantId, id)) === undefined) throw notFound(`No payment run ${id}.`)
  const row = await repo.findRun(db, actor.tenantId, id, scope)
  if (row === undefined) throw notFound(`No payment run ${id}.`)
  return row
}
