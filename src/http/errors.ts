/**
 * The one error handler: every error outside /oauth/ leaves through here as a problem document. Validation
 * errors become field errors; a lost database becomes 503; anything unknown becomes a 500 that says nothing
 * about its cause (the cause goes to the log).
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { alternatives, messageFor, typeWord, type ValidatorError } from './messages.ts'
import {
  conflict,
  internalError,
  Problem,
  serviceUnavailable,
  validationFailed,
  type FieldErrors,
} from '../core/problem.ts'

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  413: 'Content Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  431: 'Request Header Fields Too Large',
}

export function sendProblem(reply: FastifyReply, problem: Problem): FastifyReply {
  for (const [name, value] of Object.entries(problem.extra.headers ?? {})) reply.header(name, value)
  return reply.code(problem.status).type('application/problem+json').send(problem.toBody())
}

/**
 * SQLSTATEs that mean "the database cannot serve us now", not "your input is wrong": connection failures
 * (class 08), shutdown and crash (57P01–57P03), a statement cancelled (57014: it ran past the statement
 * timeout, or an operator cancelled it), too many connections or out of resources (class 53), a
 * database that refuses connections (55000, e.g. ALLOW_CONNECTIONS false), or one that is gone (3D000) or
 * refuses our credentials (28000, 28P01).
 */
const UNAVAILABLE_CODES = /^(08|53|57014$|57P0[1-3]$|55000$|3D000$|28000$|28P01$)/
const UNAVAILABLE_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
])
/** Driver and pool messages for the same: node-postgres's pool and client, and the embedded PGlite. */
const UNAVAILABLE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|connection timeout|Cannot use a pool after calling end|not queryable|the database system is (starting up|shutting down)|too many (clients|connections)|PGlite is closed|PGlite is not ready|driver has already been destroyed|Aborted\(/i

export function isDatabaseUnavailable(error: unknown): boolean {
  if (error === null || typeof error !== 'object') return false
  const e = error as { code?: unknown; message?: unknown; cause?: unknown }
  if (typeof e.code === 'string' && (UNAVAILABLE_CODES.test(e.code) || UNAVAILABLE_ERRNOS.has(e.code))) return true
  if (typeof e.message === 'string' && UNAVAILABLE_MESSAGES.test(e.message)) return true
  // AggregateError (a failed connect to every address of a host) and wrapped causes.
  const inner = (error as { errors?: unknown }).errors
  if (Array.isArray(inner) && inner.some(isDatabaseUnavailable)) return true
  return e.cause !== undefined && e.cause !== error && isDatabaseUnavailable(e.cause)
}

/**
 * SQLSTATEs of a write that lost a race with another (DECISIONS: "concurrent identical writes never 500"): a
 * unique key another transaction took first (23505), a serialization failure (40001), a deadlock (40P01).
 * Services lock or check where they can; this is the net under them, so the loser gets a 409, not a 500.
 */
const RACE_CODES = new Set(['23505', '40001', '40P01'])

/** A 409 for a write that lost a race with a concurrent one; undefined for any other error. */
export function concurrentWriteConflict(error: unknown): Problem | undefined {
  const code = (error as { code?: unknown } | null)?.code
  if (typeof code !== 'string' || !RACE_CODES.has(code)) return undefined
  return conflict('A concurrent request changed the same thing at the same moment; read it again and retry if needed.')
}

export function problemHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof Problem) {
    // A 503 a service raised (the file store, the virus scanner) is the operator's to know of, not only the client's.
    if (error.status === 503) request.log.error({ detail: error.detail }, 'a service the request needs is unavailable')
    return sendProblem(reply, error)
  }
  if (error.validation !== undefined) {
    return sendProblem(reply, validationFailed(fieldErrors(error), describeValidation(error)))
  }
  if (isDatabaseUnavailable(error)) {
    request.log.error({ err: { message: error.message, code: error.code } }, 'database unavailable')
    return sendProblem(reply, serviceUnavailable('The database is unavailable; try again shortly.'))
  }
  const race = concurrentWriteConflict(error)
  if (race !== undefined) {
    request.log.warn({ err: { message: error.message, code: error.code } }, 'concurrent write conflict')
    return sendProblem(reply, race)
  }
  const status = error.statusCode ?? 500
  if (status >= 400 && status < 500) {
    const detail = status === 413 ? 'The request body is larger than the service accepts.' : error.message
    return sendProblem(reply, new Problem(status, TITLES[status] ?? 'Bad Request', detail))
  }
  request.log.error({ err: error }, 'unhandled error')
  return sendProblem(reply, internalError())
}

function describeValidation(error: FastifyError): string {
  const part = error.validationContext ?? 'request'
  const where = part === 'querystring' ? 'query string' : part === 'params' ? 'path' : part
  return `The ${where} is not valid; see errors.`
}

/** Turns a Fastify validation error into field errors. */
export function fieldErrors(error: FastifyError): FieldErrors | FieldErrors[] {
  const validation = error.validation ?? []
  const isBatch = error.validationContext === 'body' && validation.some((v) => /^\/\d+(\/|$)/.test(v.instancePath))
  return toFieldErrors(validation, isBatch, error.validationContext === 'body' ? 'body' : 'request')
}

export type { ValidatorError } from './messages.ts'

/** Validator errors as `{path: [messages]}` (nested paths dotted); for a batch, one object per item index. */
export function toFieldErrors(
  validation: readonly ValidatorError[],
  isBatch: boolean,
  fallback = 'body',
  itemCount = 0,
): FieldErrors | FieldErrors[] {
  // Field names come from the client: collected in null-prototype objects, so `toString` is just a name.
  const perItem: FieldErrors[] = []
  const flat: FieldErrors = Object.create(null) as FieldErrors
  for (const v of explainUnions(validation)) {
    const params = v.params
    const segments = v.instancePath
      .split('/')
      .slice(1)
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    if (v.keyword === 'required') segments.push(String(params.missingProperty))
    else if (v.keyword === 'additionalProperties') segments.push(String(params.additionalProperty))
    const message = messageFor(v)
    let target = flat
    if (isBatch) {
      const index = Number(segments.shift())
      target = perItem[index] ??= Object.create(null) as FieldErrors
    }
    const field = segments.join('.') || fallback
    const messages = (target[field] ??= [])
    if (!messages.includes(message)) messages.push(message)
  }
  for (const target of isBatch ? perItem : [flat])
    for (const field in target) target[field] = oneProblem(target[field]!)
  if (isBatch)
    return Array.from(
      { length: Math.max(itemCount, perItem.length) },
      (_, i) => perItem[i] ?? (Object.create(null) as FieldErrors),
    )
  return flat
}

/** An empty value is also a blank one: "must not be empty" says it once. */
const oneProblem = (messages: string[]) =>
  messages.includes('must not be empty') ? messages.filter((m) => m !== 'must not be blank') : messages

/**
 * A value that matches no branch of a union gets one error per branch ("must be equal to constant",
 * "must be integer", "must be null") and "must match a schema in anyOf". Say instead what is allowed:
 * "must be one of: id, -id, name, -name", or "must be a whole number or null". When the value has the type of
 * one branch and fails that branch's own rule (an e-mail that is not one, a missing field inside an object),
 * that rule is the one problem: the other branches' type mismatches are left out.
 */
function explainUnions(validation: readonly ValidatorError[]): ValidatorError[] {
  const unions = new Set(validation.filter((v) => v.keyword === 'anyOf').map((v) => v.instancePath))
  if (unions.size === 0) return [...validation]
  const branchOnly = (v: ValidatorError) => v.keyword === 'anyOf' || v.keyword === 'const' || v.keyword === 'type'
  const out: ValidatorError[] = []
  const explained = new Set<string>()
  for (const path of unions) {
    const deeper = validation.some(
      (v) => (v.instancePath === path && !branchOnly(v)) || v.instancePath.startsWith(`${path}/`),
    )
    explained.add(path)
    if (deeper) continue
    const branches = validation.filter(
      (v) => v.instancePath === path && (v.keyword === 'const' || v.keyword === 'type'),
    )
    const values = branches.filter((v) => v.keyword === 'const').map((v) => v.params.allowedValue)
    // A branch that is one value (a literal) says so by its value; its type ("text") adds nothing to it, and
    // would offer any text where only the values are taken (a query parameter given twice is a list).
    const branchOf = (v: ValidatorError) => v.schemaPath?.replace(/\/[^/]*$/, '')
    const literal = new Set(branches.filter((v) => v.keyword === 'const').map(branchOf))
    const types = [
      ...new Set(
        branches
          .filter((v) => v.keyword === 'type' && (v.schemaPath === undefined || !literal.has(branchOf(v))))
          .map((v) => String(v.params.type)),
      ),
    ]
    const shown = values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)))
    const message =
      values.length > 0 && types.length === 0
        ? `must be one of: ${shown.join(', ')}`
        : `must be ${alternatives([...shown, ...types.map((t) => typeWord(t))])}`
    out.push({ instancePath: path, keyword: 'union', params: {}, message })
  }
  for (const v of validation) if (!(explained.has(v.instancePath) && branchOnly(v))) out.push(v)
  return out
}
