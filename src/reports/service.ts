/**
 * Reading a report (DECISIONS, "Reports"): the definition by name, its filters checked, the locations the
 * reader holds `nav_report` at (every one for a superuser) — none, or a `location` filter outside them, is a
 * 403 — and its rows, totals and currency: what every form (JSON, CSV, XLSX, SVG) is made of.
 */
import type { Kysely } from 'kysely'
import type { Actor } from '../access/actor.ts'
import { actorLocationAccess, locationsWithAny } from '../access/location-permissions.ts'
import { forbidden, notFound } from '../core/problem.ts'
import type { DB } from '../db/schema.ts'
import { REPORT_NAMES, reportNamed, type ReportDefinition, type Row } from './definitions.ts'
import { parseFilters, type Filters } from './filters.ts'
import * as repo from './repository.ts'
import { baseCurrency } from './currency.repository.ts'

export interface ReportResult {
  report: ReportDefinition
  filters: Filters
  rows: Row[]
  totals: Record<string, unknown>
  currency: string
}

/** The report's definition; 404 naming the reports there are. */
export function definitionOf(name: string): ReportDefinition {
  const report = reportNamed(name)
  if (report === undefined)
    throw notFound(`There is no report named ${name}; the reports are ${REPORT_NAMES.join(', ')}.`)
  return report
}

/** The locations whose rows the actor reads; 403 when they hold `nav_report` nowhere. */
export async function reportScope(db: Kysely<DB>, actor: Actor): Promise<repo.Scope> {
  const access = await actorLocationAccess(db, actor)
  const scope = locationsWithAny(access, 'nav_report')
  if (scope !== 'all' && scope.length === 0) {
    throw forbidden('Reports need the nav_report permission at a location; ask an administrator for it.')
  }
  return scope
}

/** Whether the actor may read reports at all (the console's menu and home page ask). */
export async function readsReports(db: Kysely<DB>, actor: Actor): Promise<boolean> {
  const access = await actorLocationAccess(db, actor)
  const scope = locationsWithAny(access, 'nav_report')
  return scope === 'all' || scope.length > 0
}

/** The filters of the report (those it takes) as they were applied, defaults included. */
function applied(report: ReportDefinition, filters: Filters): Record<string, unknown> {
  return Object.fromEntries(report.filters.map((name) => [name, filters[name]]))
}

export async function runReport(
  db: Kysely<DB>,
  actor: Actor,
  name: string,
  query: Record<string, unknown>,
): Promise<ReportResult> {
  const report = definitionOf(name)
  const filters = parseFilters(report, query)
  const scope = await reportScope(db, actor)
  if (filters.location !== null && scope !== 'all' && !scope.includes(filters.location)) {
    throw forbidden(`You do not hold nav_report at location ${filters.location}; choose a location you report on.`)
  }
  let everywhere = scope === 'all'
  if (scope !== 'all' && report.name === 'budgets') {
    const held = new Set(scope)
    everywhere = (await repo.locationIds(db, actor.tenantId)).every((id) => held.has(id))
  }
  const rows = await report.rows({ db, tenantId: actor.tenantId, scope, everywhere, filters })
  return {
    report,
    filters: { ...filters },
    rows,
    totals: report.totals(rows),
    currency: await baseCurrency(db, actor.tenantId),
  }
}

/** The JSON form: `{data, metadata: {filters, totals, currency}}`. */
export const reportJson = (result: ReportResult) => ({
  data: result.rows,
  metadata: { filters: applied(result.report, result.filters), totals: result.totals, currency: result.currency },
})
