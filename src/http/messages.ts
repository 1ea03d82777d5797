/**
 * The one message catalogue: every validation failure said as a sentence a person acts on (DECISIONS,
 * "Errors outside /api/"), for the API's problem bodies and the console's forms alike — never a JSON-schema
 * keyword, a pattern or a format name. A field's message follows from the validator's error (its keyword and
 * parameters); `toFieldErrors` (errors.ts) gathers them per field, one message per problem.
 */
import { DECIMAL_PATTERN } from '../core/decimal.ts'

export interface ValidatorError {
  instancePath: string
  keyword: string
  params: Record<string, unknown>
  message?: string | undefined
  /** Where in the schema the rule is (ajv's), e.g. `#/properties/status/anyOf/2/const`. */
  schemaPath?: string | undefined
}

/** What a value of each JSON type is called in a sentence. */
const TYPE_WORDS: Record<string, string> = {
  integer: 'a whole number',
  number: 'a number',
  string: 'text',
  boolean: 'true or false',
  array: 'a list',
  object: 'a set of named fields',
  null: 'null',
}

/** What each pattern the schemas use asks for, keyed by the pattern's source. */
const PATTERNS: Record<string, string> = {
  [DECIMAL_PATTERN]: 'must be a decimal number like 19.99 (up to 4 decimals)',
  '\\S': 'must not be blank',
  '^-?\\d{1,9}(\\.\\d{1,6})?$': 'must be a decimal number like 1.085 (up to 6 decimals)',
  '^-?\\d{1,2}(\\.\\d{1,3})?$': 'must be a number like 8.25 or -1.5 (up to 3 decimals)',
  '^evt_[0-9a-f]{32}$': 'must be an event id as the event feed gives it (evt_ and 32 hexadecimal digits)',
  '^[a-z][a-z_]*(\\.[a-z][a-z_]*|\\.\\*)$': 'must be an event type like vendor.created, or vendor.* for all of them',
  '^(\\*|[a-z][a-z_]*(\\.[a-z][a-z_]*|\\.\\*))$':
    'must be an event type like vendor.created, vendor.* for all of them, or * for every event',
  '^whsec_[A-Za-z0-9+/]{43}=$': 'must be a signing secret as the service makes them (whsec_ and 44 characters)',
  '^[A-Za-z0-9_-]+$': 'must be the link exactly as it was sent (letters, digits, - and _ only)',
  '^[A-Za-z0-9_-]{1,64}$': 'must be a client id as the service shows it (letters, digits, - and _)',
  '^[0-9]{0,9}$': 'must be a whole number',
  '^[A-Z]{3}$': 'must be a three-letter currency code in capitals, like EUR',
  '^\\d{1,9}(\\.\\d{1,6})?$': 'must be a decimal number like 1.085 (up to 6 decimals)',
  '^(0|-?[1-9][0-9]*)$': 'must be a whole number written in decimal digits, e.g. 42',
  '^\\d{1,16}(\\.\\d{1,2})?$': 'must be an amount like 25.00 (digits, up to 2 decimals, no thousands separators)',
}

/** What each format asks for. */
const FORMATS: Record<string, string> = {
  email: 'must be an e-mail address',
  date: 'must be a date like 2026-01-31',
  'date-time': 'must be a date and time like 2026-01-31T09:30:00Z',
  'date-or-date-time': 'must be a date like 2026-01-31 or a date and time like 2026-01-31T09:30:00Z',
  name: 'must not contain control characters or text-direction marks (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069); remove them',
  time: 'must be a time like 09:30:00',
  uri: 'must be a full web address like https://example.com/path',
  'uri-reference': 'must be a web address or a path',
  url: 'must be a full web address like https://example.com/path',
  uuid: 'must be an identifier like 123e4567-e89b-12d3-a456-426614174000',
  ipv4: 'must be an IPv4 address like 192.0.2.1',
  ipv6: 'must be an IPv6 address like 2001:db8::1',
  hostname: 'must be a host name like example.com',
}

const plural = (n: unknown, one: string, many = `${one}s`) => `${String(n)} ${Number(n) === 1 ? one : many}`
/** What a value of JSON type `type` is called: "a whole number", "text" … */
export const typeWord = (type: string) => TYPE_WORDS[type] ?? type
/** "a, b or c" */
export const alternatives = (items: readonly string[]) => items.join(', ').replace(/, ([^,]*)$/, ' or $1')
const shown = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value))

/** The sentence for one validator error (the field it names is the caller's business). */
export function messageFor(error: ValidatorError): string {
  const p = error.params
  switch (error.keyword) {
    case 'required':
      return 'is required'
    case 'additionalProperties':
      return 'is not a known field'
    case 'type': {
      const types = Array.isArray(p.type) ? p.type.map(String) : String(p.type).split(',')
      return `must be ${alternatives(types.map(typeWord))}`
    }
    case 'minLength':
      return Number(p.limit) <= 1 ? 'must not be empty' : `must be at least ${plural(p.limit, 'character')} long`
    case 'maxLength':
      return `must be at most ${plural(p.limit, 'character')} long`
    case 'minimum':
      return `must be ${String(p.limit)} or more`
    case 'maximum':
      return `must be ${String(p.limit)} or less`
    case 'exclusiveMinimum':
      return `must be more than ${String(p.limit)}`
    case 'exclusiveMaximum':
      return `must be less than ${String(p.limit)}`
    case 'multipleOf':
      return `must be a multiple of ${String(p.multipleOf)}`
    case 'minItems':
      return Number(p.limit) <= 1 ? 'must not be empty' : `must list at least ${plural(p.limit, 'item')}`
    case 'maxItems':
      return `must list at most ${plural(p.limit, 'item')}`
    case 'uniqueItems':
      return 'must not list the same value twice'
    case 'minProperties':
      return `must have at least ${plural(p.limit, 'field')}`
    case 'maxProperties':
      return `must have at most ${plural(p.limit, 'field')}`
    case 'enum':
      return Array.isArray(p.allowedValues)
        ? `must be one of: ${p.allowedValues.map(shown).join(', ')}`
        : 'is not one of the allowed values'
    case 'const':
      return `must be ${shown(p.allowedValue)}`
    case 'pattern':
      return (
        PATTERNS[String(p.pattern)] ?? 'is not written the way this field takes it (see the field in the API reference)'
      )
    case 'format':
      return (
        FORMATS[String(p.format)] ?? 'is not written the way this field takes it (see the field in the API reference)'
      )
    case 'union':
      return error.message ?? 'is not one of the allowed values'
    default:
      return 'is not one of the allowed values'
  }
}
