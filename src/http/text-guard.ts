/**
 * Text PostgreSQL cannot store is refused up front, as a 400 naming the field, for any body, query or path
 * value (keys included): the NUL character, which `text` cannot hold, and lone UTF-16 surrogates (`"\ud800"`),
 * which are not Unicode text and fail wherever they are encoded (the database, the audit log's JSON).
 */
import type { FastifyInstance } from 'fastify'
import { validationFailed } from '../core/problem.ts'

const MAX_DEPTH = 64
/** In `u` mode a string is read by code points, so only an unpaired surrogate is a code point of category Cs. */
const LONE_SURROGATE = /\p{Cs}/u

function problemIn(text: string): string | undefined {
  if (text.includes('\u0000')) return 'may not contain the NUL character (\\u0000)'
  if (LONE_SURROGATE.test(text)) return 'contains a lone UTF-16 surrogate, which is not valid Unicode text'
  return undefined
}

/** The dotted path and the fault of the first bad string in `value`, if any. */
function findBadText(value: unknown, path: string[], depth = 0): { path: string[]; fault: string } | undefined {
  if (typeof value === 'string') {
    const fault = problemIn(value)
    return fault === undefined ? undefined : { path, fault }
  }
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return undefined
  const entries = Array.isArray(value) ? value.map((item, i) => [String(i), item] as const) : Object.entries(value)
  for (const [key, item] of entries) {
    const keyFault = problemIn(key)
    if (keyFault !== undefined) return { path: [...path, '(a field name)'], fault: keyFault }
    const found = findBadText(item, [...path, key], depth + 1)
    if (found !== undefined) return found
  }
  return undefined
}

export function textGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    for (const [part, value] of [
      ['body', request.body],
      ['query', request.query],
      ['path', request.params],
    ] as const) {
      const bad = findBadText(value, [])
      if (bad !== undefined) {
        const field = bad.path.join('.') || part
        throw validationFailed(
          { [field]: [bad.fault] },
          `The ${part} has text that cannot be stored: ${field} ${bad.fault}.`,
        )
      }
    }
  })
}
