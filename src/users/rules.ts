/**
 * The e-mail rule and the name rule, one each for every channel: the API (whose schema uses the same e-mail
 * schema, so the messages are the same), the console's invite and the operator's CLI. A name may not hold
 * control characters or any bidirectional control — marks, embeddings, overrides and isolates — that make
 * text display as something it is not (U+202E turns `gpj.exe` into what reads as `exe.jpg`).
 */
import { Type } from 'typebox'
import { FORBIDDEN_IN_NAMES } from '../core/schema.ts'
import { messageFor } from '../http/messages.ts'
import { compileBodyValidator } from '../http/validation.ts'

export const Email = Type.String({ format: 'email', minLength: 3, maxLength: 254 })
const validEmail = compileBodyValidator(Email)

/** What is wrong with an e-mail address, in the API's words; empty when nothing is. */
export function emailProblems(email: string): string[] {
  if (validEmail(email)) return []
  return [...new Set((validEmail.errors ?? []).map(messageFor))]
}

export const NAME_MESSAGE =
  'may not contain control characters or bidirectional controls (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069)'

/** What is wrong with a person's name; undefined when nothing is. */
export const nameProblem = (name: string): string | undefined =>
  FORBIDDEN_IN_NAMES.test(name) ? NAME_MESSAGE : undefined
