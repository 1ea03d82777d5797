/**
 * What a PATCH may name, checked before `scim-patch` sees it: every path segment, every attribute in a
 * filter, and every key of a value (at any depth) must be an attribute name — RFC 7643's (User, Group, the
 * enterprise extension), or one of a custom extension that an Okta or Entra administrator mapped (an
 * `urn:…:<attribute>` the service keeps nothing of, so it is accepted and ignored), written as ATTRNAME is
 * (RFC 7643 §2.1: a letter, then letters, digits, `_`, `-`, `$`). `__proto__`, `constructor` and `prototype`
 * are never names, so a patch cannot walk from the resource to a shared prototype. The patch is then applied
 * to a null-prototype copy.
 */
import { ScimError } from './errors.ts'

/** Attribute and sub-attribute names of RFC 7643 §4.1, §4.2, §4.3 and §3.1 (common), lower-cased. */
const KNOWN = new Set(
  [
    // common
    'schemas',
    'id',
    'externalId',
    'meta',
    'resourceType',
    'created',
    'lastModified',
    'location',
    'version',
    // User
    'userName',
    'name',
    'formatted',
    'familyName',
    'givenName',
    'middleName',
    'honorificPrefix',
    'honorificSuffix',
    'displayName',
    'nickName',
    'profileUrl',
    'title',
    'userType',
    'preferredLanguage',
    'locale',
    'timezone',
    'active',
    'password',
    'emails',
    'phoneNumbers',
    'ims',
    'photos',
    'addresses',
    'streetAddress',
    'locality',
    'region',
    'postalCode',
    'country',
    'groups',
    'entitlements',
    'roles',
    'x509Certificates',
    // sub-attributes of multi-valued attributes
    'value',
    'display',
    'type',
    'primary',
    '$ref',
    // enterprise extension
    'employeeNumber',
    'costCenter',
    'organization',
    'division',
    'department',
    'manager',
    // Group
    'members',
  ].map((n) => n.toLowerCase()),
)

/** Schema URNs a path or value key may start with (`<urn>:<attribute>`). */
const URNS = [
  'urn:ietf:params:scim:schemas:core:2.0:User',
  'urn:ietf:params:scim:schemas:core:2.0:Group',
  'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User',
].map((u) => u.toLowerCase())

/** Words of the filter grammar (RFC 7644 §3.4.2.2) that are not attribute names. */
const FILTER_WORDS = new Set(['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'lt', 'ge', 'le', 'pr', 'and', 'or', 'not'])
const FILTER_LITERALS = new Set(['true', 'false', 'null'])
const MAX_DEPTH = 8

const invalidPath = (where: string, name: string) =>
  new ScimError(
    400,
    `${where} names ${JSON.stringify(name)}, which is not an attribute of this resource; use attribute names from /scim/v2/Schemas.`,
    'invalidPath',
  )
const invalidValueKey = (where: string, name: string) =>
  new ScimError(
    400,
    `${where} has a key ${JSON.stringify(name)}, which is not an attribute of this resource; send only attribute names from /scim/v2/Schemas.`,
    'invalidValue',
  )

/** The attribute names of a dotted path (an optional schema URN first, then `a.b`); undefined if malformed. */
function namesOf(path: string): string[] | undefined {
  let rest = path
  if (/^urn:/i.test(path)) {
    const urn = URNS.find((u) => path.toLowerCase().startsWith(`${u}:`))
    // Another schema's URN (a custom extension): its attribute follows the last colon.
    rest = urn === undefined ? path.slice(path.lastIndexOf(':') + 1) : path.slice(urn.length + 1)
    if (rest === '') return [] // the whole extension (a value object keyed by the URN)
  }
  return rest.split('.')
}

const NEVER = new Set(['__proto__', 'constructor', 'prototype'])
/** RFC 7643's names, and any other ATTRNAME except the three that reach a prototype. */
const known = (name: string) =>
  KNOWN.has(name.toLowerCase()) || (/^[A-Za-z$][\w$-]*$/.test(name) && !NEVER.has(name.toLowerCase()))

/** Refuses a path that names anything but known attributes (in its filter too). */
export function checkPath(path: string, where: string): void {
  let outside = ''
  let depth = 0
  let filter = ''
  for (const c of path) {
    if (c === '[') depth++
    else if (c === ']') depth--
    else if (depth === 0) outside += c
    else filter += c
    if (depth < 0 || depth > 1) throw new ScimError(400, `${where} has unbalanced brackets.`, 'invalidPath')
  }
  if (depth !== 0) throw new ScimError(400, `${where} has unbalanced brackets.`, 'invalidPath')
  const names = namesOf(outside)
  if (names === undefined) throw invalidPath(where, outside)
  for (const name of names) if (!known(name)) throw invalidPath(where, name)
  // The filter's attributes: its words outside quoted strings, less operators and literals.
  const words = filter.replace(/"(?:[^"\\]|\\.)*"/g, ' ').match(/[^\s()"]+/g) ?? []
  for (const word of words) {
    const lower = word.toLowerCase()
    if (FILTER_WORDS.has(lower) || FILTER_LITERALS.has(lower) || /^-?[0-9]/.test(word)) continue
    for (const name of namesOf(word) ?? [word]) if (!known(name)) throw invalidPath(where, name)
  }
}

/** Refuses a value whose keys (at any depth; dotted or URN-prefixed keys name by their parts) are unknown. */
export function checkValue(value: unknown, where: string, depth = 0): void {
  if (depth > MAX_DEPTH) throw new ScimError(400, `${where} is nested too deeply.`, 'invalidValue')
  if (Array.isArray(value)) {
    for (const item of value) checkValue(item, where, depth + 1)
    return
  }
  if (typeof value !== 'object' || value === null) return
  for (const key of Object.keys(value)) {
    const names = namesOf(key)
    if (names === undefined) throw invalidValueKey(where, key)
    for (const name of names) if (!known(name)) throw invalidValueKey(where, name)
    checkValue((value as Record<string, unknown>)[key], where, depth + 1)
  }
}

/** A deep copy of plain JSON data whose objects have no prototype: nothing a patch does reaches a shared one. */
export function detached<T>(value: T): T {
  if (Array.isArray(value)) return value.map(detached) as T
  if (typeof value !== 'object' || value === null) return value
  const copy = Object.create(null) as Record<string, unknown>
  for (const [key, item] of Object.entries(value)) copy[key] = detached(item)
  return copy as T
}

/** Plain JSON data again (ordinary objects), for the code after the patch. */
export const attached = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T
