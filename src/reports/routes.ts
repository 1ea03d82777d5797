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

const FILTER_DOCS: Record<string, readonly [description: string, example: string]> = {
  from: ['First date, inclusive (YYYY-MM-DD).', '2026-01-01'],
  to: ['Last date, inclusive (YYYY-MM-DD).', '2026-12-31'],
  location: ['A location id (you need nav_report there).', '3'],
  department: ['A department id.', '9'],
  vendor: ['A vendor id.', '4'],
  account: ['An account id.', '3'],
  as_of: ['The day the bills are aged on (YYYY-MM-DD); default today (UTC).', '2026-11-30'],
}

function querySchema(report: ReportDefinition) {
  const properties: Record<string, TSchema> = {}
  for (const name of report.filters) {
    if (name === 'group_by') {
      properties[name] = Type.Union(
        report.groupBy!.values.map((v) => Type.Literal(v)),
        {
          description: `What a row groups by; default ${report.groupBy!.default}.`,
          examples: [report.groupBy!.values.at(-1)],
        },
      )
    } else {
      const [description, example] = FILTER_DOCS[name]!
      properties[name] = Type.String({ description, examples: [example] })
    }
  }
  properties.format = Type.Union(
    FORMATS.map((f) => Type.Literal(f)),
    { description: 'The form: json (default), csv, xlsx or svg (a chart). `Accept: text/csv` also asks for CSV.' },
  )
  return Type.Object(Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, Type.Optional(v)])))
}

/** The report's metadata as the document's example: its filters' defaults, the totals of its example row. */
function metadataExample(report: ReportDefinition) {
  const row = Object.fromEntries(
    Object.entries(report.row.properties).map(([field, schema]) => [
      field,
      (schema as { examples?: unknown[] }).examples?.[0],
    ]),
  )
  const defaults: Record<string, string> = { group_by: report.groupBy?.default ?? '', as_of: '2026-11-30' }
  return {
    filters: Object.fromEntries(report.filters.map((name) => [name, defaults[name] ?? null])),
    totals: report.totals([row]),
    currency: 'USD',
  }
}

const responseOf = (report: ReportDefinition) =>
  named(
    (report.row as { 'x-component'?: string })['x-component']!.replace(/Row$/, ''),
    Type.Object({
      data: Type.Array(report.row),
      metadata: Type.Object(
        {
          filters: Type.Object(
            {},
            { additionalProperties: true, description: 'The filters applied, defaults included.' },
          ),
          totals: Type.Object({}, { additionalProperties: true, description: 'The sums of the rows.' }),
          currency: Type.String({ description: 'The base currency every amount is in.' }),
        },
        {
          description: 'The filters applied, the totals of the rows, and their currency.',
          examples: [metadataExample(report)],
        },
      ),
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
