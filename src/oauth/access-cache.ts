/**
 * Live access (oauth/access.repository.ts) served from memory, without a stale answer. Every change that
 * can alter it notifies `access_changed` with the tenant's id from the changing transaction (migration
 * 0004), and the cache drops that tenant's entries when the notification arrives — on PostgreSQL in every
 * process sharing the database, about when the change commits. While the subscription is not up (not yet
 * started, or its connection lost) nothing is served from or stored in the cache: every request asks the
 * database, as if there were no cache. A load that overlaps an invalidation is not stored, so an answer
 * read before a change cannot be cached after it. Entries also age out, and the cache is bounded.
 */
import type { FastifyInstance } from 'fastify'
import type { Database } from '../db/database.ts'
import type { Subscriber, Subscription } from '../db/listener.ts'
import type { LiveAccess } from './access.repository.ts'
import type { AccessClaims } from './tokens.ts'

export const ACCESS_CHANNEL = 'access_changed'

interface Entry {
  tenantId: number
  access: LiveAccess
  storedAt: number
}

export class LiveAccessCache implements Subscriber {
  readonly #entries = new Map<string, Entry>()
  #live = false
  /** Bumped by every invalidation: a load that saw it change must not store what it read. */
  #generation = 0
  #subscription: Subscription | undefined

  constructor(
    readonly maxEntries = 10_000,
    readonly maxAgeMs = 60_000,
  ) {}

  /** Subscribes to the database's notifications; until they are up, the cache serves nothing. */
  async start(database: Database): Promise<void> {
    this.#subscription = await database.listen(ACCESS_CHANNEL, this)
  }

  /** Resolves when every change committed before the call has reached this cache (see db/listener.ts). */
  fence(): Promise<void> {
    return this.#subscription?.fence() ?? Promise.resolve()
  }

  async close(): Promise<void> {
    this.down()
    await this.#subscription?.close()
  }

  get live(): boolean {
    return this.#live
  }

  /** The live access for these claims: from memory when the subscription vouches for it, else from `load`. */
  async get(claims: AccessClaims, load: () => Promise<LiveAccess | undefined>): Promise<LiveAccess | undefined> {
    const key = `${claims.tenantId}|${claims.applicationId}|${claims.userId}|${claims.secretVersion}|${claims.jti}|${claims.domain}`
    const now = Date.now()
    if (this.#live) {
      const entry = this.#entries.get(key)
      if (entry !== undefined && now - entry.storedAt < this.maxAgeMs) return entry.access
    }
    const generation = this.#generation
    const access = await load()
    if (access !== undefined && this.#live && generation === this.#generation) {
      this.#entries.delete(key)
      if (this.#entries.size >= this.maxEntries) this.#entries.delete(this.#entries.keys().next().value!)
      this.#entries.set(key, { tenantId: claims.tenantId, access, storedAt: now })
    }
    return access
  }

  notify(payload: string): void {
    const tenantId = Number(payload)
    if (payload === '*' || !Number.isSafeInteger(tenantId)) return this.#clear()
    this.#generation += 1
    for (const [key, entry] of this.#entries) if (entry.tenantId === tenantId) this.#entries.delete(key)
  }

  up(): void {
    this.#clear()
    this.#live = true
  }

  down(): void {
    this.#live = false
    this.#clear()
  }

  #clear(): void {
    this.#generation += 1
    this.#entries.clear()
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * This route's writes never change what a token may do (vendors, locations, issuing a token), so its
     * answers need not wait for the fence.
     */
    accessNeutral?: boolean
  }
}

/**
 * The app's live-access cache, subscribed, and closed with the app. A successful write (API, token
 * revocation, console; not a route marked `accessNeutral`) is answered only after the fence: whatever it
 * changed has reached this process's cache, so the writer's next request — here — already sees it. Other
 * processes see it as their notifications arrive, normally within milliseconds.
 */
export async function liveAccessCache(app: FastifyInstance, database: Database): Promise<LiveAccessCache> {
  const cache = new LiveAccessCache()
  await cache.start(database)
  app.addHook('onClose', () => cache.close())
  app.addHook('onSend', async (request, reply) => {
    if (SAFE_METHODS.has(request.method) || reply.statusCode >= 400) return
    if (request.routeOptions.config.accessNeutral !== true) await cache.fence()
  })
  return cache
}
