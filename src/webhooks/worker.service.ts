/**
 * The delivery worker, one in every serving process. It claims due deliveries (queue.repository.ts) when
 * woken: by a NOTIFY `webhooks_due` (a delivery became due now, in any process), by a timer set for the
 * next scheduled retry, by an attempt finishing (a slot is free), and by a slow safety poll. Attempts run
 * concurrently, at most `PER_ENDPOINT` per endpoint in this process, so a slow receiver holds only its own
 * slots and never delays the others.
 *
 * For an endpoint whose receiver answers fast, it claims ahead: up to `AHEAD` more deliveries, leased like
 * the others, wait here for a free slot, so a finished attempt starts the next without a database round
 * trip, and claims come in batches. One that has waited `AHEAD_FRESH_MS` is given back (due at once) rather
 * than started, so the lease still covers its attempt and what it sends (URL, secrets) is never older than
 * that. Each attempt and what its result means: send.service.ts. Results are written in batches
 * (outcomes.service.ts); connections are kept alive (delivery.ts).
 * On stop it takes no more work, gives back what it claimed ahead at once, lets attempts in flight finish
 * for a while, and gives back (due at once, for any process) those that do not.
 */
import { setMaxListeners } from 'node:events'
import type { Database } from '../db/database.ts'
import type { Subscriber } from '../db/listener.ts'
import type { Config } from '../config.ts'
import { connectionPool } from './delivery.ts'
import { deliveryMetrics } from './metrics.service.ts'
import { outcomeWriter, type Written } from './outcomes.service.ts'
import * as queue from './queue.repository.ts'
import { sendClaimed, sendSettings } from './send.service.ts'

export const CHANNEL = 'webhooks_due'
const MAX_IN_FLIGHT = 64
const PER_ENDPOINT = 8
/** Claimed ahead for one endpoint at most (its receiver fast), waiting for a free slot; `MAX_AHEAD` in all. */
const AHEAD = 128
const MAX_AHEAD = 512
/** A receiver is fast when its attempts take less than this (a moving average). */
const FAST_MS = 250
/** Claimed ahead for a fast receiver: as many as its slots start in this time, at its speed. */
const AHEAD_HORIZON_MS = 500
/** A delivery claimed ahead starts within this after its claim, or is given back. */
const AHEAD_FRESH_MS = 2000
/** While anything is claimed here, the look for due work runs at least this often (instead of a timer). */
const HELD_RECHECK_MS = 1000
/** Endpoints remembered (their speed) while idle. */
const REMEMBERED = 1024
const SAFETY_POLL_MS = 30_000
const BUSY_RECHECK_MS = 250
const FAILING_LIMIT_MS = 5 * 86400_000

export interface Log {
  error(obj: object, msg: string): void
  warn(obj: object, msg: string): void
}

export interface WorkerOptions {
  /**
   * Listen for `webhooks_due` on a connection of the worker's own (default). False: the caller hands
   * `subscriber` to the process's one subscription (server.ts, through buildApp), so a process keeps one
   * LISTEN connection.
   */
  listen?: boolean
  /** How long stop() lets attempts in flight finish before giving them back. */
  stopGraceMs?: number
  /** Picks the jitter factor (default: uniform in [0.8, 1.2]). */
  jitter?: () => number
  /**
   * The first look for due work waits for this (default: none, it looks at once); a notification before it
   * is remembered. server.ts starts the worker a moment after the server listens, so that the first requests
   * after a start are not queued behind its queries on the embedded engine's one connection.
   */
  startAfter?: Promise<void>
}

export function startWebhookWorker(
  database: Database,
  config: Readonly<Config>,
  log: Log,
  options: WorkerOptions = {},
): { subscriber: Subscriber; stop(): Promise<void> } {
  const settings = sendSettings(config, options.jitter ?? (() => 0.8 + Math.random() * 0.4))
  // Longer than a delivery can be held here before its attempt starts, plus the attempt (resolution and
  // answer within the timeout, twice at most), plus the write of its result, so no other process takes a
  // delivery while its attempt may still be running.
  const leaseMs = 2 * config.webhookTimeoutMs + 10_000 + AHEAD_FRESH_MS
  const connections = connectionPool(PER_ENDPOINT)
  const inFlight = new Map<number, Promise<void>>()
  /** Stops every attempt in flight (at the end of stop()'s grace). */
  const abort = new AbortController()
  setMaxListeners(0, abort.signal)
  const endpoints = new Map<number, Endpoint>()
  /** Endpoints switched off by a result: 'pending' until that result is written, then 'written'. */
  const gone = new Map<number, 'pending' | 'written'>()
  const releasing = new Set<Promise<void>>()
  let running = 0
  let ahead = 0
  let stopping = false
  let claiming: Promise<void> | undefined
  let again = false
  let lookAll = true
  /** The last claim took all it asked for (or asked for none): more may be due than was claimed. */
  let mayHaveMore = false
  let timer: NodeJS.Timeout | undefined
  let timerAt = Infinity
  let started = options.startAfter === undefined

  const writer = outcomeWriter(database.db, FAILING_LIMIT_MS, log, (result: Written) => {
    for (const id of result.gone) if (gone.get(id) === 'pending') gone.delete(id)
    for (const id of result.disabled) {
      gone.set(id, 'written')
      const e = endpoints.get(id)
      if (e !== undefined) pump(id, e)
    }
    // A retry was scheduled: the next look for due work sets the timer for it.
    if (result.retries) wake()
  })

  /**
   * Runs claim rounds, one at a time. `all`: look for any due work (a NOTIFY, a timer, a written retry);
   * otherwise only refill endpoints whose waiting deliveries ran low.
   */
  const wake = (all = true): void => {
    if (stopping) return
    if (all) lookAll = true
    if (!started) return
    if (claiming !== undefined) {
      again = true
      return
    }
    claiming = claimRounds()
      .catch((error: unknown) => log.error({ err: error }, 'webhook claim failed'))
      .finally(() => {
        claiming = undefined
        if (again && !stopping) {
          again = false
          wake(false)
        }
      })
  }
  const wakeAll = () => wake()

  const endpoint = (id: number): Endpoint => {
    let e = endpoints.get(id)
    if (e === undefined) endpoints.set(id, (e = { running: 0, ahead: [], averageMs: undefined }))
    return e
  }
  /** How many to claim ahead for `e`: none until its speed is known, none for a slow receiver. */
  const aheadFor = (e: Endpoint) =>
    e.averageMs === undefined || e.averageMs >= FAST_MS
      ? 0
      : Math.min(AHEAD, Math.floor((PER_ENDPOINT * AHEAD_HORIZON_MS) / Math.max(1, e.averageMs)))

  async function claimRounds(): Promise<void> {
    while (!stopping) {
      again = false
      const all = lookAll || mayHaveMore
      lookAll = false
      for (const [id, state] of gone) if (state === 'written') gone.delete(id)
      const rooms = new Map<number, number>()
      let aheadRoom = 0
      let wanted = false
      for (const [id, e] of endpoints) {
        pump(id, e) // gives back what waited too long
        const held = e.running + e.ahead.length
        const slots = Math.max(0, PER_ENDPOINT - held)
        const more = Math.max(0, PER_ENDPOINT + aheadFor(e) - held - slots)
        // Claimed ahead in batches: not until half of what waits here has started.
        const extra = more >= Math.max(1, aheadFor(e) / 2) ? more : 0
        rooms.set(id, slots + extra)
        aheadRoom += extra
        wanted ||= slots + extra > 0
      }
      if (!all && !wanted) break
      const total =
        Math.max(0, MAX_IN_FLIGHT - running - ahead - writer.pending) +
        Math.max(0, Math.min(aheadRoom, MAX_AHEAD - ahead))
      mayHaveMore = total <= 0
      if (total <= 0) break
      const at = performance.now()
      // Idle (as at every start): a look for anything due first, the claim only when there is something.
      const idle = endpoints.size === 0 && running + ahead + writer.pending === 0
      if (idle && !(await queue.anyDue(database.db))) break
      const claimed = await queue.claimDue(database.db, { total, perEndpoint: PER_ENDPOINT, busy: rooms, leaseMs })
      const unwanted: queue.Claimed[] = []
      for (const c of claimed) {
        if (gone.has(c.endpoint_id)) unwanted.push(c)
        else {
          endpoint(c.endpoint_id).ahead.push({ claimed: c, at })
          ahead++
        }
      }
      giveBack(unwanted)
      for (const [id, e] of endpoints) pump(id, e)
      // Fewer than asked for: every endpoint got what was due or all the room it has here.
      mayHaveMore = claimed.length === total
      if (!mayHaveMore) break
    }
    if (stopping) return
    if (running + ahead + writer.pending > 0) {
      // Finishing attempts wake the worker; this covers what falls due meanwhile for other endpoints. A
      // round that only refilled does not push it back, so it fires while a busy endpoint keeps refilling.
      if (timerAt > Date.now() + HELD_RECHECK_MS) arm(HELD_RECHECK_MS)
    } else {
      const next = await queue.nextDueAt(database.db)
      // Due already but not claimed: mostly its endpoint's slots (or all) are busy here, and the attempt that
      // frees one wakes the worker; a short look again covers one that fell due just after the claim.
      const wait = next === null ? SAFETY_POLL_MS : next.getTime() - Date.now()
      arm((wait <= 0 ? BUSY_RECHECK_MS : Math.min(SAFETY_POLL_MS, wait)) + 5)
    }
  }

  function arm(delay: number): void {
    if (stopping) return
    clearTimeout(timer)
    timerAt = Date.now() + delay
    timer = setTimeout(() => {
      timerAt = Infinity
      wakeAll()
    }, delay)
    timer.unref()
  }

  /** Starts what waits for `id` while it has free slots; gives back what waited too long or is for an endpoint now off. */
  function pump(id: number, e: Endpoint): void {
    if (stopping) return
    const back: queue.Claimed[] = []
    const now = performance.now()
    const off = gone.has(id)
    while (e.ahead.length > 0 && (off || now - e.ahead[0]!.at > AHEAD_FRESH_MS)) {
      back.push(e.ahead.shift()!.claimed)
      ahead--
    }
    // Waited too long for a slot: the receiver is slow now, whatever its past answers; no claiming ahead
    // for it until fast answers bring its average down again.
    if (back.length > 0 && !off) e.averageMs = Math.max(e.averageMs ?? 0, AHEAD_FRESH_MS)
    while (e.ahead.length > 0 && e.running < PER_ENDPOINT && running < MAX_IN_FLIGHT) {
      ahead--
      start(id, e, e.ahead.shift()!.claimed)
    }
    giveBack(back)
    if (e.running === 0 && e.ahead.length === 0 && endpoints.size > REMEMBERED) endpoints.delete(id)
  }

  function giveBack(claimed: queue.Claimed[]): void {
    if (claimed.length === 0) return
    const done: Promise<void> = queue
      .release(database.db, claimed)
      .catch((error: unknown) => log.error({ err: error }, 'webhook release failed'))
      .finally(() => {
        releasing.delete(done)
        wake()
      })
    releasing.add(done)
  }

  function start(id: number, e: Endpoint, claimed: queue.Claimed): void {
    const began = performance.now()
    const full = running >= MAX_IN_FLIGHT - 1
    running++
    e.running++
    const done = deliver(claimed, abort.signal)
      .catch((error: unknown) => log.error({ err: error, delivery: claimed.id }, 'webhook delivery failed'))
      .finally(() => {
        inFlight.delete(claimed.id)
        running--
        e.running--
        const took = performance.now() - began
        e.averageMs = e.averageMs === undefined ? took : 0.8 * e.averageMs + 0.2 * took
        pump(id, e)
        if (full) for (const [other, o] of endpoints) pump(other, o)
        // Claims come in batches: only when what waits here runs low (or work was left for want of room).
        if (e.ahead.length <= aheadFor(e) / 2 || mayHaveMore) wake(false)
      })
    inFlight.set(claimed.id, done)
  }

  async function deliver(claimed: queue.Claimed, signal: AbortSignal): Promise<void> {
    const outcome = await sendClaimed(claimed, settings, { signal, connections })
    if (outcome === null) return queue.release(database.db, [claimed])
    // Nothing more for it from here until the result that switches it off is written.
    if (outcome.gone) gone.set(claimed.endpoint_id, 'pending')
    deliveryMetrics.record(outcome.succeeded ? 'succeeded' : outcome.status === 'failed' ? 'failed' : 'retrying')
    writer.add(outcome)
  }

  // Up (and again after a lost connection comes back): whatever became due meanwhile is claimed.
  const subscriber: Subscriber = { notify: wakeAll, up: wakeAll, down: () => undefined }
  const subscription =
    options.listen === false
      ? Promise.resolve(undefined)
      : database.listen({ [CHANNEL]: subscriber }).catch((error: unknown) => {
          log.error({ err: error }, 'webhook worker cannot listen; it polls')
          return undefined
        })
  if (options.startAfter === undefined) wake()
  else
    options.startAfter.then(
      () => {
        started = true
        wake()
      },
      () => undefined,
    )

  return {
    subscriber,
    async stop() {
      stopping = true
      clearTimeout(timer)
      await claiming
      // Claimed ahead, not started: due again at once, for any process.
      const waiting = [...endpoints.values()].flatMap((e) => e.ahead.splice(0).map((h) => h.claimed))
      ahead = 0
      await queue
        .release(database.db, waiting)
        .catch((error: unknown) => log.error({ err: error }, 'webhook release failed'))
      const pending = [...inFlight.values()]
      const grace = new Promise<void>((resolve) => setTimeout(resolve, options.stopGraceMs ?? 5000).unref())
      await Promise.race([Promise.all(pending), grace])
      abort.abort()
      await Promise.all(inFlight.values())
      await writer.drain()
      await Promise.all(releasing)
      connections.close()
      await (await subscription)?.close()
    },
  }
}

interface Endpoint {
  /** Attempts in flight. */
  running: number
  /** Claimed, waiting for a free slot, oldest first; `at` is when the claim was sent. */
  ahead: { claimed: queue.Claimed; at: number }[]
  /** A moving average of its attempts' durations. */
  averageMs: number | undefined
}
