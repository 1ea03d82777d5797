/**
 * Errors with stable meanings, thrown anywhere (services included: nothing here knows HTTP frameworks) and
 * turned into `application/problem+json` (RFC 9457) once, by the error handler in `errors.ts`. Each kind of
 * error has its own `type` URI, so clients can branch on it; docs/api.md lists them.
 */
import { Type, type Static } from 'typebox'

/** Field errors: `{ "primary_billing_address.city": ["is required"] }`, or one such object per batch item. */
export type FieldErrors = Record<string, string[]>

/** The problem `type` of each kind of error (relative URIs, the same on every deployment). */
export const PROBLEM_TYPES = {
  validation: '/problems/validation',
  unauthorized: '/problems/unauthorized',
  permission: '/problems/permission',
  'not-found': '/problems/not-found',
  'method-not-allowed': '/problems/method-not-allowed',
  conflict: '/problems/conflict',
  'precondition-failed': '/problems/precondition-failed',
  'precondition-required': '/problems/precondition-required',
  'too-large': '/problems/too-large',
  'unsupported-media-type': '/problems/unsupported-media-type',
  'idempotency-mismatch': '/problems/idempotency-mismatch',
  'malware-found': '/problems/malware-found',
  'rate-limited': '/problems/rate-limited',
  unavailable: '/problems/unavailable',
  internal: '/problems/internal',
  'bad-request': '/problems/bad-request',
} as const
export type ProblemKind = keyof typeof PROBLEM_TYPES

const TYPE_DESCRIPTIONS: Record<ProblemKind, string> = {
  validation: '400: the body, query string, path or a header is not valid; field errors under `errors`.',
  unauthorized: '401: the access token is missing, invalid, expired or revoked.',
  permission: "403: the token's user lacks the permission.",
  'not-found': '404: no such resource in your tenant, no such route, or a page past the last.',
  'method-not-allowed': '405: the path exists, the method does not (see `Allow`).',
  conflict: '409: the request conflicts with the current state (e.g. its Idempotency-Key is still running).',
  'precondition-failed': '412: `If-Match` does not match the current ETag.',
  'precondition-required':
    '428: the change needs `If-Match` with the ETag from a GET (e.g. a revision of an issued order).',
  'too-large': '413: the body is larger than the service accepts.',
  'unsupported-media-type': '415: the body is not in a media type the route takes.',
  'idempotency-mismatch': '422: the Idempotency-Key was used before with a different request.',
  'malware-found': '422: the virus scanner found a signature in the uploaded file (named in `detail`).',
  'rate-limited': '429: too many requests; retry after `Retry-After` seconds.',
  unavailable:
    '503: something the service depends on (the database, the file store, the virus scanner) is unavailable; retry after `Retry-After` seconds.',
  internal: '500: the service failed; nothing about the failure is disclosed.',
  'bad-request': '4xx: any other request the HTTP layer refuses (e.g. URI or headers too long).',
}

const FieldErrorsSchema = Type.Record(Type.String(), Type.Array(Type.String()))

/** The problem document, as every error outside /oauth/ is sent (also the OpenAPI component `Problem`). */
export const ProblemSchema = Type.Object(
  {
    type: Type.Union(
      Object.entries(PROBLEM_TYPES).map(([kind, uri]) =>
        Type.Literal(uri, { description: TYPE_DESCRIPTIONS[kind as ProblemKind] }),
      ),
      { description: 'What kind of error this is; stable, so clients can branch on it.' },
    ),
    title: Type.String({ description: 'The HTTP status text.' }),
    status: Type.Integer({ minimum: 400, maximum: 599 }),
    detail: Type.String({ minLength: 1, description: 'What went wrong and how to fix it, for people.' }),
    errors: Type.Optional(
      Type.Union([FieldErrorsSchema, Type.Array(FieldErrorsSchema)], {
        description: 'Field errors by dotted path; for a batch, one object per submitted item.',
      }),
    ),
  },
  { additionalProperties: false },
)
export type ProblemBody = Static<typeof ProblemSchema>

export class Problem extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string,
    readonly extra: { kind?: ProblemKind; errors?: FieldErrors | FieldErrors[]; headers?: Record<string, string> } = {},
  ) {
    super(detail)
  }

  /** Lets handlers that know only framework errors (the OAuth one) see the status. */
  get statusCode(): number {
    return this.status
  }

  get type(): string {
    return PROBLEM_TYPES[this.extra.kind ?? kindOfStatus(this.status)]
  }

  toBody(): ProblemBody {
    const body: ProblemBody = {
      type: this.type as ProblemBody['type'],
      title: this.title,
      status: this.status,
      detail: this.detail,
    }
    if (this.extra.errors !== undefined) body.errors = this.extra.errors
    return body
  }
}

/** The kind a status means when the thrower named none. */
export function kindOfStatus(status: number): ProblemKind {
  const kinds: Partial<Record<number, ProblemKind>> = {
    400: 'validation',
    401: 'unauthorized',
    403: 'permission',
    404: 'not-found',
    405: 'method-not-allowed',
    409: 'conflict',
    412: 'precondition-failed',
    428: 'precondition-required',
    413: 'too-large',
    415: 'unsupported-media-type',
    422: 'idempotency-mismatch',
    429: 'rate-limited',
    503: 'unavailable',
  }
  return kinds[status] ?? (status >= 500 ? 'internal' : 'bad-request')
}

export const badRequest = (detail: string, errors?: FieldErrors | FieldErrors[]) =>
  new Problem(400, 'Bad Request', detail, errors ? { errors } : {})
export const validationFailed = (
  errors: FieldErrors | FieldErrors[],
  detail = 'The request is not valid; see errors.',
) => new Problem(400, 'Bad Request', detail, { errors })
export const unauthorized = (detail: string) =>
  new Problem(401, 'Unauthorized', detail, { headers: { 'www-authenticate': 'Bearer error="invalid_token"' } })
export const forbidden = (detail: string) => new Problem(403, 'Forbidden', detail)
export const notFound = (detail = 'No such resource.') => new Problem(404, 'Not Found', detail)
export const methodNotAllowed = (detail: string, allow: string) =>
  new Problem(405, 'Method Not Allowed', detail, { headers: { allow } })
export const conflict = (detail: string) => new Problem(409, 'Conflict', detail)
export const preconditionFailed = (detail: string) => new Problem(412, 'Precondition Failed', detail)
export const preconditionRequired = (detail: string) => new Problem(428, 'Precondition Required', detail)
export const unprocessable = (detail: string) => new Problem(422, 'Unprocessable Content', detail)
export const tooManyRequests = (detail: string, retryAfterSeconds: number) =>
  new Problem(429, 'Too Many Requests', detail, { headers: { 'retry-after': String(retryAfterSeconds) } })
export const serviceUnavailable = (detail: string) =>
  new Problem(503, 'Service Unavailable', detail, { headers: { 'retry-after': '1' } })
export const internalError = () =>
  new Problem(500, 'Internal Server Error', 'The service failed to handle the request.')
