/**
 * `GET /api/v3/reports/{name}/`, one route per report registered from its definition (so the OpenAPI
 * document carries each report's own row schema), answering in the form asked: JSON (default), CSV
 * (`?format=csv` or `Accept: text/csv`), XLSX (`?format=xlsx`) or SVG (`?format=svg`). An unknown name → 404.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type, type TSchema } from 'typebox'
import { FORMATS } from './filters.ts'
import { named } from '../core/schema.ts'
import { REPORTS, type ReportDefinition } from './definitions.ts'
import { sendReport, XLSX_TYPE } from './send.ts'
import { definitionOf } from './service.ts'

const FILTER_DOCS: Record<string, string> = {
  from: 'First date, inclusive (YYYY-MM-DD).',
  to: 'Last date, inclusive (YYYY-MM-DD).',
  location: 'A location id (you need nav_report there).',
  department: 'A department id.',
  vendor: 'A vendor id.',
  account: 'An account id.',
  as_of: 'The day the bills are aged on (YYYY-MM-DD); default today (UTC).',
}

function querySchema(report: ReportDefinition) {
  const properties: Record<string, TSchema> = {}
  for (const name of report.filters) {
    properties[name] =
      name === 'group_by'
        ? Type.Union(
            report.groupBy!.values.map((v) => Type.Literal(v)),
            { description: `What a row groups by; default ${report.groupBy!.default}.` },
          )
        : Type.String({ description: FILTER_DOCS[name]! })
  }
  properties.format = Type.Union(
    FORMATS.map((f) => Type.Literal(f)),
    { description: 'The form: json (default), csv, xlsx or svg (a chart). `Accept: text/csv` also asks for CSV.' },
  )
  return Type.Object(Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, Type.Optional(v)])))
}

const responseOf = (report: ReportDefinition) =>
  named(
    (report.row as { 'x-component'?: string })['x-component']!.replace(/Row$/, ''),
    Type.Object({
      data: Type.Array(report.row),
      metadata: Type.Object({
        filters: Type.Object(
          {},
          { additionalProperties: true, description: 'The filters applied, defaults included.' },
        ),
        totals: Type.Object({}, { additionalProperties: true, description: 'The sums of the rows.' }),
        currency: Type.String({ description: 'The base currency every amount is in.' }),
      }),
    }),
  )

export const reportRoutes: FastifyPluginAsyncTypebox = async (app) => {
  for (const report of REPORTS) {
    app.get(
      `/v3/reports/${report.name}/`,
      {
        schema: {
          summary: `${report.title} report: ${report.description} (nav_report)`,
          operationId: `report${report.title.replace(/\s+(\w)/g, (_m, c: string) => c.toUpperCase()).replace(/\s/g, '')}`,
          tags: ['reports'],
          querystring: querySchema(report),
          response: { 200: responseOf(report) },
          produces: ['application/json', 'text/csv', XLSX_TYPE, 'image/svg+xml'],
        },
      },
      (request: FastifyRequest, reply: FastifyReply) => sendReport(request, reply, report.name),
    )
  }
  app.get(
    '/v3/reports/:name/',
    { schema: { hide: true, params: Type.Object({ name: Type.String() }) } },
    (request: FastifyRequest<{ Params: { name: string } }>) => {
      definitionOf(request.params.name)
      return undefined
    },
  )
}
