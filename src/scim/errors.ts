/**
 * SCIM errors (RFC 7644 §3.12): `{schemas: [Error], status: "400", scimType, detail}` as application/scim+json.
 * Every refusal on /scim/v2/ is one of these — the users service's problems included, translated here once.
 */
import type { FastifyReply } from 'fastify'

export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error'
export const SCIM_TYPE = 'application/scim+json; charset=utf-8'

export type ScimType =
  | 'invalidFilter'
  | 'tooMany'
  | 'uniqueness'
  | 'mutability'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'invalidValue'
  | 'invalidVers'
  | 'sensitive'

export class ScimError extends Error {
  constructor(
    readonly status: number,
    detail: string,
    readonly scimType?: ScimType,
  ) {
    super(detail)
  }
}

export const invalidValue = (detail: string) => new ScimError(400, detail, 'invalidValue')
export const invalidFilter = (detail: string) => new ScimError(400, detail, 'invalidFilter')
export const uniqueness = (detail: string) => new ScimError(409, detail, 'uniqueness')
export const mutability = (detail: string) => new ScimError(400, detail, 'mutability')
export const scimNotFound = (detail: string) => new ScimError(404, detail)

/** A unique index refused a write (SQLSTATE 23505): a concurrent identical write got there first. */
export const isUniqueViolation = (error: unknown) => (error as { code?: unknown } | null)?.code === '23505'

/** Sends a SCIM body (already JSON text, so no response schema filters it). */
export const sendScim = (reply: FastifyReply, status: number, body: unknown) =>
  reply.code(status).type(SCIM_TYPE).header('cache-control', 'no-store').send(JSON.stringify(body))

export const errorBody = (error: ScimError) => ({
  schemas: [ERROR_SCHEMA],
  status: String(error.status),
  ...(error.scimType === undefined ? {} : { scimType: error.scimType }),
  detail: error.message,
})
