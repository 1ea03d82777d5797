/**
 * One claimed delivery sent, and what its result means: the event as the feed has it, signed with the
 * endpoint's secret (and the previous one while a rotation's overlap lasts), one attempt (delivery.ts), then
 * the outcome to write — succeeded; pending with the next attempt's time on the retry schedule, with jitter;
 * failed once the schedule is spent; a 410 switches the endpoint off. The worker (worker.service.ts) decides
 * when to send and writes the outcomes.
 */
import type { Config } from '../config.ts'
import { eventId, toEvent } from '../events/service.ts'
import { attempt, type AttemptResult, type Connections } from './delivery.ts'
import type { Policy } from './destinations.ts'
import type * as queue from './queue.repository.ts'
import { signedHeaders } from './signing.ts'

export interface SendSettings {
  policy: Policy
  timeoutMs: number
  /** Waits after the first, second, … failed attempt (WEBHOOK_RETRY_SCHEDULE). */
  retryMs: readonly number[]
  /** Picks the jitter factor applied to a wait. */
  jitter: () => number
}

export function sendSettings(config: Readonly<Config>, jitter: () => number): SendSettings {
  return {
    policy: { allowHttp: config.WEBHOOK_ALLOW_HTTP, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS },
    timeoutMs: config.webhookTimeoutMs,
    retryMs: config.webhookRetryMs,
    jitter,
  }
}

/** When the next attempt is due after attempt number `made` failed, or null when the schedule is spent. */
export function nextAttemptAt(schedule: readonly number[], made: number, jitter: number, now = Date.now()) {
  const wait = schedule[made - 1]
  return wait === undefined ? null : new Date(now + Math.round(wait * jitter))
}

/** Sends `claimed` once; its outcome, or null when `signal` stopped the attempt (the delivery is to be given back). */
export async function sendClaimed(
  claimed: queue.Claimed,
  settings: SendSettings,
  transport: { signal: AbortSignal; connections: Connections },
): Promise<queue.Outcome | null> {
  let result: AttemptResult
  if (claimed.type === null || claimed.created_at === null || claimed.event_n === null) {
    result = { ok: false, status: null, durationMs: 0, body: '', error: 'the event is past its retention' }
  } else {
    const id = eventId(claimed.event_n)
    const body = JSON.stringify(
      toEvent({
        n: claimed.event_n,
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
      settings.policy,
      settings.timeoutMs,
      { signal: transport.signal, connections: transport.connections, scope: String(claimed.endpoint_id) },
    )
  }
  if (transport.signal.aborted) return null
  const gone = result.status === 410
  const next =
    result.ok || gone ? null : nextAttemptAt(settings.retryMs, claimed.scheduled_attempts + 1, settings.jitter())
  return {
    claimed,
    status: result.ok ? 'succeeded' : next === null ? 'failed' : 'pending',
    nextAttemptAt: next,
    attempt: {
      at: new Date(Date.now() - result.durationMs).toISOString(),
      response_status: result.status,
      duration_ms: result.durationMs,
      response_body: result.body,
      error: result.error,
    },
    succeeded: result.ok,
    gone,
  }
}
