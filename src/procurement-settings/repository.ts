/** SQL for a tenant's procurement settings: one row, created on the first write (defaults until then). */
import { sql, type Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'

export interface SettingsRow {
  over_receipt_tolerance_percent: string
  po_approval_tolerance_percent: string
  price_tolerance_percent: string
  match_mode: 'two_way' | 'three_way'
  receipt_required_over: string
}

export const DEFAULTS: SettingsRow = {
  over_receipt_tolerance_percent: '0',
  po_approval_tolerance_percent: '10',
  price_tolerance_percent: '5',
  match_mode: 'three_way',
  receipt_required_over: '25',
}

export async function findSettings(db: Kysely<DB>, tenantId: number): Promise<SettingsRow> {
  const row = await db
    .selectFrom('procurement_settings')
    .select([
      sql<string>`over_receipt_tolerance_percent::text`.as('over_receipt_tolerance_percent'),
      sql<string>`po_approval_tolerance_percent::text`.as('po_approval_tolerance_percent'),
      sql<string>`price_tolerance_percent::text`.as('price_tolerance_percent'),
      'match_mode',
      sql<string>`receipt_required_over::text`.as('receipt_required_over'),
    ])
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst()
  return row ?? DEFAULTS
}

export async function saveSettings(db: Kysely<DB>, tenantId: number, values: SettingsRow) {
  await db
    .insertInto('procurement_settings')
    .values({ tenant_id: tenantId, ...values })
    .onConflict((oc) => oc.column('tenant_id').doUpdateSet({ ...values, updated_at: new Date() }))
    .execute()
}
