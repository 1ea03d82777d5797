/**
 * Vendors → Import from CSV: upload (the file's text) → preview with every row's problems, each row held to
 * the API's own validation of a vendor → import all rows or none, through the vendor service in one
 * transaction (a row the service refuses — a currency that is not the tenant's, say — undoes the lot and is
 * shown at its line). Cells are what a person types — currency codes, look-up and type names (ids still
 * accepted) — and a row repeating an existing vendor exactly (as an export does) is left alone. The template to start from; at most 1,000 rows. For `superuser` or `nav_purchase`.
 */
import { Type } from 'typebox'
import { requireAny, type Actor } from '../../access/actor.ts'
import { Problem } from '../../core/problem.ts'
import { bodyChecker } from '../../http/body-check.ts'
import { toCsv } from '../../http/list.ts'
import { VendorInput } from '../../vendors/schema.ts'
import { createVendors } from '../../vendors/service.ts'
import { sendPage, type ConsoleApp, type ConsoleDeps } from '../context.ts'
import { IMPORT_BASE, importView, previewView, type ImportRow } from '../views/vendor-import.ts'
import { VENDOR_LABELS } from '../views/vendors.ts'
import type { Values } from '../views/forms.ts'
import { errorsFor } from './forms.ts'
import { allVendors, resolveNames, unprefixed, vendorCsvRow, vendorNames, type VendorNames } from './vendor-csv.ts'
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
      type: 'Regular',
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

/** Which existing vendor a row stands for: the same external id, or (without one) the same name. */
const keyOf = (values: { readonly name?: string | undefined; readonly external_id?: string | undefined }) => {
  const external = (values.external_id ?? '').trim()
  return external === '' ? `name:${(values.name ?? '').trim()}` : `external:${external}`
}

/** A row's API body: names made ids, the `'` prefix gone, the type left to the API's default when blank. */
function bodyOf(values: Values, names: VendorNames, line: number) {
  const resolved = resolveNames(values, names, line)
  const body = vendorBodyOf(resolved.values)
  if ((values.type ?? '').trim() === '') delete body.type // the API's default
  return { body, errors: resolved.errors }
}

/**
 * The file's rows, each checked as the API checks a vendor (a row that repeats an existing vendor exactly, as
 * an export does, is marked unchanged and not imported again); or why the file cannot be read at all.
 */
async function readCsv(
  text: string,
  deps: ConsoleDeps,
  actor: Actor,
): Promise<{ rows: ImportRow[]; inputs: VendorInput[]; rowOfInput: number[] } | { problem: string }> {
  // The CSV parser is loaded on the first import, not with the server.
  const { CsvError, parse } = await import('csv-parse/sync')
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
  const [names, vendors] = await Promise.all([vendorNames(deps.db, actor), allVendors(deps, actor)])
  const existing = new Map(vendors.map((v) => [keyOf(v), v]))
  const rows: ImportRow[] = []
  const inputs: VendorInput[] = []
  const rowOfInput: number[] = []
  lines.forEach((fields, i) => {
    const line = i + 2
    const values: Record<string, string> = {}
    header.forEach((column, at) => (values[column] = unprefixed(fields[at] ?? '')))
    const { body, errors: nameErrors } = bodyOf(values, names, line)
    const checked = checkCreate(body)
    const errors = { ...(checked.ok ? {} : errorsFor(checked.errors, COLUMNS)), ...nameErrors }
    const same = existing.get(keyOf(values))
    const current = same === undefined ? undefined : bodyOf(vendorCsvRow(same, names), names, line).body
    const unchanged =
      current !== undefined && header.every((c) => JSON.stringify(body[c]) === JSON.stringify(current[c]))
    if (checked.ok && Object.keys(errors).length === 0 && !unchanged) {
      inputs.push(checked.value)
      rowOfInput.push(i)
    }
    rows.push({ line, values, errors, unchanged: unchanged && Object.keys(errors).length === 0 })
  })
  return { rows, inputs, rowOfInput }
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
    const read = await readCsv(csv, deps, request.session.actor)
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
      const read = await readCsv(csv, deps, request.session.actor)
      if ('problem' in read) return sendPage(reply, importView(csv, request.session, read.problem), 400)
      if (read.rows.some((r) => Object.keys(r.errors).length > 0))
        return sendPage(reply, previewView(read.rows, csv, request.session), 400)
      try {
        if (read.inputs.length > 0) await createVendors(db, lookups, request.session.actor, read.inputs)
      } catch (error) {
        if (!(error instanceof Problem) || error.status !== 400) throw error
        const perRow = [error.extra.errors ?? []].flat()
        const rows = read.rows.map((r, i) => {
          const at = read.rowOfInput.indexOf(i)
          return { ...r, errors: at < 0 ? {} : errorsFor(perRow[at] ?? {}, COLUMNS) }
        })
        return sendPage(reply, previewView(rows, csv, request.session, error.detail), 400)
      }
      return reply.redirect(`/console/vendors?done=imported`, 303)
    },
  )
}
