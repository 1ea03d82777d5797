/**
 * Brute-force brake for the token endpoint (and console sign-in): failed attempts are counted per client id
 * and per source address in fixed windows; past either limit, further failing attempts are answered 429
 * until the window ends. Only failures are braked: the right secret always works, so neither junk from a
 * shared address (a NAT, a proxy) nor failures with a client's public id can lock its owner out. Counts are
 * per node (a guess at a 256-bit secret gains nothing from a few more tries on another node), and the table
 * is capped so a flood of made-up ids cannot grow memory without bound.
 *
 * One node may be several processes (WORKERS, node:cluster). Then the primary holds the counters and every
 * worker asks it over the cluster's IPC channel, so a failure counted in one worker counts in all and
 * connections spread over n workers do not get n times the allowance. Only failures cross the channel: the
 * brake is consulted only after a failed attempt. If the primary cannot be asked (gone, or no answer within
 * a second) the worker counts locally, so the brake fails safe rather than open.
 */
import cluster from 'node:cluster'

export interface AttemptLimits {
  perClient: number
  perAddress: number
  windowSeconds: number
}

const MAX_KEYS = 100_000

export class AttemptCounter {
  readonly #counts = new Map<string, { failures: number; resetAt: number }>()

  constructor(
    readonly limits: AttemptLimits,
    /** Where the node's counters are kept when not here (a cluster worker asks its primary). */
    readonly remote?: RemoteAttempts,
  ) {}

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

  /**
   * Counts one failed attempt and returns the seconds to wait (0: answer the failure as such). An address
   * gets its full allowance of failures; a client id is braked from the failure that reaches its limit.
   */
  record(clientId: string | undefined, address: string, now = Date.now()): number {
    const addressWait = this.addressWait(address, now)
    this.fail(clientId, address, now)
    return Math.max(addressWait, clientId === undefined ? 0 : this.clientWait(clientId, now))
  }

  /** `record`, on this node's shared counters: the primary's when this is a cluster worker, else these. */
  async failed(clientId: string | undefined, address: string): Promise<number> {
    if (this.remote !== undefined) {
      const wait = await this.remote.ask(clientId, address)
      if (wait !== undefined) return wait
    }
    return this.record(clientId, address)
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

/** Which brake: token requests and console sign-ins are counted apart. */
export type AttemptScope = 'token' | 'sign-in'

interface BrakeSettings {
  TOKEN_FAILURES_PER_CLIENT: number
  TOKEN_FAILURES_PER_ADDRESS: number
  TOKEN_FAILURE_WINDOW_SECONDS: number
}

const limitsFrom = (config: BrakeSettings): AttemptLimits => ({
  perClient: config.TOKEN_FAILURES_PER_CLIENT,
  perAddress: config.TOKEN_FAILURES_PER_ADDRESS,
  windowSeconds: config.TOKEN_FAILURE_WINDOW_SECONDS,
})

/**
 * The brake as configured (TOKEN_FAILURES_PER_CLIENT, TOKEN_FAILURES_PER_ADDRESS,
 * TOKEN_FAILURE_WINDOW_SECONDS); in a cluster worker (after `shareAttemptsWithPrimary`) it counts on the
 * primary.
 */
export const attemptCounterFrom = (config: BrakeSettings, scope: AttemptScope) =>
  new AttemptCounter(limitsFrom(config), sharing ? new RemoteAttempts(scope) : undefined)

// The cluster protocol: a worker asks { type, id, scope, clientId?, address }; the primary answers { type, id, wait }.
const MESSAGE = 'procurement:attempt-failed'
const ANSWER_WITHIN_MS = 1000
/** Ids and addresses longer than this are cut before they cross the channel (keys use 128 characters). */
const MAX_FIELD = 256

interface Ask {
  type: typeof MESSAGE
  id: number
  scope: AttemptScope
  clientId?: string
  address: string
}

let sharing = false
let nextId = 0
const waiting = new Map<number, (wait: number | undefined) => void>()

/** In a cluster worker: counters made from now on count on the primary (see the top of this file). */
export function shareAttemptsWithPrimary(): void {
  if (sharing || !cluster.isWorker || process.send === undefined) return
  sharing = true
  process.on('message', (message: unknown) => {
    if (typeof message !== 'object' || message === null) return
    const { type, id, wait } = message as { type?: unknown; id?: unknown; wait?: unknown }
    if (type !== MESSAGE || typeof id !== 'number' || typeof wait !== 'number') return
    waiting.get(id)?.(wait)
  })
}

export class RemoteAttempts {
  constructor(readonly scope: AttemptScope) {}

  /** The primary's answer (seconds to wait), or undefined if it cannot be asked: then count locally. */
  ask(clientId: string | undefined, address: string): Promise<number | undefined> {
    if (process.send === undefined || !process.connected) return Promise.resolve(undefined)
    const id = ++nextId
    const ask: Ask = { type: MESSAGE, id, scope: this.scope, address: address.slice(0, MAX_FIELD) }
    if (clientId !== undefined) ask.clientId = clientId.slice(0, MAX_FIELD)
    return new Promise((resolve) => {
      const done = (wait: number | undefined) => {
        clearTimeout(timer)
        waiting.delete(id)
        resolve(wait)
      }
      const timer = setTimeout(() => done(undefined), ANSWER_WITHIN_MS)
      waiting.set(id, done)
      try {
        process.send!(ask, undefined, {}, (error: Error | null) => {
          if (error !== null) done(undefined)
        })
      } catch {
        done(undefined)
      }
    })
  }
}

/**
 * The primary's side: counters per scope (capped like any other), and a function that answers a worker's
 * message about a failed attempt, or returns undefined for any other message.
 */
export function attemptsHost(
  config: BrakeSettings,
): (message: unknown) => { type: string; id: number; wait: number } | undefined {
  const counters = new Map<AttemptScope, AttemptCounter>()
  return (message) => {
    if (typeof message !== 'object' || message === null) return undefined
    const { type, id, scope, clientId, address } = message as Partial<Record<keyof Ask, unknown>>
    if (type !== MESSAGE || typeof id !== 'number' || typeof address !== 'string') return undefined
    if (scope !== 'token' && scope !== 'sign-in') return undefined
    if (clientId !== undefined && typeof clientId !== 'string') return undefined
    let counter = counters.get(scope)
    if (counter === undefined) counters.set(scope, (counter = new AttemptCounter(limitsFrom(config))))
    return { type: MESSAGE, id, wait: counter.record(clientId, address) }
  }
}
