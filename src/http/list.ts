/**
 * The one list mechanism: query parameters every list accepts, the `{metadata: {pagination}, data}` envelope,
 * and absolute `next`/`previous` links that repeat the request with only `page` changed.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type, type TObject, type TProperties, type TSchema } from 'typebox'
import { badRequest, notFound } from './problem.ts'

export const DEFAULT_PAGE_SIZE = 10
export const MAX_PAGE_SIZE = 100

/** The query schema of a list: paging, ordering by one of `orderFields` (prefix `-` for descending), search, filters. */
export function listQuery<F extends TProperties>(orderFields: readonly string[], filters: F) {
  const orders = orderFields.flatMap((field) => [field, `-${field}`])
  return Type.Object(
    {
      page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'Page number, from 1.' })),
      page_size: Type.Optional(
        Type.Integer({ minimum: 1, description: `Items per page (default ${DEFAULT_PAGE_SIZE}; above ${MAX_PAGE_SIZE} is read as ${MAX_PAGE_SIZE}).` }),
      ),
      order_by: Type.Optional(Type.Union(orders.map((o) => Type.Literal(o)), { description: 'Sort field; prefix - for descending.' })),
      search: Type.Optional(Type.String({ maxLength: 200, description: 'Case-insensitive substring match.' })),
      format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')], { description: 'csv returns the page as text/csv.' })),
      ...filters,
    },
    { additionalProperties: false },
  )
}

export interface PageRequest {
  page: number
  pageSize: number
  offset: number
  orderBy: { field: string; direction: 'asc' | 'desc' }
  search: string | undefined
}

export function pageRequest(query: { page?: number; page_size?: number; order_by?: string; search?: string }): PageRequest {
  const page = query.page ?? 1
  const pageSize = Math.min(query.page_size ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
  const order = query.order_by ?? 'id'
  const search = query.search?.trim()
  return {
    page,
    pageSize,
    offset: (page - 1) * pageSize,
    orderBy: order.startsWith('-') ? { field: order.slice(1), direction: 'desc' } : { field: order, direction: 'asc' },
    search: search === undefined || search === '' ? undefined : search,
  }
}

/** `%` and `_` typed by the user are literal characters, not wildcards. */
export const likePattern = (search: string): string => `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

export const Pagination = Type.Object({
  count: Type.Integer(),
  next: Type.Union([Type.String({ format: 'uri' }), Type.Null()]),
  previous: Type.Union([Type.String({ format: 'uri' }), Type.Null()]),
  page_size: Type.Integer(),
  num_pages: Type.Integer(),
  current_page: Type.Integer(),
})

export const ListEnvelope = <T extends TSchema>(item: T) =>
  Type.Object({ metadata: Type.Object({ pagination: Pagination }), data: Type.Array(item) })

export const ItemEnvelope = <T extends TSchema>(item: T) =>
  Type.Object({ metadata: Type.Object({}, { additionalProperties: false }), data: item })

function pageLink(request: FastifyRequest, page: number): string {
  let url: URL
  try {
    url = new URL(request.url, `${request.protocol}://${request.host}`)
  } catch {
    throw badRequest('The Host header is not a valid host name; page links cannot be built from it.')
  }
  url.searchParams.set('page', String(page))
  return url.toString()
}

/** Wraps one page of rows; a page past the last is 404 (an empty list is page 1 of 1). */
export function listEnvelope<T>(request: FastifyRequest, page: PageRequest, count: number, data: T[]) {
  const numPages = Math.max(1, Math.ceil(count / page.pageSize))
  if (page.page > numPages) throw notFound(`Page ${page.page} does not exist; there ${numPages === 1 ? 'is 1 page' : `are ${numPages} pages`}.`)
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
    data,
  }
}


/**
 * One CSV field: quoted when it holds a comma, quote or line break; objects and arrays as JSON. Values are
 * written exactly as stored (a phone number may well start with "+"), so a spreadsheet should import them
 * as text rather than evaluate them (docs/api.md says so).
 */
function csvField(value: unknown): string {
  const text = value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : `${value as string | number | boolean}`
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

/** The page's items as CSV (RFC 4180): a header of the items' top-level field names, then one row each. */
export function toCsv(items: readonly object[], columns?: readonly string[]): string {
  const header = columns ?? Object.keys(items[0] ?? {})
  const lines = [header.map(csvField).join(',')]
  for (const item of items) lines.push(header.map((key) => csvField((item as Record<string, unknown>)[key])).join(','))
  return `${lines.join('\r\n')}\r\n`
}

/**
 * Sends a list as JSON, or as CSV with `format=csv` (pagination then travels in the Link header); the CSV
 * columns are the item schema's fields, so even an empty page has its header row.
 */
export function sendList<T extends object>(
  reply: FastifyReply,
  format: 'json' | 'csv' | undefined,
  envelope: ReturnType<typeof listEnvelope<T>>,
  item: TObject,
) {
  const columns = Object.keys(item.properties)
  if (format !== 'csv') return reply.send(envelope)
  const { next, previous, count } = envelope.metadata.pagination
  const links = [next && `<${next}>; rel="next"`, previous && `<${previous}>; rel="prev"`].filter(Boolean)
  if (links.length > 0) reply.header('link', links.join(', '))
  return reply.header('x-total-count', String(count)).type('text/csv; charset=utf-8').send(toCsv(envelope.data, columns))
}
