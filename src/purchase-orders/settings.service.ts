/**
 * Procurement settings (DECISIONS, "Purchase orders and receiving"): the over-receipt, order-approval and
 * price tolerances (percent) and the match mode. Anyone of the tenant who works with orders reads them
 * through the services; the API reads and writes them with `superuser` or `nav_setting`.
 */
import type { Kysely } from 'kysely'
import { requireAny, type Actor } from '../access/actor.ts'
import { audit } from '../audit/service.ts'
import { trimDecimal } from '../core/decimal.ts'
import type { DB } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import type { ProcurementSettings, SettingsInput } from './settings.schema.ts'
import * as repo from './settings.repository.ts'

const toSettings = (row: repo.SettingsRow): ProcurementSettings => ({
  over_receipt_tolerance_percent: trimDecimal(row.over_receipt_tolerance_percent),
  po_approval_tolerance_percent: trimDecimal(row.po_approval_tolerance_percent),
  price_tolerance_percent: trimDecimal(row.price_tolerance_percent),
  match_mode: row.match_mode,
})

/** The tenant's settings (defaults until changed), for the services that apply them. */
export const procurementSettings = async (db: Kysely<DB>, tenantId: number) =>
  toSettings(await repo.findSettings(db, tenantId))

export async function getSettings(db: Kysely<DB>, actor: Actor): Promise<ProcurementSettings> {
  requireAny(actor, 'superuser', 'nav_setting')
  return procurementSettings(db, actor.tenantId)
}

/** PUT: the fields sent replace those stored; fields left out keep their values. */
export async function putSettings(db: Kysely<DB>, actor: Actor, input: SettingsInput): Promise<ProcurementSettings> {
  requireAny(actor, 'superuser', 'nav_setting')
  return inTransaction(db, async (tx) => {
    const current = await repo.findSettings(tx, actor.tenantId)
    await repo.saveSettings(tx, actor.tenantId, { ...current, ...input })
    await audit(tx, actor, {
      action: 'procurement_settings.update',
      resourceType: 'procurement_settings',
      resourceId: actor.tenantId,
      changes: input,
    })
    return procurementSettings(tx, actor.tenantId)
  })
}
