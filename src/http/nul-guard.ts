/**
 * PostgreSQL text cannot hold the NUL character: a string with one would fail in the database (a 5xx) at
 * whatever query first used it. Refused here, up front, as a 400 for any body, query or path value.
 */
import type { FastifyInstance } from 'fastify'
import { badRequest } from './problem.ts'

function hasNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000')
  if (value === null || typeof value !== 'object' || depth > 64) return false
  if (Array.isArray(value)) return value.some((item) => hasNul(item, depth + 1))
  return Object.entries(value).some(([key, item]) => key.includes('\u0000') || hasNul(item, depth + 1))
}

export function nulGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    if (hasNul(request.body) || hasNul(request.query) || hasNul(request.params)) {
      throw badRequest('Text may not contain the NUL character (\\u0000).')
    }
  })
}
