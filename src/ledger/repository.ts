/**
 * SQL of the commitment ledger: its append-only entries, the totals kept beside them (per budget date,
 * location, department, account and stage; 0 stands for "none"), and what one document's lines count now.
 * Every query is scoped to one tenant.
 */
import { sql, type Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'
import type { LedgerStage } from './tables.ts'

export interface EntryValues {
  stage: LedgerStage
  amount: string
  currency: string
  original_amount: string
  rate: string
  document_type: string
  document_id: number
  document_number: string
  line_id: number
  location_id: number
  department_id: number | null
  account_id: number | null
  budget_date: string
  reason: string
}

/** What a document's entries count, per line and place (sums of its entries; groups that net to 0 included). */
export const documentCounts = (db: Kysely<DB>, tenantId: number, type: string, id: number) =>
  db
    .selectFrom('ledger_entries')
    .select([
      'line_id',
      'stage',
      'location_id',
      'department_id',
      'account_id',
      sql<string>`to_char(budget_date, 'YYYY-MM-DD')`.as('budget_date'),
      'currency',
      sql<string>`rate::text`.as('rate'),
      sql<string>`sum(amount)::text`.as('amount'),
      sql<string>`sum(original_amount)::text`.as('original_amount'),
    ])
    .where('tenant_id', '=', tenantId)
    .where('document_type', '=', type)
    .where('document_id', '=', id)
    .groupBy(['line_id', 'stage', 'location_id', 'department_id', 'account_id', 'budget_date', 'currency', 'rate'])
    .orderBy('line_id')
    .execute()

/** The currency and rate each line first counted at (its first entry), by line id. */
export async function firstRates(db: Kysely<DB>, tenantId: number, type: string, id: number, lineIds?: number[]) {
  if (lineIds !== undefined && lineIds.length === 0) return new Map<number, { currency: string; rate: string }>()
  let q = db
    .selectFrom('ledger_entries')
    .distinctOn('line_id')
    .select(['line_id', 'currency', sql<string>`rate::text`.as('rate')])
    .where('tenant_id', '=', tenantId)
    .where('document_type', '=', type)
    .where('document_id', '=', id)
  if (lineIds !== undefined) q = q.where('line_id', 'in', lineIds)
  const rows = await q.orderBy('line_id').orderBy('id').execute()
  return new Map(rows.map((r) => [r.line_id, { currency: r.currency, rate: r.rate }]))
}

/** Appends entries and adds them to the kept totals (in key order, so concurrent writers never deadlock here). */
export async function insertEntries(db: Kysely<DB>, tenantId: number, entries: readonly EntryValues[]) {
  if (entries.length === 0) return
  await db
    .insertInto('ledger_entries')
    .values(entries.map((e) => ({ tenant_id: tenantId, ...e })))
    .execute()
  const totals = new Map<string, { key: (string | number)[]; cents: bigint }>()
  for (const e of entries) {
    const key = [e.budget_date, e.location_id, e.department_id ?? 0, e.account_id ?? 0, e.stage]
    const k = JSON.stringify(key)
    const t = totals.get(k) ?? { key, cents: 0n }
    t.cents += BigInt(e.amount.replace('.', ''))
    totals.set(k, t)
  }
  const rows = [...totals.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, t]) => t)
  const values = sql.join(
    rows.map(
      (t) =>
        sql`(${tenantId}::integer, ${t.key[0]}::date, ${t.key[1]}::integer, ${t.key[2]}::integer, ${t.key[3]}::integer, ${t.key[4]}::text, ${centsText(t.cents)}::numeric)`,
    ),
  )
  await sql`
    INSERT INTO ledger_totals (tenant_id, budget_date, location_id, department_id, account_id, stage, amount)
    VALUES ${values}
    ON CONFLICT (tenant_id, budget_date, location_id, department_id, account_id, stage)
    DO UPDATE SET amount = ledger_totals.amount + EXCLUDED.amount`.execute(db)
}

const centsText = (cents: bigint) => {
  const neg = cents < 0n
  const abs = neg ? -cents : cents
  return `${neg ? '-' : ''}${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`
}

/** The currency's name and rate, by id. */
export const currency = (db: Kysely<DB>, tenantId: number, id: number) =>
  db
    .selectFrom('currencies')
    .select(['name', sql<string>`rate::text`.as('rate')])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst()
