/** Schema pieces every resource uses. */
import { Type } from 'typebox'

/** A row id as clients send it: a positive 32-bit integer (the database's `integer`); larger is a 400, not a database error. */
export const Id = Type.Integer({ minimum: 1, maximum: 2147483647 })

/** Names a schema for the OpenAPI document: it becomes `components.schemas.<name>`, referenced by `$ref`. */
export const named = <T extends object>(name: string, schema: T): T => Object.assign(schema, { 'x-component': name })

/**
 * Control characters and every bidi control — the marks (U+061C, U+200E, U+200F), embeddings, overrides and
 * isolates — which make a name display as something it is not (U+202E turns `gpj.exe` into what reads as
 * `exe.jpg`). DECISIONS ("Who may do what") refuses them in every name, in every channel.
 */
export const FORBIDDEN_IN_NAMES = /[\p{Cc}\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u
/** The format (registered with the validator, http/validation.ts) of a name: no character of `FORBIDDEN_IN_NAMES`. */
export const NAME_FORMAT = 'name'

/**
 * A name a person types (a vendor's, a location's, a department's, a role's …): at most `maxLength`
 * characters, at least one unless `minLength` says otherwise, and none of `FORBIDDEN_IN_NAMES` (a 400 naming
 * the field). Ordinary Unicode — accents, CJK, emoji — is a name like any other.
 */
export const Name = (
  maxLength: number,
  options: { minLength?: number; pattern?: string; examples?: unknown[]; description?: string } = {},
) => Type.String({ minLength: 1, maxLength, format: NAME_FORMAT, ...options })
