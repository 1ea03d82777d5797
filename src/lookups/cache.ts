/**
 * The vendor look-ups (payment and shipping terms and methods) that vendor rows reference, kept in memory
 * per tenant so a page of vendors is one statement instead of four correlated subqueries per row. Only the
 * rows asked for are read, in one statement, and kept until a change to that tenant's look-ups notifies
 * `lookups_changed` (migration 0005); db/tenant-cache.ts says why nothing stale is served.
 */
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'
import { TenantCache } from '../db/tenant-cache.ts'
import { VENDOR_LOOKUP_TABLES, vendorLookupsById, type VendorLookupTable } from './repository.ts'
import type { VendorLookup } from './schema.ts'

export const LOOKUPS_CHANNEL = 'lookups_changed'

/** A look-up by its table and id (null for an unset reference, or a row that no longer exists). */
export type Lookups = (table: VendorLookupTable, id: number | null) => VendorLookup | null

export class LookupCache {
  /** Subscribe it to LOOKUPS_CHANNEL (http/changes.ts); until then every look-up is read from the database. */
  readonly entries: TenantCache<VendorLookup>

  constructor(maxEntries = 50_000, maxAgeMs = 60_000) {
    this.entries = new TenantCache(maxEntries, maxAgeMs)
  }

  /** The tenant's look-ups that `wanted` names, from memory, the rest read in one statement. */
  async resolve(
    db: Kysely<DB>,
    tenantId: number,
    wanted: Iterable<readonly [VendorLookupTable, number | null]>,
  ): Promise<Lookups> {
    const found = new Map<string, VendorLookup>()
    const missing = Object.fromEntries(VENDOR_LOOKUP_TABLES.map((table) => [table, [] as number[]])) as Record<
      VendorLookupTable,
      number[]
    >
    let anyMissing = false
    for (const [table, id] of wanted) {
      const key = `${table}:${id}`
      if (id === null || found.has(key) || missing[table].includes(id)) continue
      const cached = this.entries.peek(tenantId, key)
      if (cached !== undefined) found.set(key, cached)
      else {
        missing[table].push(id)
        anyMissing = true
      }
    }
    if (anyMissing) {
      const generation = this.entries.generation
      for (const { kind, id, name, description, active } of await vendorLookupsById(db, tenantId, missing)) {
        const key = `${kind}:${id}`
        const lookup = Object.freeze({ id, name, description, active })
        found.set(key, lookup)
        this.entries.store(tenantId, key, lookup, generation)
      }
    }
    return (table, id) => (id === null ? null : (found.get(`${table}:${id}`) ?? null))
  }
}
