/** What the request and approval pages share: whole look-up lists, vendor names, and who decides an approval. */
import { emailKey } from '../../db/email.ts'
import type { Actor } from '../../access/actor.ts'
import { actorLocationAccess } from '../../access/location-permissions.ts'
import type { Approval, Person } from '../../approvals/schema.ts'
import type { Page } from '../../core/list-query.ts'
import { Problem } from '../../core/problem.ts'
import type { PurchaseRequest } from '../../requests/schema.ts'
import { listLocations } from '../../locations/service.ts'
import { listCurrencies, listDepartments } from '../../lookups/service.ts'
import { getVendor, listVendors } from '../../vendors/service.ts'
import { myDelegators } from '../../users/delegation.service.ts'
import type { ConsoleDeps } from '../context.ts'
import { profileOf } from '../home.repository.ts'
import type { MenuKey } from '../views/layout.ts'

/** Pages of a list the console offers as a select, read 100 at a time up to `limit` rows. */
export async function everything<T>(fetch: (page: number) => Promise<Page<T>>, limit = 1000): Promise<T[]> {
  const rows: T[] = []
  for (let page = 1; rows.length < limit; page++) {
    const result = await fetch(page)
    rows.push(...result.rows)
    if (rows.length >= result.count || result.rows.length === 0) break
  }
  return rows.slice(0, limit)
}

/**
 * What a document form offers for where it belongs: the active locations `may` allows (by name), each one's
 * departments grouped under it, and the currencies.
 */
export async function placeChoices(deps: ConsoleDeps, actor: Actor, may: (location: number) => boolean) {
  const { db } = deps
  const locations = (
    await everything((page) => listLocations(db, actor, { page, page_size: 100, active: true, order_by: 'name' }))
  ).filter((l) => may(l.id))
  const departments = await everything((page) => listDepartments(db, actor, { page, page_size: 100, order_by: 'name' }))
  const currencies = await everything((page) => listCurrencies(db, actor, { page, page_size: 100, order_by: 'name' }))
  return {
    location: locations.map((l) => ({ value: String(l.id), label: l.name })),
    department: locations.map((l) => ({
      location: l.name,
      locationId: String(l.id),
      options: departments.filter((d) => d.branch.id === l.id).map((d) => ({ value: String(d.id), label: d.name })),
    })),
    currency: currencies.map((c) => ({ value: c.name, label: c.name })),
  }
}

/**
 * Where a new document starts: the person's home location (their profile's) when it is on offer, else the
 * only location on offer, else none (the person chooses).
 */
export async function startingLocation(deps: ConsoleDeps, actor: Actor, offered: readonly { value: string }[]) {
  const home = actor.userId === null ? undefined : (await profileOf(deps.db, actor.tenantId, actor.userId))?.location
  if (home !== undefined && home !== null && offered.some((o) => o.value === String(home))) return String(home)
  return offered.length === 1 ? offered[0]!.value : ''
}

/** The tenant's active vendors (id and name), by name. */
export const activeVendors = async (deps: ConsoleDeps, actor: Actor) =>
  (
    await everything((page) =>
      listVendors(deps.db, deps.lookups, actor, { page, page_size: 100, active: true, order_by: 'name' }),
    )
  ).map((v) => ({ id: v.id, name: v.name }))

const sameEmail = (a: string, b: string | null) => b !== null && emailKey(a) === emailKey(b)

/**
 * Whether the actor decides this pending approval now, and for whom: themselves as a candidate (null), or
 * the away candidate whose delegatee they are. Undefined when they do not (the service has the last word).
 */
export function deciderOf(
  actor: Actor,
  delegators: readonly Person[],
  approval: Approval,
): { onBehalfOf: Person | null } | undefined {
  if (approval.status !== 'pending') return undefined
  const away = new Set(delegators.map((d) => d.id))
  const forWhom = approval.candidates.find((c) => away.has(c.id))
  if (approval.candidates.some((c) => sameEmail(c.email, actor.email))) return { onBehalfOf: null }
  return forWhom === undefined ? undefined : { onBehalfOf: forWhom }
}

/**
 * What the menu's location entries may show the actor (views/layout.ts): the keys held at some location (the
 * set that authorizes a location's work, DECISIONS "Permissions at a location"), `superuser`, `delegatee`.
 */
export async function menuKeysOf(deps: ConsoleDeps, actor: Actor): Promise<ReadonlySet<MenuKey>> {
  const keys = new Set<MenuKey>(actor.permissions.has('superuser') ? ['superuser'] : [])
  const [access, delegators] = await Promise.all([actorLocationAccess(deps.db, actor), myDelegators(deps.db, actor)])
  for (const held of access.at.values()) for (const key of held) keys.add(key)
  if (delegators.length > 0) keys.add('delegatee')
  return keys
}

/** The names of the vendors a request's lines name, read one by one (a request names few). */
export async function vendorNamesOf(deps: ConsoleDeps, actor: Actor, request: PurchaseRequest) {
  const names = new Map<number, string>()
  for (const id of new Set(request.lines.flatMap((l) => (l.vendor === null ? [] : [l.vendor])))) {
    const vendor = await getVendor(deps.db, deps.lookups, actor, id).catch((error: unknown) => {
      if (error instanceof Problem && error.status === 404) return undefined
      throw error
    })
    if (vendor !== undefined) names.set(id, vendor.name)
  }
  return names
}
