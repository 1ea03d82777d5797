/**
 * Procurement settings (DECISIONS, "Purchase orders and receiving"): the over-receipt, order-approval and
 * price tolerances (percent) and the match mode. Anyone of the tenant who works with orders reads them
 * through the services; the API reads and writes them with `superuser` or `nav_setting`.
 */
import type { Kysely } from 'kysely'
import { requireAny, type Actor } from '../access/actor.ts'
import { audit } from '../audit/service.ts'
import { parseDecimal, sumDecimals, trimDecimal } from '../core/decimal.ts'
import { validationFailed, type FieldErrors } from '../core/problem.ts'
import type { DB } from '../db/schema.ts'
import { inTransaction } from '../db/transaction.ts'
import type { ProcurementSettings, SettingsInput } from './schema.ts'
import * as repo from './repository.ts'

const toSettings = (row: repo.SettingsRow): ProcurementSettings => ({
  over_receipt_tolerance_percent: trimDecimal(row.over_receipt_tolerance_percent),
  po_approval_tolerance_percent: trimDecimal(row.po_approval_tolerance_percent),
  price_tolerance_percent: trimDecimal(row.price_tolerance_percent),
  match_mode: row.match_mode,
  receipt_required_over: sumDecimals([row.receipt_required_over]),
})

/** The tenant's settings (defaults until changed), for the services that apply them. */
export const procurementSettings = async (db: Kysely<DB>, tenantId: number) =>
  toSettings(await repo.findSettings(db, tenantId))

export async function getSettings(db: Kysely<DB>, actor: Actor): Promise<ProcurementSettings> {
  requireAny(actor, 'superuser', 'nav_setting')
  return procurementSettings(db, actor.tenantId)
}

const PERCENTS = ['over_receipt_tolerance_percent', 'po_approval_tolerance_percent', 'price_tolerance_percent'] as const
/** The largest percentage a setting takes (DECISIONS: settings percentages are 0–1000). */
const MAX_PERCENT = parseDecimal('1000')

/** 400 naming each percentage above 1000. */
function requirePercentsInRange(input: SettingsInput) {
  const errors: FieldErrors = {}
  for (const field of PERCENTS) {
    const value = input[field]
    if (value !== undefined && parseDecimal(value) > MAX_PERCENT)
      errors[field] = [`must be a percentage from 0 to 1000; ${value} is too large`]
  }
  if (Object.keys(errors).length > 0) throw validationFailed(errors)
}

/** PUT: the fields sent replace those stored; fields left out keep their values. Percentages are 0–1000. */
export async function putSettings(db: Kysely<DB>, actor: Actor, input: SettingsInput): Promise<ProcurementSettings> {
  requireAny(actor, 'superuser', 'nav_setting')
  requirePercentsInRange(input)
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
