/**
 * Lists on the wire: the `{metadata: {pagination}, data}` envelope,
 * absolute `next`/`previous` links that repeat the request with only `page` changed, and CSV. `listRoute`
 * declares a list route; services return a `Page` (core/list-query.ts) and know nothing of this.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type, type Static, type TObject, type TSchema } from 'typebox'
import type { Actor } from '../access/actor.ts'
import type { Kysely } from 'kysely'
import type { Page } from '../core/list-query.ts'
import type { DB } from '../db/schema.ts'
import { notFound } from '../core/problem.ts'
import { named } from '../core/schema.ts'

export const Pagination = named(
  'Pagination',
  Type.Object({
    count: Type.Integer(),
    next: Type.Union([Type.String({ format: 'uri-reference' }), Type.Null()], {
      description: 'The next page: absolute under the configured public address, else relative; null on the last page.',
    }),
    previous: Type.Union([Type.String({ format: 'uri-reference' }), Type.Null()], {
      description: 'The previous page, like `next`; null on the first page.',
    }),
    page_size: Type.Integer(),
    num_pages: Type.Integer(),
    current_page: Type.Integer(),
  }),
)

/** The name an item schema has in the OpenAPI document, if any. */
const nameOf = (item: TSchema) => (item as { 'x-component'?: string })['x-component']

/** `{metadata: {pagination}, data: [item…]}`; named `<Item>List` in the OpenAPI document when the item is named. */
export const ListEnvelope = <T extends TSchema>(item: T) => {
  const envelope = Type.Object({ metadata: Type.Object({ pagination: Pagination }), data: Type.Array(item) })
  const name = nameOf(item)
  return name === undefined ? envelope : named(`${name}List`, envelope)
}

/** `{metadata: {}, data: item}`; named `<Item>Envelope` in the OpenAPI document when the item is named. */
export const ItemEnvelope = <T extends TSchema>(item: T) => {
  const envelope = Type.Object({ metadata: Type.Object({}, { additionalProperties: false }), data: item })
  const name = nameOf(item)
  return name === undefined ? envelope : named(`${name}Envelope`, envelope)
}

/** The same request with only `page` changed, under the configured public address (or relative). */
function pageLink(request: FastifyRequest, page: number): string {
  // Only the path and query of the target are used; its authority (if absolute-form) was checked against Host.
  const url = new URL(request.url, 'http://target.invalid')
  url.searchParams.set('page', String(page))
  return `${request.linkBase}${url.pathname}${url.search}`
}

/** Wraps one page of items; a page past the last is 404 (an empty list is page 1 of 1). */
export function listEnvelope<T>(request: FastifyRequest, { rows, count, page }: Page<T>) {
  const numPages = Math.max(1, Math.ceil(count / page.pageSize))
  if (page.page > numPages) {
    throw notFound(`Page ${page.page} does not exist; there ${numPages === 1 ? 'is 1 page' : `are ${numPages} pages`}.`)
  }
  return {
    metadata: {
      pagination: {
        count,
        next: page.page < numPages ? pageLink(request, page.page + 1) : null,
        previous: page.page > 1 ? pageLink(request, page.page - 1) : null,
        page_size: page.pageSize,
        num_pages: numPages,
        current_page: page.page,
      },
    },
    data: rows,
  }
}

/** A text cell a spreadsheet would read as a formula (OWASP, "CSV injection"). */
const FORMULA_START = /^[=+\-@\t\r]/

/**
 * One CSV field: quoted when it holds a comma, quote or line break; objects and arrays as JSON. A text that
 * starts with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'`, so a spreadsheet shows it
 * as text instead of evaluating it (DECISIONS; the console's CSV import takes the `'` off again). Numbers
 * are numbers (a negative one stays `-5`): only text is prefixed.
 */
function csvField(value: unknown, numeric = false): string {
  const raw =
    value === null || value === undefined
      ? ''
      : typeof value === 'object'
        ? JSON.stringify(value)
        : `${value as string | number | boolean}`
  const text = typeof value === 'string' && !numeric && FORMULA_START.test(raw) ? `'${raw}` : raw
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

/**
 * Items as CSV (RFC 4180): a header of the given columns, then one row each. The `numeric` columns hold
 * decimal strings (`"-12.50"`) written as the numbers they are, never prefixed (reports/forms.ts).
 */
export function toCsv(items: readonly object[], columns: readonly string[], numeric?: ReadonlySet<string>): string {
  const lines = [columns.map((c) => csvField(c)).join(',')]
  for (const item of items)
    lines.push(columns.map((key) => csvField((item as Record<string, unknown>)[key], numeric?.has(key))).join(','))
  return `${lines.join('\r\n')}\r\n`
}

/**
 * Sends a page as the JSON envelope, or as CSV with `format=csv` (pagination then travels in the Link and
 * X-Total-Count headers); the CSV columns are the item schema's fields, so even an empty page has its header.
 */
export function sendPage<T extends object>(request: FastifyRequest, reply: FastifyReply, page: Page<T>, item: TObject) {
  const envelope = listEnvelope(request, page)
  const format = (request.query as { format?: string } | undefined)?.format
  if (format !== 'csv') return reply.send(envelope)
  const { next, previous, count } = envelope.metadata.pagination
  const links = [next && `<${next}>; rel="next"`, previous && `<${previous}>; rel="prev"`].filter(Boolean)
  if (links.length > 0) reply.header('link', links.join(', '))
  return reply
    .header('x-total-count', String(count))
    .type('text/csv; charset=utf-8')
    .send(toCsv(envelope.data, Object.keys(item.properties)))
}

type TypeBoxApp = Parameters<FastifyPluginAsyncTypebox>[0]

/** Declares `GET url`: a list with `query`'s parameters whose items are `item`, read by `list`. */
export function listRoute<Q extends TObject, I extends TObject>(
  app: TypeBoxApp,
  url: string,
  options: {
    summary: string
    tags: string[]
    query: Q
    item: I
    list: (request: { actor: Actor; db: Kysely<DB>; query: Static<Q> }) => Promise<Page<Static<I>>>
  },
): void {
  const { summary, tags, query, item, list } = options
  app.get(
    url,
    {
      schema: {
        summary,
        tags,
        querystring: query,
        response: { 200: ListEnvelope(item) },
        produces: ['application/json', 'text/csv'],
      },
    },
    async (request, reply) => {
      const page = await list({ actor: request.actor, db: request.db, query: request.query as Static<Q> })
      return sendPage(request, reply, page, item)
    },
  )
}
