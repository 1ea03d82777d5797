/**
 * Values derived from the database, kept in memory per tenant and never served stale: a trigger notifies a
 * channel with the tenant's id (`*` for all) from every transaction that changes what the values were read
 * from, and the cache drops that tenant's entries when the notification arrives — on PostgreSQL in every
 * process sharing the database, about when the change commits (db/listener.ts). While the subscription is
 * not up (not yet started, or its connection lost) nothing is served from or stored in the cache: every
 * caller reads the database, as if there were no cache. A value read while an invalidation arrived is not
 * stored, so what was read before a change cannot be cached after it. Entries also age out, and the cache is
 * bounded (the oldest entries go first).
 */
import type { Subscriber } from './listener.ts'

interface Entry<V> {
  value: V
  storedAt: number
}

export class TenantCache<V> implements Subscriber {
  readonly #tenants = new Map<number, Map<string, Entry<V>>>()
  #size = 0
  #live = false
  #generation = 0

  constructor(
    readonly maxEntries: number,
    readonly maxAgeMs: number,
  ) {
    if (!(maxEntries >= 1)) throw new RangeError('a TenantCache holds at least one entry')
  }

  /** The subscription vouches for the entries: they may be served and stored. */
  get live(): boolean {
    return this.#live
  }

  get size(): number {
    return this.#size
  }

  /** Bumped by every invalidation: a read that saw it change must not store what it read. */
  get generation(): number {
    return this.#generation
  }

  /** The value in memory, if the subscription vouches for it and it is young enough. */
  peek(tenantId: number, key: string): V | undefined {
    if (!this.#live) return undefined
    const entry = this.#tenants.get(tenantId)?.get(key)
    return entry !== undefined && Date.now() - entry.storedAt < this.maxAgeMs ? entry.value : undefined
  }

  /** Keeps a value read from the database when no invalidation arrived since `generation` was taken. */
  store(tenantId: number, key: string, value: V, generation: number): void {
    if (!this.#live || generation !== this.#generation) return
    if (this.#tenants.get(tenantId)?.delete(key) === true) this.#size -= 1
    while (this.#size >= this.maxEntries) this.#evictOldest()
    let entries = this.#tenants.get(tenantId)
    if (entries === undefined) this.#tenants.set(tenantId, (entries = new Map<string, Entry<V>>()))
    entries.set(key, { value, storedAt: Date.now() })
    this.#size += 1
  }

  /** The value from memory, else from `load` (kept unless invalidated meanwhile; `undefined` is never kept). */
  async get(tenantId: number, key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const cached = this.peek(tenantId, key)
    if (cached !== undefined) return cached
    const generation = this.#generation
    const value = await load()
    if (value !== undefined) this.store(tenantId, key, value, generation)
    return value
  }

  notify(payload: string): void {
    const tenantId = Number(payload)
    if (payload === '*' || payload === '' || !Number.isSafeInteger(tenantId)) return this.#clear()
    this.#generation += 1
    this.#size -= this.#tenants.get(tenantId)?.size ?? 0
    this.#tenants.delete(tenantId)
  }

  up(): void {
    this.#clear()
    this.#live = true
  }

  down(): void {
    this.#live = false
    this.#clear()
  }

  /** Drops the oldest entry of the tenant stored first (and tenants left with none). */
  #evictOldest(): void {
    for (const [tenantId, entries] of this.#tenants) {
      const oldest = entries.keys().next()
      if (!oldest.done) {
        entries.delete(oldest.value)
        this.#size -= 1
      }
      if (entries.size === 0) this.#tenants.delete(tenantId)
      if (!oldest.done) return
    }
  }

  #clear(): void {
    this.#generation += 1
    this.#tenants.clear()
    this.#size = 0
  }
}
