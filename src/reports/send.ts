/** Sends a report in the form asked; the console's downloads use it as the API does. */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { formatOf } from './filters.ts'
import { reportCsv, reportXlsx } from './forms.ts'
import { reportJson, runReport, type ReportResult } from './service.ts'

export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'

/** The chart's title: the report, its grouping and its currency (`Spend by vendor, USD`). */
export const reportCaption = (result: ReportResult) =>
  `${result.report.title}${result.filters.group_by === null ? '' : ` by ${result.filters.group_by}`}${
    result.report.chart.unit === 'hours' ? ', median hours' : `, ${result.currency}`
  }`

/**
 * The chart's SVG. The chart library (Apache ECharts, about 1.3 MB of code) is loaded on the first chart, not
 * with the server: loaded at start it tripled the heap every request's garbage collection walks.
 */
export const reportSvgOf = async (result: ReportResult, id?: string): Promise<string> =>
  (await import('./chart.ts')).reportSvg(result.report, result.rows, reportCaption(result), id)

const fileName = (result: ReportResult, extension: string) =>
  `${result.report.name}${result.filters.group_by === null ? '' : `-by-${result.filters.group_by}`}.${extension}`

export async function sendReport(request: FastifyRequest, reply: FastifyReply, name: string) {
  const query = { ...(request.query as Record<string, unknown>) }
  const format = formatOf(query, request.headers.accept)
  const result = await runReport(request.db, request.actor, name, query)
  switch (format) {
    case 'json':
      return reply.send(reportJson(result))
    case 'csv':
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${fileName(result, 'csv')}"`)
        .send(reportCsv(result.report, result.rows))
    case 'xlsx':
      return reply
        .type(XLSX_TYPE)
        .header('content-disposition', `attachment; filename="${fileName(result, 'xlsx')}"`)
        .send(await reportXlsx(result.report, result.rows))
    case 'svg':
      return reply.type('image/svg+xml; charset=utf-8').send(await reportSvgOf(result))
  }
}
