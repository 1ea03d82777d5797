/**
 * Brute-force brake for the token endpoint: failed attempts are counted per client id and per source
 * address in fixed windows; past either limit, further failing attempts are answered 429 until the window
 * ends. Only failures are braked: the right secret always works, so neither junk from a shared address (a
 * NAT, a proxy) nor failures with a client's public id can lock its owner out. Counts are
 * per process (a guess at a 256-bit secret gains nothing from a few more tries on another node), and the
 * table is capped so a flood of made-up ids cannot grow memory without bound.
 */
export interface AttemptLimits {
  perClient: number
  perAddress: number
  windowSeconds: number
}

const MAX_KEYS = 100_000

export class AttemptCounter {
  readonly #counts = new Map<string, { failures: number; resetAt: number }>()

  constructor(readonly limits: AttemptLimits) {}

  /** Seconds this address must wait (too many failures from it), else 0. Checked only after a failed attempt. */
  addressWait(address: string, now = Date.now()): number {
    return this.#wait(`a:${address}`, this.limits.perAddress, now)
  }

  /**
   * Seconds this client id must wait, else 0. Checked only after a failed attempt: the right secret always
   * works, so nobody can lock a client out by failing on purpose with its (public) id.
   */
  clientWait(clientId: string, now = Date.now()): number {
    return this.#wait(`c:${clientId.slice(0, 128)}`, this.limits.perClient, now)
  }

  #wait(key: string, limit: number, now: number): number {
    const entry = this.#counts.get(key)
    return entry !== undefined && entry.resetAt > now && entry.failures >= limit
      ? Math.ceil((entry.resetAt - now) / 1000)
      : 0
  }

  fail(clientId: string | undefined, address: string, now = Date.now()): void {
    for (const [key] of this.#keys(clientId, address)) {
      const entry = this.#counts.get(key)
      if (entry === undefined || entry.resetAt <= now) {
        if (this.#counts.size >= MAX_KEYS) this.#sweep(now)
        this.#counts.set(key, { failures: 1, resetAt: now + this.limits.windowSeconds * 1000 })
      } else {
        entry.failures += 1
      }
    }
  }

  *#keys(clientId: string | undefined, address: string): Generator<[string, number]> {
    yield [`a:${address}`, this.limits.perAddress]
    if (clientId !== undefined && clientId !== '') yield [`c:${clientId.slice(0, 128)}`, this.limits.perClient]
  }

  #sweep(now: number): void {
    for (const [key, entry] of this.#counts) if (entry.resetAt <= now) this.#counts.delete(key)
    // Still full of live entries: drop the oldest half rather than grow.
    if (this.#counts.size >= MAX_KEYS) {
      let drop = this.#counts.size / 2
      for (const key of this.#counts.keys()) {
        if (drop-- <= 0) break
        this.#counts.delete(key)
      }
    }
  }
}

/** The brake as configured (TOKEN_FAILURES_PER_CLIENT, TOKEN_FAILURES_PER_ADDRESS, TOKEN_FAILURE_WINDOW_SECONDS). */
export const attemptCounterFrom = (config: {
  TOKEN_FAILURES_PER_CLIENT: number
  TOKEN_FAILURES_PER_ADDRESS: number
  TOKEN_FAILURE_WINDOW_SECONDS: number
}) =>
  new AttemptCounter({
    perClient: config.TOKEN_FAILURES_PER_CLIENT,
    perAddress: config.TOKEN_FAILURES_PER_ADDRESS,
    windowSeconds: config.TOKEN_FAILURE_WINDOW_SECONDS,
  })
