/**
 * Request validation. Bodies are checked strictly: no type coercion, unknown fields rejected, every error
 * reported. Query strings, path parameters and headers are text on the wire, so their values are coerced
 * ("2" → 2, "true" → true) before the same checks — except that a path id must be written canonically:
 * `/vendors/1/`, never `/vendors/1e0/`, `/vendors/+1/` or `/vendors/01/`.
 *
 * A validator is compiled when it is first used, not when its route is registered: compiling all of them
 * was a fifth of the start-up time, and most routes see no request for a while after a start (or ever).
 * It is the same validator either way; `compilePendingValidators` compiles the rest at once (tests do, so
 * a schema ajv cannot compile still fails the suite rather than its route's first request).
 */
import { Ajv, type ErrorObject, type FormatDefinition, type Options, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import { fullFormats } from 'ajv-formats/dist/formats.js'
import type { FastifySchemaCompiler } from 'fastify'
import { DATE_ONLY, DATE_OR_DATE_TIME } from '../core/list-query.ts'
import { FORBIDDEN_IN_NAMES, NAME_FORMAT } from '../core/schema.ts'

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = addFormatsModule.default

/**
 * Dates and instants must fall within years 0001 to 9999 (DECISIONS, "Authority is read fresh"): ajv's
 * formats accept year 0000, which PostgreSQL refuses (a 500 where a 400 belongs), and a four-digit year is
 * all either format spells. The check is the format's, so every body, query and console form that uses
 * `date` or `date-time` gets it, with the field named as for any other format error.
 */
const YEAR_IN_RANGE = /^(?!0000)\d{4}-/

function withYearRange(format: FormatDefinition<string>): FormatDefinition<string> {
  const validate = format.validate as (text: string) => boolean
  return { ...format, validate: (text: string) => YEAR_IN_RANGE.test(text) && validate(text) }
}

const dateFormat = withYearRange(fullFormats.date as FormatDefinition<string>).validate as (text: string) => boolean
const dateTimeFormat = withYearRange(fullFormats['date-time'] as FormatDefinition<string>).validate as (
  text: string,
) => boolean

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ removeAdditional: false, useDefaults: true, allErrors: true, strict: false, ...options })
  addFormats(ajv)
  ajv.addFormat('date', withYearRange(fullFormats.date as FormatDefinition<string>))
  ajv.addFormat('date-time', withYearRange(fullFormats['date-time'] as FormatDefinition<string>))
  ajv.addFormat(NAME_FORMAT, { type: 'string', validate: (text: string) => !FORBIDDEN_IN_NAMES.test(text) })
  // `updated_since`: an instant, or a date alone (valid ISO 8601), read as that day's 00:00 UTC (core/list-query.ts).
  ajv.addFormat(DATE_OR_DATE_TIME, {
    type: 'string',
    validate: (text: string) => (DATE_ONLY.test(text) ? dateFormat(text) : dateTimeFormat(text)),
  })
  return ajv
}

const strict = makeAjv({ coerceTypes: false })
const coercing = makeAjv({ coerceTypes: 'array' })

/** Validators made but not yet compiled, with what each validates (each leaves on its first call). */
const pending = new Map<() => ValidateFunction, string>()

/**
 * A validator that compiles on its first use. It behaves as the compiled one: the same result, and the
 * same `errors` and `schemaEnv` (Fastify reads `schemaEnv` before each call to know whether to pass the
 * parent object, so that ajv can coerce or default a whole query string or header set).
 */
function compiledOnFirstUse(what: string, compile: () => ValidateFunction): ValidateFunction {
  let compiled: ValidateFunction | undefined
  const get = (): ValidateFunction => {
    if (compiled === undefined) {
      pending.delete(get)
      compiled = compile()
    }
    return compiled
  }
  pending.set(get, what)
  const validate = ((data: unknown, context?: Parameters<ValidateFunction>[1]) =>
    get()(data, context)) as ValidateFunction
  Object.defineProperties(validate, {
    errors: { get: () => get().errors, enumerable: true },
    schemaEnv: { get: () => get().schemaEnv, enumerable: true },
  })
  return validate
}

/** Compiles every validator made so far that has not been used yet; a schema ajv refuses is an error naming it. */
export function compilePendingValidators(): void {
  for (const [compile, what] of [...pending]) {
    try {
      compile()
    } catch (error) {
      throw new Error(`The validator of ${what} does not compile: ${(error as Error).message}`, { cause: error })
    }
  }
}

/** A strict body validator, for handlers that validate a part of the body themselves. */
export const compileBodyValidator = (schema: object) => compiledOnFirstUse('a body part', () => strict.compile(schema))

const CANONICAL_INTEGER = /^(0|-?[1-9][0-9]*)$/

/** Path parameters declared as integers must be written as plain decimal digits before coercion reads them. */
function canonicalIntegers(
  schema: { properties?: Record<string, { type?: unknown }> },
  validate: ValidateFunction,
): ValidateFunction {
  const integers = Object.entries(schema.properties ?? {})
    .filter(([, property]) => property.type === 'integer')
    .map(([name]) => name)
  if (integers.length === 0) return validate
  const check = ((data: Record<string, unknown>) => {
    const errors: ErrorObject[] = integers
      .filter((name) => typeof data[name] === 'string' && !CANONICAL_INTEGER.test(data[name]))
      .map((name) => ({
        instancePath: `/${name}`,
        schemaPath: '#/pattern',
        keyword: 'pattern',
        params: { pattern: CANONICAL_INTEGER.source },
        message: 'must be a whole number written in decimal digits, e.g. 42',
      }))
    if (errors.length > 0) {
      check.errors = errors
      return false
    }
    const valid = validate(data)
    check.errors = validate.errors ?? null
    return valid
  }) as ValidateFunction
  return check
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart, method, url }) =>
  compiledOnFirstUse(`${method} ${url} (${httpPart})`, () => {
    if (httpPart === 'body') return strict.compile(schema as object)
    const validate = coercing.compile(schema as object)
    return httpPart === 'params' ? canonicalIntegers(schema as object, validate) : validate
  })
