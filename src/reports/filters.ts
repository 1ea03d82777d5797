/**
 * A report's filters from the query string (DECISIONS, "Reports"): `from`, `to` (dates, inclusive),
 * `location`, `department`, `vendor`, `account` (ids), `group_by` where the report groups and `as_of` where it
 * ages. Every filter is checked here, once for every form; a bad one is a 400 that names it, and so is a
 * filter the report does not take (a filter that would be silently ignored would show the wrong rows).
 */
import { badRequest } from '../core/problem.ts'

export type FilterName = 'from' | 'to' | 'location' | 'department' | 'vendor' | 'account' | 'group_by' | 'as_of'

export interface Filters {
  from: string | null
  to: string | null
  location: number | null
  department: number | null
  vendor: number | null
  account: number | null
  group_by: string | null
  as_of: string | null
}

/** What parsing takes from the report's definition. */
export interface FilterRules {
  name: string
  filters: readonly FilterName[]
  groupBy?: { values: readonly string[]; default: string }
}

/** Parameters that choose the form, not the rows. */
const FORM_PARAMETERS = new Set(['format'])
export const FORMATS = ['json', 'csv', 'xlsx', 'svg'] as const
export type Format = (typeof FORMATS)[number]

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const ID = /^[1-9]\d{0,9}$/

function date(filter: string, text: string): string {
  const m = DATE.exec(text)
  const day = m === null ? NaN : Date.parse(`${text}T00:00:00Z`)
  const valid = !Number.isNaN(day) && new Date(day).toISOString().slice(0, 10) === text
  if (!valid) fail(filter, `${filter} must be a date written YYYY-MM-DD, such as 2026-11-01.`)
  return text
}

function id(filter: string, text: string): number {
  const n = ID.test(text) ? Number(text) : NaN
  if (!(n <= 2147483647)) fail(filter, `${filter} must be the id of a ${filter} (a whole number from 1).`)
  return n
}

function fail(filter: string, detail: string): never {
  throw badRequest(detail, { [filter]: [detail] })
}

/** Today's date (UTC) as YYYY-MM-DD. */
export const today = () => new Date().toISOString().slice(0, 10)

/**
 * The filters of `query` for the report `rules` describes. A parameter given twice, empty where a value is
 * needed, unknown, or one the report does not take → 400 naming it. Empty values of the console's form
 * (`?vendor=`) mean "no filter".
 */
export function parseFilters(rules: FilterRules, query: Record<string, unknown>): Filters {
  const out: Filters = {
    from: null,
    to: null,
    location: null,
    department: null,
    vendor: null,
    account: null,
    group_by: null,
    as_of: null,
  }
  for (const key of Object.keys(query)) {
    if (FORM_PARAMETERS.has(key)) continue
    const raw = query[key]
    const name = key as FilterName
    if (!Object.hasOwn(out, key)) {
      fail(
        key,
        `${key} is not a filter of reports; use from, to, location, department, vendor, account, group_by or as_of.`,
      )
    }
    if (!rules.filters.includes(name)) {
      fail(key, `The ${rules.name} report takes no ${key} filter; it takes ${rules.filters.join(', ')}.`)
    }
    if (typeof raw !== 'string') fail(key, `Give ${key} once.`)
    const text = raw
    if (text === '') continue
    switch (name) {
      case 'from':
      case 'to':
      case 'as_of':
        out[name] = date(name, text)
        break
      case 'location':
      case 'department':
      case 'vendor':
      case 'account':
        out[name] = id(name, text)
        break
      case 'group_by': {
        const values = rules.groupBy?.values ?? []
        if (!values.includes(text))
          fail('group_by', `group_by of the ${rules.name} report is one of ${values.join(', ')}.`)
        out.group_by = text
        break
      }
    }
  }
  if (out.from !== null && out.to !== null && out.from > out.to) fail('to', 'to must be on or after from.')
  if (rules.groupBy !== undefined && out.group_by === null) out.group_by = rules.groupBy.default
  if (rules.filters.includes('as_of') && out.as_of === null) out.as_of = today()
  return out
}

/** The form asked for: `?format=` first, else `Accept: text/csv`, else JSON; an unknown format → 400. */
export function formatOf(query: Record<string, unknown>, accept: string | undefined): Format {
  const format = query.format
  if (format !== undefined) {
    if (typeof format !== 'string' || !(FORMATS as readonly string[]).includes(format)) {
      fail('format', 'format is one of json, csv, xlsx or svg.')
    }
    return format as Format
  }
  return accept !== undefined && /\btext\/csv\b/i.test(accept) ? 'csv' : 'json'
}
