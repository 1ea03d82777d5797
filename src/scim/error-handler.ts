/** The SCIM routes' error handler: every refusal on /scim/v2/ in the SCIM error schema (RFC 7644 §3.12). */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { Problem } from '../core/problem.ts'
import { concurrentWriteConflict, isDatabaseUnavailable } from '../http/errors.ts'
import { errorBody, isUniqueViolation, ScimError, sendScim } from './errors.ts'

/** Any error on a SCIM route, as a SCIM error: the service's problems, Fastify's refusals, and (hidden) failures. */
export function scimError(error: FastifyError | Problem | ScimError, request: FastifyRequest, reply: FastifyReply) {
  let scim: ScimError
  if (error instanceof ScimError) scim = error
  else if (error instanceof Problem)
    scim = new ScimError(
      error.status,
      error.detail,
      error.status === 409 ? 'uniqueness' : error.status === 400 ? 'invalidValue' : undefined,
    )
  else if (concurrentWriteConflict(error) !== undefined)
    // A write that lost a race the service did not foresee: a 409 (DECISIONS: never a 500).
    scim = new ScimError(
      409,
      'A concurrent request changed the same thing at the same moment; read it again and retry if needed.',
      isUniqueViolation(error) ? 'uniqueness' : undefined,
    )
  else if (isDatabaseUnavailable(error)) {
    reply.header('retry-after', '1')
    scim = new ScimError(503, 'The service cannot reach its database right now. Try again in a moment.')
  } else if (error.code === 'FST_ERR_CTP_INVALID_JSON_BODY')
    scim = new ScimError(
      400,
      'The body is not valid JSON, or it has a __proto__ or constructor key; send a JSON object of SCIM attributes.',
      'invalidSyntax',
    )
  else if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500)
    scim = new ScimError(error.statusCode, error.message, error.statusCode === 400 ? 'invalidSyntax' : undefined)
  else {
    request.log.error({ err: error }, 'SCIM request failed')
    scim = new ScimError(500, 'The service failed to answer this request.')
  }
  return sendScim(reply, scim.status, errorBody(scim))
}
