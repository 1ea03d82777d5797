/**
 * PATCH (RFC 7644 §3.5.2) as identity providers send it, applied to the resource as GET shows it by
 * `scim-patch`. Before that, what providers send beyond the RFC is made RFC-shaped: op names in any case
 * (`Replace`), and Entra's removal of members by a `value` list on the `members` path (one `members[value eq
 * "…"]` removal each). A path-less `value` object (Okta) and filtered paths are scim-patch's own. Every
 * path and value key is checked first (patch-guard.ts), and the patch works on a null-prototype copy.
 */
import { scimPatch, ScimError as PatchError, type ScimPatchOperation, type ScimResource } from 'scim-patch'
import { invalidValue, mutability, ScimError, type ScimType } from './errors.ts'
import { MAX_OPERATIONS, PATCH_SCHEMA } from './discovery.ts'
import { attached, checkPath, checkValue, detached } from './patch-guard.ts'

const OPS = ['add', 'remove', 'replace'] as const

function normalized(operation: unknown, i: number): ScimPatchOperation[] {
  if (typeof operation !== 'object' || operation === null || Array.isArray(operation))
    throw invalidValue(`Operations[${i}] must be an object with op, path and value.`)
  const { op, path, value } = operation as { op?: unknown; path?: unknown; value?: unknown }
  const name = typeof op === 'string' ? OPS.find((o) => o === op.toLowerCase()) : undefined
  if (name === undefined) throw invalidValue(`Operations[${i}].op must be add, remove or replace.`)
  if (path !== undefined && typeof path !== 'string')
    throw new ScimError(400, `Operations[${i}].path must be a string.`, 'invalidPath')
  if (path !== undefined) checkPath(path, `Operations[${i}].path`)
  checkValue(value, `Operations[${i}].value`)
  if (name === 'remove' && path?.toLowerCase() === 'members' && Array.isArray(value)) {
    return value.map((member: unknown) => {
      const id = (member as { value?: unknown } | null)?.value
      if (typeof id !== 'string' && typeof id !== 'number')
        throw invalidValue(`Operations[${i}].value must list members as {"value": "<id>"}.`)
      return { op: 'remove', path: `members[value eq ${JSON.stringify(String(id))}]` }
    })
  }
  if (name === 'remove') {
    if (path === undefined) throw new ScimError(400, `Operations[${i}] removes nothing: it has no path.`, 'noTarget')
    return [{ op: 'remove', path }]
  }
  return [path === undefined ? { op: name, value } : { op: name, path, value }]
}

/**
 * Whether `resource` has what scim-patch reads of every resource: its `schemas` (its type also names `meta`,
 * with dates where ours has the strings GET shows; it does not read them).
 */
const patchable = (resource: object): resource is ScimResource =>
  Array.isArray((resource as { schemas?: unknown }).schemas)

/** The resource after the body's operations; the id and meta cannot change. */
export function applyPatch(resource: { id: string }, body: unknown): Record<string, unknown> & { id: string } {
  const { schemas, Operations } = (body ?? {}) as { schemas?: unknown; Operations?: unknown }
  if (Array.isArray(schemas) && !schemas.includes(PATCH_SCHEMA))
    throw new ScimError(400, `A PATCH body's schemas must include ${PATCH_SCHEMA}.`, 'invalidSyntax')
  if (!Array.isArray(Operations) || Operations.length === 0)
    throw new ScimError(400, 'A PATCH body needs Operations: a list of 1 to 100 operations.', 'invalidSyntax')
  if (Operations.length > MAX_OPERATIONS)
    throw new ScimError(
      400,
      `A PATCH body may carry at most ${MAX_OPERATIONS} operations; it has ${Operations.length}.`,
      'tooMany',
    )
  const operations = Operations.flatMap((op, i) => normalized(op, i))
  const copy = detached(resource)
  // Our resources are built with their schemas (users.service.ts, groups.service.ts): not the body's doing.
  if (!patchable(copy)) throw new Error('A SCIM resource without schemas cannot be patched.')
  let patched: ScimResource
  try {
    patched = attached(scimPatch(copy, detached(operations), { treatMissingAsAdd: true }))
  } catch (error) {
    // Whatever the library cannot apply is the body's fault: a 400, never a 500.
    const code = error instanceof PatchError ? (error.scimCode ?? 'invalidValue') : 'invalidValue'
    const message = error instanceof Error ? error.message : 'it does not fit the resource'
    throw new ScimError(400, `The patch cannot be applied: ${message}`, code as ScimType)
  }
  if (String(patched.id) !== String(resource.id)) throw mutability('id cannot be changed.')
  return { ...patched, id: resource.id }
}
