/** SQL for receipts and their lines. Every query is scoped to one tenant. */
import { sql, type Kysely } from 'kysely'
import { byTenant, personJson } from '../db/joins.ts'
import { listSql } from '../db/list.ts'
import type { DB } from '../db/schema.ts'
import { ReceiptListQuery } from './schema.ts'

function selectReceipts(db: Kysely<DB>) {
  return db
    .selectFrom('receipts as r')
    .innerJoin('locations as l', byTenant('l', 'r.location_id'))
    .select([
      'r.id',
      'r.tenant_id',
      'r.number',
      'r.type',
      'r.status',
      'r.order_id',
      'r.location_id',
      'l.name as location_name',
      'r.received_at',
      'r.packing_slip',
      'r.notes',
      'r.created_at',
      'r.voided_at',
      personJson(sql.ref('r.created_by'), sql.ref('r.tenant_id')).as('created_by'),
      sql<{ po_line: number; accepted_quantity: string; rejected_quantity: string }[]>`coalesce((select json_agg(
        json_build_object('po_line', rl.po_line_id, 'accepted_quantity', rl.accepted_quantity::text,
          'rejected_quantity', rl.rejected_quantity::text) order by rl.position)
        from receipt_lines rl where rl.tenant_id = r.tenant_id and rl.receipt_id = r.id), '[]')`.as('lines'),
    ])
}
export type ReceiptRow = Awaited<ReturnType<ReturnType<typeof selectReceipts>['executeTakeFirstOrThrow']>>

export const pageOfReceipts = listSql(ReceiptListQuery, {
  select: selectReceipts,
  tenant: 'r.tenant_id',
  id: 'r.id',
  order: { created_at: 'r.created_at' },
  search: ['r.number', 'r.packing_slip'],
  filters: {
    purchase_order: 'r.order_id',
    location: 'r.location_id',
    type: 'r.type',
    status: 'r.status',
    // Made or voided at or after the instant.
    updated_since: (since: string) => sql<boolean>`r.updated_at >= ${since}`,
  },
  // Every scope value must appear in the SQL: the user id guards the creator's own (always at such a location).
  scope: ([user, locations]) => sql<boolean>`(r.location_id = any(${locations}::int[]) or r.created_by = ${user}::int)`,
})

export function findReceipt(db: Kysely<DB>, tenantId: number, id: number, locations?: number[]) {
  let q = selectReceipts(db).where('r.tenant_id', '=', tenantId).where('r.id', '=', id)
  if (locations !== undefined) q = q.where(sql<boolean>`r.location_id = any(${locations}::int[])`)
  return q.executeTakeFirst()
}

export async function insertReceipt(
  db: Kysely<DB>,
  tenantId: number,
  v: {
    number: string
    type: 'receipt' | 'return'
    order_id: number
    location_id: number
    received_at: string | undefined
    packing_slip: string
    notes: string
    created_by: number
  },
  lines: { po_line_id: number; accepted_quantity: string; rejected_quantity: string }[],
) {
  const { received_at, ...rest } = v
  const row = await db
    .insertInto('receipts')
    .values({ tenant_id: tenantId, ...rest, ...(received_at === undefined ? {} : { received_at }) })
    .returning('id')
    .executeTakeFirstOrThrow()
  await db
    .insertInto('receipt_lines')
    .values(lines.map((l, i) => ({ tenant_id: tenantId, receipt_id: row.id, position: i + 1, ...l })))
    .execute()
  return row.id
}

/** Voids a posted receipt; false when it was not posted (already voided). */
export async function voidReceipt(db: Kysely<DB>, tenantId: number, id: number) {
  const r = await db
    .updateTable('receipts')
    .set({ status: 'voided', voided_at: new Date(), updated_at: new Date() })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('status', '=', 'posted')
    .executeTakeFirst()
  return r.numUpdatedRows > 0n
}
