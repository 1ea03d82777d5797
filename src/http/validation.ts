/**
 * Request validation. Bodies are checked strictly: no type coercion, unknown fields rejected, every error
 * reported. Query strings, path parameters and headers are text on the wire, so their values are coerced
 * ("2" → 2, "true" → true) before the same checks.
 */
import { Ajv, type Options } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { FastifySchemaCompiler } from 'fastify'

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ removeAdditional: false, useDefaults: true, allErrors: true, strict: false, ...options })
  addFormats(ajv)
  return ajv
}

const strict = makeAjv({ coerceTypes: false })
const coercing = makeAjv({ coerceTypes: 'array' })

/** A strict body validator, for handlers that validate a part of the body themselves. */
export const compileBodyValidator = (schema: object) => strict.compile(schema)

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? strict : coercing).compile(schema as object)
