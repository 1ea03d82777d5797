/**
 * Document numbers (DECISIONS: `PO-000042`): a per-tenant sequence for each kind of document, at least six
 * digits, unique in the tenant and never reused — one row per tenant and kind in `document_numbers`, bumped
 * in the transaction that writes the document (a rolled-back write gives its number back with it).
 */
import { sql, type Kysely } from 'kysely'
import type { DB } from './schema.ts'

/** Each numbered document kind and its prefix. */
export const NUMBER_PREFIXES = {
  purchase_order: 'PO',
  receipt: 'GR',
  expense_report: 'EXP',
  travel_request: 'TR',
  payment_request: 'PAY',
  payment_run: 'RUN',
} as const
export type NumberedKind = keyof typeof NUMBER_PREFIXES

/** The next number of this kind for the tenant (`PO-000001`). */
export async function nextNumber(db: Kysely<DB>, tenantId: number, kind: NumberedKind): Promise<string> {
  // Formatted here, so the statement's answer is the number itself (at least six digits, never cut).
  const row = await sql<{ number: string }>`insert into document_numbers as n (tenant_id, kind, last)
    values (${tenantId}, ${kind}, 1)
    on conflict (tenant_id, kind) do update set last = n.last + 1
    returning ${NUMBER_PREFIXES[kind]}::text || '-' || lpad(n.last::text, greatest(6, length(n.last::text)), '0') as number`.execute(
    db,
  )
  return row.rows[0]!.number
}
