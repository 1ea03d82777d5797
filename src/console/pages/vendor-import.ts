/**
 * Vendors → Import from CSV: upload (the file's text) → preview with every row's problems, each row held to
 * the API's own validation of a vendor → import all rows or none, through the vendor service in one
 * transaction (a row the service refuses — a currency that is not the tenant's, say — undoes the lot and is
 * shown at its line). The template to start from; at most 1,000 rows. For `superuser` or `nav_purchase`.
 */
import { CsvError, parse } from 'csv-parse/sync'
import { Type } from 'typebox'
import { requireAny } from '../../access/actor.ts'
import { Problem } from '../../core/problem.ts'
import { bodyChecker } from '../../http/body-check.ts'
import { toCsv } from '../../http/list.ts'
import { VendorInput } from '../../vendors/schema.ts'
import { createVendors } from '../../vendors/service.ts'
import { sendPage, type ConsoleApp, type ConsoleDeps } from '../context.ts'
import { IMPORT_BASE, importView, previewView, type ImportRow } from '../views/vendor-import.ts'
import { VENDOR_LABELS } from '../views/vendors.ts'
import { errorsFor } from './forms.ts'
import { vendorBodyOf } from './vendors.ts'

const COLUMNS = Object.keys(VENDOR_LABELS)
const MAX_ROWS = 1000
/** 1,000 rows of a few hundred characters each, with room to spare. */
const BODY_LIMIT = 2 * 1024 * 1024
const Csv = Type.Object({ csv: Type.String({ maxLength: BODY_LIMIT }), _csrf: Type.Optional(Type.String()) })
const checkCreate = bodyChecker(VendorInput)

const TEMPLATE = toCsv(
  [
    {
      name: 'Quill & Co',
      external_id: 'V-1001',
      type: 4,
      contact: 'Ada Quill',
      email: 'orders@quill.example, accounts@quill.example',
      phoneOne: '+44 20 7946 0000',
      addressLineOne: '1 Paper Lane',
      city: 'Leeds',
      postalCode: 'LS1 1AA',
      country: 'GB',
    },
  ],
  COLUMNS,
)

/** The file's rows, each checked as the API checks a vendor; or why the file cannot be read at all. */
function readCsv(text: string): { rows: ImportRow[]; inputs: VendorInput[] } | { problem: string } {
  let records: string[][]
  try {
    records = parse(text, {
      bom: true,
      skip_empty_lines: true,
      trim: true,
      relax_column_count: false,
    }) satisfies string[][]
  } catch (error) {
    if (error instanceof CsvError) return { problem: `The file is not valid CSV: ${error.message}` }
    throw error
  }
  const [header, ...lines] = records
  if (header === undefined || lines.length === 0)
    return { problem: 'The file has no vendors: a header line, then one vendor a line.' }
  const unknown = header.filter((h) => !COLUMNS.includes(h))
  if (unknown.length > 0)
    return { problem: `Unknown columns: ${unknown.join(', ')}. The columns are those of the template.` }
  if (new Set(header).size !== header.length) return { problem: 'A column is named twice in the header.' }
  if (!header.includes('name')) return { problem: 'The header has no name column: every vendor needs a name.' }
  if (lines.length > MAX_ROWS)
    return { problem: `The file has ${lines.length} vendors; at most ${MAX_ROWS} are imported at once.` }
  const rows: ImportRow[] = []
  const inputs: VendorInput[] = []
  lines.forEach((fields, i) => {
    const values: Record<string, string> = {}
    header.forEach((column, at) => (values[column] = fields[at] ?? ''))
    const body = vendorBodyOf(values)
    if ((values.type ?? '') === '') delete body.type // the API's default
    const checked = checkCreate(body)
    const errors = checked.ok ? {} : errorsFor(checked.errors, COLUMNS)
    if (checked.ok) inputs.push(checked.value)
    rows.push({ line: i + 2, values, errors })
  })
  return { rows, inputs }
}

export function vendorImportPages(app: ConsoleApp, deps: ConsoleDeps): void {
  const { db, lookups } = deps
  app.addHook('preHandler', async (request) => {
    if (request.routeOptions.url?.startsWith(IMPORT_BASE) === true)
      requireAny(request.session.actor, 'superuser', 'nav_purchase')
  })

  app.get('/vendors/import', { schema: { hide: true } }, async (request, reply) =>
    sendPage(reply, importView('', request.session)),
  )

  app.get('/vendors/import/template.csv', { schema: { hide: true } }, async (_request, reply) =>
    reply
      .header('content-disposition', 'attachment; filename="vendors-template.csv"')
      .header('cache-control', 'no-store')
      .type('text/csv; charset=utf-8')
      .send(TEMPLATE),
  )

  app.post('/vendors/import', { bodyLimit: BODY_LIMIT, schema: { hide: true, body: Csv } }, async (request, reply) => {
    const { csv } = request.body
    const read = readCsv(csv)
    if ('problem' in read) return sendPage(reply, importView(csv, request.session, read.problem), 400)
    const refused = read.rows.some((r) => Object.keys(r.errors).length > 0)
    return sendPage(reply, previewView(read.rows, csv, request.session), refused ? 400 : 200)
  })

  app.post(
    '/vendors/import/confirm',
    { bodyLimit: BODY_LIMIT, schema: { hide: true, body: Csv } },
    async (request, reply) => {
      const { csv } = request.body
      // Read and checked again: what was previewed is not trusted to be what came back.
      const read = readCsv(csv)
      if ('problem' in read) return sendPage(reply, importView(csv, request.session, read.problem), 400)
      if (read.rows.some((r) => Object.keys(r.errors).length > 0))
        return sendPage(reply, previewView(read.rows, csv, request.session), 400)
      try {
        await createVendors(db, lookups, request.session.actor, read.inputs)
      } catch (error) {
        if (!(error instanceof Problem) || error.status !== 400) throw error
        const perRow = [error.extra.errors ?? []].flat()
        const rows = read.rows.map((r, i) => ({ ...r, errors: errorsFor(perRow[i] ?? {}, COLUMNS) }))
        return sendPage(reply, previewView(rows, csv, request.session, error.detail), 400)
      }
      return reply.redirect(`/console/vendors?done=imported`, 303)
    },
  )
}
