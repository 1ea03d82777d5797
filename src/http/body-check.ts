/**
 * A body checked against a route's schema outside a route: the console builds the API's body from a form and
 * holds it to the very validator the API uses, with the API's field errors (`primary_billing_address.city`:
 * ["is required"]), so a form and an API call are judged alike.
 */
import type { Static, TSchema } from 'typebox'
import type { FieldErrors } from '../core/problem.ts'
import { toFieldErrors } from './errors.ts'
import { compileBodyValidator } from './validation.ts'

export type Checked<T> = { ok: true; value: T } | { ok: false; errors: FieldErrors }

/** A checker for bodies of `schema`: the value as the schema types it, or its field errors. */
export function bodyChecker<S extends TSchema>(schema: S): (body: unknown) => Checked<Static<S>> {
  const validate = compileBodyValidator(schema)
  return (body) => {
    if (validate(body)) return { ok: true, value: body as Static<S> }
    return { ok: false, errors: toFieldErrors(validate.errors ?? [], false) as FieldErrors }
  }
}
