/**
 * The delivery worker, one in every serving process. It claims due deliveries (queue.repository.ts) when
 * woken: by a NOTIFY `webhooks_due` (a delivery became due now, in any process), by a timer set for the
 * next scheduled retry, by an attempt finishing (a slot is free), and by a slow safety poll. Attempts run
 * concurrently, at most `PER_ENDPOINT` per endpoint in this process, so a slow receiver holds only its own
 * slots and never delays the others. On stop it takes no more work, lets attempts in flight finish for a
 * while, and gives back (due at once, for any process) those that do not.
 */
import type { Database } from '../db/database.ts'
import type { Subscriber } from '../db/listener.ts'
import type { Config } from '../config.ts'
import { eventId, toEvent } from '../events/service.ts'
import { attempt, type AttemptResult } from './delivery.ts'
import type { Policy } from './destinations.ts'
import { deliveryMetrics } from './metrics.service.ts'
import * as queue from './queue.repository.ts'
import { signedHeaders } from './signing.ts'

export const CHANNEL = 'webhooks_due'
const MAX_IN_FLIGHT = 64
const PER_ENDPOINT = 8
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
}

/** When the next attempt is due after attempt number `made` failed, or null when the schedule is spent. */
export function nextAttemptAt(schedule: readonly number[], made: number, jitter: number, now = Date.now()) {
  const wait = schedule[made - 1]
  return wait === undefined ? null : new Date(now + Math.round(wait * jitter))
}

export function startWebhookWorker(
  database: Database,
  config: Readonly<Config>,
  log: Log,
  options: WorkerOptions = {},
): { subscriber: Subscriber; stop(): Promise<void> } {
  const policy: Policy = { allowHttp: config.WEBHOOK_ALLOW_HTTP, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS }
  const jitter = options.jitter ?? (() => 0.8 + Math.random() * 0.4)
  // Longer than an attempt can take (resolution and answer within the timeout, twice at most, then the
  // write of its result), so no other process takes a delivery while its attempt may still be running.
  const leaseMs = 2 * config.webhookTimeoutMs + 10_000
  const inFlight = new Map<number, { claimed: queue.Claimed; abort: AbortController; done: Promise<void> }>()
  const perEndpoint = new Map<number, number>()
  let stopping = false
  let claiming: Promise<void> | undefined
  let again = false
  let timer: NodeJS.Timeout | undefined

  const wake = (): void => {
    if (stopping) return
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
          wake()
        }
      })
  }

  async function claimRounds(): Promise<void> {
    while (!stopping && inFlight.size < MAX_IN_FLIGHT) {
      again = false
      const busy = new Map([...perEndpoint].map(([id, n]) => [id, Math.max(0, PER_ENDPOINT - n)]))
      const claimed = await queue.claimDue(database.db, {
        total: MAX_IN_FLIGHT - inFlight.size,
        perEndpoint: PER_ENDPOINT,
        busy,
        leaseMs,
      })
      for (const c of claimed) start(c)
      if (claimed.length === 0) break
    }
    if (stopping) return
    const next = await queue.nextDueAt(database.db)
    // Due already but not claimed: mostly its endpoint's slots (or all) are busy here, and the attempt that
    // frees one wakes the worker; a short look again covers one that fell due just after the claim.
    const wait = next === null ? SAFETY_POLL_MS : next.getTime() - Date.now()
    const delay = wait <= 0 ? BUSY_RECHECK_MS : Math.min(SAFETY_POLL_MS, wait)
    clearTimeout(timer)
    timer = setTimeout(wake, delay + 5)
    timer.unref()
  }

  function start(claimed: queue.Claimed): void {
    const abort = new AbortController()
    perEndpoint.set(claimed.endpoint_id, (perEndpoint.get(claimed.endpoint_id) ?? 0) + 1)
    const done = deliver(claimed, abort.signal)
      .catch((error: unknown) => log.error({ err: error, delivery: claimed.id }, 'webhook delivery failed'))
      .finally(() => {
        inFlight.delete(claimed.id)
        const left = (perEndpoint.get(claimed.endpoint_id) ?? 1) - 1
        if (left === 0) perEndpoint.delete(claimed.endpoint_id)
        else perEndpoint.set(claimed.endpoint_id, left)
        wake()
      })
    inFlight.set(claimed.id, { claimed, abort, done })
  }

  async function deliver(claimed: queue.Claimed, signal: AbortSignal): Promise<void> {
    const id = eventId(claimed.xid, claimed.event_seq)
    let result: AttemptResult
    if (claimed.type === null || claimed.created_at === null) {
      result = { ok: false, status: null, durationMs: 0, body: '', error: 'the event is past its retention' }
    } else {
      const body = JSON.stringify(
        toEvent({
          xid: claimed.xid,
          seq: claimed.event_seq,
          type: claimed.type,
          object: claimed.object,
          created_at: claimed.created_at,
        }),
      )
      const secrets = [claimed.secret]
      if (claimed.previous_secret !== null && (claimed.previous_secret_until?.getTime() ?? 0) > Date.now())
        secrets.push(claimed.previous_secret)
      result = await attempt(
        { url: claimed.url, headers: signedHeaders(secrets, id, body), body },
        policy,
        config.webhookTimeoutMs,
        signal,
      )
    }
    if (signal.aborted) return queue.release(database.db, claimed)
    const made = claimed.scheduled_attempts + 1
    const gone = result.status === 410
    const next = result.ok || gone ? null : nextAttemptAt(config.webhookRetryMs, made, jitter())
    const status = result.ok ? 'succeeded' : next === null ? 'failed' : 'pending'
    deliveryMetrics.record(result.ok ? 'succeeded' : status === 'failed' ? 'failed' : 'retrying')
    await queue.recordOutcome(database.db, claimed, {
      status,
      nextAttemptAt: next,
      attempt: {
        at: new Date(Date.now() - result.durationMs).toISOString(),
        response_status: result.status,
        duration_ms: result.durationMs,
        response_body: result.body,
        error: result.error,
      },
      succeeded: result.ok,
      disable: gone ? 'the receiver answered 410 Gone' : undefined,
      failingLimitMs: FAILING_LIMIT_MS,
    })
  }

  // Up (and again after a lost connection comes back): whatever became due meanwhile is claimed.
  const subscriber: Subscriber = { notify: wake, up: wake, down: () => undefined }
  const subscription =
    options.listen === false
      ? Promise.resolve(undefined)
      : database.listen({ [CHANNEL]: subscriber }).catch((error: unknown) => {
          log.error({ err: error }, 'webhook worker cannot listen; it polls')
          return undefined
        })
  wake()

  return {
    subscriber,
    async stop() {
      stopping = true
      clearTimeout(timer)
      await claiming
      const pending = [...inFlight.values()]
      const grace = new Promise<void>((resolve) => setTimeout(resolve, options.stopGraceMs ?? 5000).unref())
      await Promise.race([Promise.all(pending.map((p) => p.done)), grace])
      for (const p of inFlight.values()) p.abort.abort()
      await Promise.all([...inFlight.values()].map((p) => p.done))
      await (await subscription)?.close()
    },
  }
}
