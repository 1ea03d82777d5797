/**
 * Per-application rate limit on /api/: RATE_LIMIT_PER_MINUTE requests per fixed one-minute window (0 turns
 * it off). Every response says where the caller stands (RateLimit-Policy and RateLimit, IETF httpapi
 * draft); past the limit, 429 with Retry-After.
 *
 * Counting costs no database round trip per request: each process counts locally and, about once a second,
 * adds its count to the shared row for that application and window and reads back the total over every
 * process (PostgreSQL). So several processes enforce one limit, overshooting by at most what the others
 * served in the last second. The embedded database has one process, which counts alone.
 */
import * as repo from './rate-limit.repository.ts'
import type { FastifyInstance } from 'fastify'
import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'
import { tooManyRequests } from '../core/problem.ts'

const WINDOW_MS = 60_000

interface Entry {
  tenantId: number
  window: number
  /** Requests counted here and not yet added to the shared row. */
  pending: number
  /** The shared total (all processes) when this process last synchronised. */
  shared: number
}

export class RateLimiter {
  readonly #entries = new Map<number, Entry>()
  readonly #timer: NodeJS.Timeout | undefined
  #syncing: Promise<void> = Promise.resolve()

  constructor(
    readonly limit: number,
    readonly db: Kysely<DB> | undefined,
    syncMs: number,
  ) {
    if (db !== undefined && limit > 0) {
      this.#timer = setInterval(() => void this.sync(), syncMs)
      this.#timer.unref()
    }
  }

  /** Counts one request; says whether it is allowed, how many remain, and seconds until the window resets. */
  hit(
    applicationId: number,
    tenantId: number,
    now = Date.now(),
  ): { allowed: boolean; remaining: number; reset: number } {
    const window = Math.floor(now / WINDOW_MS)
    let entry = this.#entries.get(applicationId)
    if (entry === undefined || entry.window !== window)
      this.#entries.set(applicationId, (entry = { tenantId, window, pending: 0, shared: 0 }))
    const used = entry.shared + entry.pending
    const reset = Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - now) / 1000))
    if (used >= this.limit) return { allowed: false, remaining: 0, reset }
    entry.pending += 1
    return { allowed: true, remaining: this.limit - used - 1, reset }
  }

  /** Adds local counts to the shared rows and reads back the totals. Errors leave the counts to the next try. */
  sync(): Promise<void> {
    this.#syncing = this.#syncing.then(async () => {
      const db = this.db
      if (db === undefined) return
      const current = Math.floor(Date.now() / WINDOW_MS)
      for (const [applicationId, entry] of this.#entries) {
        if (entry.window < current) {
          this.#entries.delete(applicationId)
          if (entry.pending === 0) continue
        }
        const pending = entry.pending
        try {
          const row = await repo.addToWindow(
            db,
            entry.tenantId,
            applicationId,
            new Date(entry.window * WINDOW_MS),
            pending,
          )
          entry.pending -= pending
          entry.shared = Number(row.n)
        } catch {
          return
        }
      }
      await repo.dropWindowsBefore(db, new Date((current - 60) * WINDOW_MS)).catch(() => undefined)
    })
    return this.#syncing
  }

  async close(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer)
    await this.sync()
  }
}

/** The hook for /api/ (after authentication, which names the application). */
export function rateLimit(app: FastifyInstance, limiter: RateLimiter): void {
  if (limiter.limit <= 0) return
  const policy = `"per-application";q=${limiter.limit};w=${WINDOW_MS / 1000}`
  app.addHook('onRequest', async (request, reply) => {
    const { allowed, remaining, reset } = limiter.hit(request.actor.applicationId!, request.actor.tenantId)
    reply.header('ratelimit-policy', policy).header('ratelimit', `"per-application";r=${remaining};t=${reset}`)
    if (!allowed)
      throw tooManyRequests(
        `This application made more than ${limiter.limit} requests this minute; retry in ${reset} s.`,
        reset,
      )
  })
  app.addHook('onClose', () => limiter.close())
}
