/**
 * Reports in the console (nav_report): `/console/reports?report=…&<filters>` shows the chart and the table;
 * `/console/reports/download?…&format=csv|xlsx` sends exactly those rows, made the way the API makes them.
 */
import type { FastifyReply } from 'fastify'
import { REPORTS } from '../../reports/definitions.ts'
import { reportCsv, reportXlsx } from '../../reports/forms.ts'
import { filterOptions } from '../../reports/options.repository.ts'
import { reportSvgOf, XLSX_TYPE } from '../../reports/send.ts'
import { reportScope, runReport } from '../../reports/service.ts'
import { badRequest } from '../../core/problem.ts'
import { sendPage, type ConsoleApp, type ConsoleDeps } from '../context.ts'
import { reportsView } from '../views/reports.ts'

/** The query without the console's own `report` and `format`: the report's filters as given. */
function split(query: Record<string, unknown>) {
  const { report, format, ...filters } = query
  const name = typeof report === 'string' && report !== '' ? report : 'spend'
  return { name, format, filters }
}

const shown = (name: string, filters: Record<string, unknown>) =>
  new URLSearchParams({
    report: name,
    ...Object.fromEntries(Object.entries(filters).filter(([, v]) => typeof v === 'string' && v !== '')),
  } as Record<string, string>).toString()

export function reportPages(app: ConsoleApp, deps: ConsoleDeps): void {
  app.get('/reports', { schema: { hide: true } }, async (request, reply: FastifyReply) => {
    const { name, filters } = split(request.query as Record<string, unknown>)
    const actor = request.session.actor
    const result = await runReport(deps.db, actor, name, filters)
    const scope = await reportScope(deps.db, actor)
    const options = await filterOptions(deps.db, actor.tenantId, scope)
    const svg = await reportSvgOf(result, 'report-chart')
    return sendPage(
      reply,
      reportsView(
        {
          reports: REPORTS,
          report: result.report,
          filters: result.filters,
          options,
          rows: result.rows,
          totals: result.totals,
          currency: result.currency,
          svg,
          query: shown(name, filters),
        },
        request.session,
      ),
    )
  })

  app.get('/reports/download', { schema: { hide: true } }, async (request, reply: FastifyReply) => {
    const { name, format, filters } = split(request.query as Record<string, unknown>)
    if (format !== 'csv' && format !== 'xlsx')
      throw badRequest('Choose format=csv or format=xlsx to download.', { format: ['is csv or xlsx'] })
    const result = await runReport(deps.db, request.session.actor, name, filters)
    const file = `${result.report.name}${result.filters.group_by === null ? '' : `-by-${result.filters.group_by}`}`
    if (format === 'csv')
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${file}.csv"`)
        .send(reportCsv(result.report, result.rows))
    return reply
      .type(XLSX_TYPE)
      .header('content-disposition', `attachment; filename="${file}.xlsx"`)
      .send(await reportXlsx(result.report, result.rows))
  })
}
