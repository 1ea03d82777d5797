/**
 * Development and test guard: every JSON response body is validated, before serialization, against the response schema its route
 * declares (the same schema that feeds the OpenAPI document); problem documents against ProblemSchema.
 * A mismatch becomes a 500 naming the route, so a test that receives it fails. Off in production, where
 * the serializer already drops undeclared fields.
 */
import { Ajv, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ProblemSchema } from '../core/problem.ts'

const addFormats = addFormatsModule.default

export class ResponseSchemaMismatch extends Error {
  override name = 'ResponseSchemaMismatch'
}

/**
 * One validator per response schema for the whole process, made on first use: the tests build an app per
 * file, many files to a process, on the same schema objects, and compiling them again for every app was
 * about a fifth of a second of CPU a file.
 */
let checker: { ajv: Ajv; problem: ValidateFunction; compiled: (schema: object) => ValidateFunction } | undefined

function responseChecker() {
  if (checker !== undefined) return checker
  const ajv = new Ajv({ strict: false, allErrors: true })
  addFormats(ajv)
  const cache = new WeakMap<object, ValidateFunction>()
  checker = {
    ajv,
    problem: ajv.compile(ProblemSchema),
    compiled: (schema) => {
      let fn = cache.get(schema)
      if (fn === undefined) cache.set(schema, (fn = ajv.compile(schema)))
      return fn
    },
  }
  return checker
}

export function checkResponses(app: FastifyInstance): void {
  const { ajv, problem, compiled } = responseChecker()
  const schemaFor = (request: FastifyRequest, status: number): object | undefined => {
    const responses = request.routeOptions.schema?.response as Record<string, object> | undefined
    return responses?.[String(status)] ?? responses?.[`${String(status)[0]}xx`]
  }
  // Before serialization: the serializer would coerce a wrong type (null → "") and hide the mismatch.
  app.addHook('preSerialization', async (request, reply, body: unknown) => {
    const type = String(reply.getHeader('content-type') ?? 'application/json')
    if (body === null || typeof body !== 'object' || !/json/.test(type)) return body
    const validate = /problem\+json/.test(type)
      ? problem
      : ((s) => (s ? compiled(s) : undefined))(schemaFor(request, reply.statusCode))
    if (validate === undefined) {
      const documentation = (request.routeOptions.url ?? '').startsWith('/docs')
      if (reply.statusCode < 400 && request.routeOptions.url !== undefined && !documentation) {
        throw new ResponseSchemaMismatch(
          `${request.method} ${request.routeOptions.url} → ${reply.statusCode} has no response schema`,
        )
      }
      return body
    }
    if (!validate(body)) {
      throw new ResponseSchemaMismatch(
        `${request.method} ${request.url} → ${reply.statusCode} does not match its schema: ${ajv.errorsText(validate.errors)}`,
      )
    }
    return body
  })
}
