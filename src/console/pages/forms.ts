/** What the console's form pages share: reading a posted form, and turning a service's refusal into field errors. */
import { Type } from 'typebox'
import { Problem, type FieldErrors } from '../../core/problem.ts'
import type { Errors, FormState, Values } from '../views/forms.ts'

/** Rows on a console list page. */
export const PAGE_SIZE = 20

/** A posted id as the API body takes it: a number when it is digits, else the text (the API's check names it). */
export const idOrText = (text: string): number | string => (/^\d{1,10}$/.test(text) ? Number(text) : text)
/** A console list's query: the search, the page, and which action just finished (`done`). */
export const ListQuery = Type.Object({
  search: Type.Optional(Type.String({ maxLength: 200 })),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  done: Type.Optional(Type.String({ maxLength: 20 })),
})
export const Id = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2147483647 }) })
export const Done = Type.Object({ done: Type.Optional(Type.String({ maxLength: 20 })) })

/** What a finished action says on the page it leads to: `done` names one of `messages`, nothing else shows. */
export const flashOf =
  (messages: Readonly<Record<string, string>>) =>
  (done: string | undefined): string | undefined =>
    done === undefined || !Object.hasOwn(messages, done) ? undefined : messages[done]

/** A posted form: text fields, each at most 10,000 characters (the CSRF token is read before the schema). */
export const FormBody = Type.Record(Type.String({ maxLength: 200 }), Type.String({ maxLength: 10_000 }), {
  maxProperties: 200,
})

/** A form's values: the posted text of the fields it has (nothing else is kept). */
export function valuesOf(body: Readonly<Record<string, string>>, fields: readonly string[]): Values {
  const values: Record<string, string> = {}
  for (const name of fields) if (Object.hasOwn(body, name)) values[name] = body[name]!
  return values
}

/**
 * Field errors keyed by the form's fields: an API path such as `email.2` or `primary_billing_address.city`
 * belongs to the longest field of the form it starts with; one that belongs to none is kept as it is.
 */
export function errorsFor(errors: FieldErrors, fields: readonly string[]): Errors {
  const out: Record<string, string[]> = {}
  for (const [path, messages] of Object.entries(errors)) {
    const field =
      fields.filter((f) => path === f || path.startsWith(`${f}.`)).sort((a, b) => b.length - a.length)[0] ?? path
    ;(out[field] ??= []).push(...messages)
  }
  return out
}

/**
 * Runs a write for a form; a refusal with field errors (the API's 400) comes back as the form to show again,
 * anything else is thrown on (a 403, 404 or 409 has its own page).
 */
export async function attempt<T>(
  values: Values,
  fields: readonly string[],
  write: () => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; form: FormState; message: string }> {
  try {
    return { ok: true, value: await write() }
  } catch (error) {
    if (!(error instanceof Problem) || error.status !== 400) throw error
    const errors = [error.extra.errors ?? []].flat()[0] ?? {}
    return { ok: false, form: { values, errors: errorsFor(errors, fields) }, message: error.detail }
  }
}

/** Every row of a list, read 100 at a time (up to `pages` pages): for a form's choices. */
export async function allRows<T>(
  read: (query: { page: number; page_size: number; order_by: 'name' }) => Promise<{ rows: T[]; count: number }>,
  pages = 100,
): Promise<T[]> {
  const rows: T[] = []
  for (let page = 1; page <= pages; page++) {
    const result = await read({ page, page_size: 100, order_by: 'name' })
    rows.push(...result.rows)
    if (rows.length >= result.count || result.rows.length === 0) break
  }
  return rows
}

/**
 * A posted line editor (a request's, an order's): the top fields' values and every row's — removed rows
 * dropped, the rest renumbered — and `filled`, the rows not blank in the `edited` fields, with `rowOf` the
 * editor row of each (to put the service's `lines.<i>` errors back on their rows).
 */
export function readLineEditor(
  body: Readonly<Record<string, string>>,
  form: { top: readonly string[]; lineFields: readonly string[]; edited: readonly string[]; maxLines: number },
) {
  const posted = Math.min(form.maxLines, Math.max(1, Number.parseInt(body.rows ?? '', 10) || 1))
  const values: Record<string, string> = {}
  for (const name of form.top) if (Object.hasOwn(body, name)) values[name] = body[name]!.trim()
  const kept: Record<string, string>[] = []
  for (let i = 0; i < posted; i++) {
    if (body[`lines.${i}.remove`] === 'on') continue
    kept.push(Object.fromEntries(form.lineFields.map((f) => [f, (body[`lines.${i}.${f}`] ?? '').trim()])))
  }
  kept.forEach((line, k) => {
    for (const f of form.lineFields) values[`lines.${k}.${f}`] = line[f]!
  })
  const filled = kept.flatMap((line, row) => (form.edited.every((f) => line[f] === '') ? [] : [{ line, row }]))
  return { values, rows: kept.length, filled, rowOf: filled.map((f) => f.row) }
}
