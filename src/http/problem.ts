/**
 * Errors with stable meanings, thrown anywhere and turned into `application/problem+json` (RFC 9457) once,
 * by `problemHandler`. Internals (stack traces, SQL) never leave the process: a 500 says only that it failed.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'

/** Field errors: `{ "primary_billing_address.city": ["is required"] }`, or one such object per batch item. */
export type FieldErrors = Record<string, string[]>

export class Problem extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string,
    readonly extra: { errors?: FieldErrors | FieldErrors[]; headers?: Record<string, string> } = {},
  ) {
    super(detail)
  }

  /** Lets handlers that know only Fastify's errors (the OAuth one) see the status. */
  get statusCode(): number {
    return this.status
  }
}

export const badRequest = (detail: string, errors?: FieldErrors | FieldErrors[]) =>
  new Problem(400, 'Bad Request', detail, errors ? { errors } : {})
export const validationFailed = (errors: FieldErrors | FieldErrors[], detail = 'The request is not valid; see errors.') =>
  new Problem(400, 'Bad Request', detail, { errors })
export const unauthorized = (detail: string) =>
  new Problem(401, 'Unauthorized', detail, { headers: { 'www-authenticate': 'Bearer error="invalid_token"' } })
export const forbidden = (detail: string) => new Problem(403, 'Forbidden', detail)
export const notFound = (detail = 'No such resource.') => new Problem(404, 'Not Found', detail)
export const conflict = (detail: string) => new Problem(409, 'Conflict', detail)
export const preconditionFailed = (detail: string) => new Problem(412, 'Precondition Failed', detail)
export const unprocessable = (detail: string) => new Problem(422, 'Unprocessable Content', detail)
export const tooManyRequests = (detail: string, retryAfterSeconds: number) =>
  new Problem(429, 'Too Many Requests', detail, { headers: { 'retry-after': String(retryAfterSeconds) } })
export const serviceUnavailable = (detail: string) =>
  new Problem(503, 'Service Unavailable', detail, { headers: { 'retry-after': '1' } })

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
  const body: Record<string, unknown> = {
    type: 'about:blank',
    title: problem.title,
    status: problem.status,
    detail: problem.detail,
  }
  if (problem.extra.errors !== undefined) body.errors = problem.extra.errors
  for (const [name, value] of Object.entries(problem.extra.headers ?? {})) reply.header(name, value)
  return reply.code(problem.status).type('application/problem+json').send(body)
}

/** SQLSTATE classes that mean "the database cannot be reached or is going away", not "your input is wrong". */
export function isDatabaseUnavailable(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown }
  if (typeof e.code === 'string' && /^(08|57P0|53)/.test(e.code)) return true
  if (typeof e.code === 'string' && ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH'].includes(e.code)) {
    return true
  }
  const message = typeof e.message === 'string' ? e.message : ''
  return /Connection terminated|timeout exceeded when trying to connect|Query read timeout|connection timeout/i.test(message)
}

/** The one error handler: every error outside /oauth/ leaves through here. */
export function problemHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof Problem) return sendProblem(reply, error)
  if (error.validation !== undefined) {
    return sendProblem(reply, validationFailed(fieldErrors(error), describeValidation(error)))
  }
  if (isDatabaseUnavailable(error)) {
    request.log.error({ err: { message: error.message, code: error.code } }, 'database unavailable')
    return sendProblem(reply, serviceUnavailable('The database is unavailable; try again shortly.'))
  }
  const status = error.statusCode ?? 500
  if (status >= 400 && status < 500) {
    const detail = status === 413 ? 'The request body is larger than the service accepts.' : error.message
    return sendProblem(reply, new Problem(status, TITLES[status] ?? 'Bad Request', detail))
  }
  request.log.error({ err: error }, 'unhandled error')
  return sendProblem(reply, new Problem(500, 'Internal Server Error', 'The service failed to handle the request.'))
}

function describeValidation(error: FastifyError): string {
  const part = error.validationContext ?? 'request'
  const where = part === 'querystring' ? 'query string' : part
  return `The ${where} is not valid; see errors.`
}

/** Turns a Fastify validation error into field errors. */
export function fieldErrors(error: FastifyError): FieldErrors | FieldErrors[] {
  const validation = error.validation ?? []
  const isBatch = error.validationContext === 'body' && validation.some((v) => /^\/\d+(\/|$)/.test(v.instancePath))
  return toFieldErrors(validation, isBatch, error.validationContext === 'body' ? 'body' : 'request')
}

export interface ValidatorError {
  instancePath: string
  keyword: string
  params: Record<string, unknown>
  message?: string | undefined
}

/** Validator errors as `{path: [messages]}` (nested paths dotted); for a batch, one object per item index. */
export function toFieldErrors(validation: readonly ValidatorError[], isBatch: boolean, fallback = 'body', itemCount = 0): FieldErrors | FieldErrors[] {
  const perItem: FieldErrors[] = []
  const flat: FieldErrors = {}
  for (const v of validation) {
    const params = v.params
    const segments = v.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    let message = v.message ?? 'is not valid'
    if (v.keyword === 'required') {
      segments.push(String(params.missingProperty))
      message = 'is required'
    } else if (v.keyword === 'additionalProperties') {
      segments.push(String(params.additionalProperty))
      message = 'is not a known field'
    }
    let target = flat
    if (isBatch) {
      const index = Number(segments.shift())
      target = perItem[index] ??= {}
    }
    const field = segments.join('.') || fallback
    const messages = (target[field] ??= [])
    if (!messages.includes(message)) messages.push(message)
  }
  if (isBatch) return Array.from({ length: Math.max(itemCount, perItem.length) }, (_, i) => perItem[i] ?? {})
  return flat
}
