/**
 * The SCIM filters this service answers (DECISIONS): `userName eq`, `externalId eq`, `emails.value eq` (Users)
 * and `displayName eq`, `externalId eq` (Groups), each with a string. Parsed by `scim2-parse-filter`; any other
 * expression — another operator, attribute, `and`/`or`, a value that is not a string — is `invalidFilter`.
 */
import { parse } from 'scim2-parse-filter'
import { invalidFilter } from './errors.ts'

export interface Equality {
  /** The attribute as this service names it (case-insensitive in the filter, RFC 7644 §3.4.2.2). */
  attribute: string
  value: string
}

export function parseFilter(text: string | undefined, allowed: readonly string[]): Equality | undefined {
  if (text === undefined || text.trim() === '') return undefined
  const supported = `Supported filters: ${allowed.map((a) => `${a} eq "…"`).join(', ')}.`
  let expression: ReturnType<typeof parse>
  try {
    expression = parse(text)
  } catch {
    throw invalidFilter(`The filter is not valid SCIM filter syntax. ${supported}`)
  }
  if (expression.op !== 'eq' || !('attrPath' in expression) || !('compValue' in expression))
    throw invalidFilter(`This filter is not supported. ${supported}`)
  // A fully qualified name (urn:…:core:2.0:User:userName) names the same attribute.
  const path = String(expression.attrPath).replace(/^urn:ietf:params:scim:schemas:core:2\.0:(User|Group):/i, '')
  const attribute = allowed.find((a) => a.toLowerCase() === path.toLowerCase())
  const value = expression.compValue
  if (attribute === undefined)
    throw invalidFilter(`Filtering on ${String(expression.attrPath)} is not supported. ${supported}`)
  if (typeof value !== 'string') throw invalidFilter(`${attribute} eq takes a string in double quotes. ${supported}`)
  return { attribute, value }
}
