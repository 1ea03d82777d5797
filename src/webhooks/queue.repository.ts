/**
 * SQL of the delivery queue, shared safely by every process: a claim takes due deliveries with
 * `FOR UPDATE SKIP LOCKED` (two processes never take the same row) and leases them by moving
 * `next_attempt_at` to the end of the lease, so a process that dies mid-attempt leaves them due again.
 * Each result is written only by the claim that made it (`claim` matches).
 */
import { sql, type Kysely } from 'kysely'
import type { DB, WebhookAttempt } from '../db/schema.ts'

export interface Claimed {
  id: number
  claim: number
  tenant_id: number
  endpoint_id: number
  xid: string
  event_seq: number
  scheduled_attempts: number
  url: string
  secret: string
  previous_secret: string | null
  previous_secret_until: Date | null
  /** Null when the event is gone (past retention). */
  type: string | null
  object: unknown
  created_at: Date | null
}

/**
 * Claims up to `total` due deliveries of enabled endpoints, at most `perEndpoint` of each — fewer for the
 * endpoints in `busy` (id → slots still free in this process), so one endpoint cannot take every slot.
 */
export async function claimDue(
  db: Kysely<DB>,
  options: { total: number; perEndpoint: number; busy: ReadonlyMap<number, number>; leaseMs: number },
): Promise<Claimed[]> {
  const ids = [...options.busy.keys()]
  const free = ids.map((id) => options.busy.get(id)!)
  const result = await sql<Claimed>`
    WITH slots AS (SELECT * FROM unnest(${ids}::bigint[], ${free}::integer[]) AS s(endpoint_id, free)),
    claimed AS (
      SELECT d.id FROM webhook_endpoints w
      CROSS JOIN LATERAL (
        SELECT d.id FROM webhook_deliveries d
        WHERE d.endpoint_id = w.id AND d.status = 'pending' AND d.next_attempt_at <= now()
        ORDER BY d.next_attempt_at
        LIMIT coalesce((SELECT free FROM slots WHERE slots.endpoint_id = w.id), ${options.perEndpoint})
        FOR UPDATE SKIP LOCKED
      ) d
      WHERE w.enabled
      LIMIT ${options.total}
    ),
    leased AS (
      UPDATE webhook_deliveries d
      SET next_attempt_at = now() + make_interval(secs => ${options.leaseMs / 1000}), claim = d.claim + 1
      FROM claimed WHERE d.id = claimed.id
      RETURNING d.id, d.claim, d.tenant_id, d.endpoint_id, d.event_xid, d.event_seq, d.scheduled_attempts
    )
    SELECT l.id, l.claim, l.tenant_id, l.endpoint_id, l.event_xid::text AS xid, l.event_seq, l.scheduled_attempts,
           w.url, w.secret, w.previous_secret, w.previous_secret_until, e.type, e.object, e.created_at
    FROM leased l
    JOIN webhook_endpoints w ON w.id = l.endpoint_id
    LEFT JOIN events e ON e.tenant_id = l.tenant_id AND e.xid = l.event_xid AND e.seq = l.event_seq
  `.execute(db)
  return result.rows
}

export interface Outcome {
  status: 'pending' | 'succeeded' | 'failed'
  nextAttemptAt: Date | null
  attempt: WebhookAttempt
  /** What the endpoint learns: a success clears its failing streak; a failure starts or extends it. */
  succeeded: boolean
  /** Set: the endpoint is switched off now, for this reason. */
  disable: string | undefined
  /** A failing streak at least this old switches the endpoint off. */
  failingLimitMs: number
}

/** Writes an attempt's result, if the claim is still this one; returns whether it was written. */
export async function recordOutcome(db: Kysely<DB>, claimed: Claimed, outcome: Outcome): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const written = await sql`
      UPDATE webhook_deliveries SET
        status = ${outcome.status}, next_attempt_at = ${outcome.nextAttemptAt},
        attempts = attempts || ${JSON.stringify([outcome.attempt])}::jsonb,
        scheduled_attempts = scheduled_attempts + 1
      WHERE id = ${claimed.id} AND claim = ${claimed.claim}`.execute(tx)
    if (Number(written.numAffectedRows ?? 0) === 0) return false
    if (outcome.succeeded) {
      await sql`UPDATE webhook_endpoints SET failing_since = NULL
                WHERE id = ${claimed.endpoint_id} AND failing_since IS NOT NULL`.execute(tx)
      return true
    }
    const limit = sql`now() - make_interval(secs => ${outcome.failingLimitMs / 1000})`
    await sql`
      UPDATE webhook_endpoints SET
        failing_since = coalesce(failing_since, now()),
        enabled = CASE WHEN ${outcome.disable ?? null}::text IS NOT NULL OR failing_since <= ${limit}
                       THEN false ELSE enabled END,
        disabled_reason = CASE
          WHEN ${outcome.disable ?? null}::text IS NOT NULL THEN ${outcome.disable ?? null}::text
          WHEN failing_since <= ${limit} THEN 'every delivery failed for 5 days'
          ELSE disabled_reason END,
        disabled_at = CASE WHEN ${outcome.disable ?? null}::text IS NOT NULL OR failing_since <= ${limit}
                           THEN now() ELSE disabled_at END
      WHERE id = ${claimed.endpoint_id} AND enabled`.execute(tx)
    return true
  })
}

/** Gives a claimed delivery back, due now (shutdown before its attempt ended). */
export async function release(db: Kysely<DB>, claimed: Claimed): Promise<void> {
  await sql`UPDATE webhook_deliveries SET next_attempt_at = now()
            WHERE id = ${claimed.id} AND claim = ${claimed.claim} AND status = 'pending'`.execute(db)
}

const DUE = sql`FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id AND w.enabled
                WHERE d.status = 'pending'`

/** When the next delivery of an enabled endpoint is due (null: none pending). */
export async function nextDueAt(db: Kysely<DB>): Promise<Date | null> {
  const result = await sql<{ at: Date | null }>`SELECT min(d.next_attempt_at) AS at ${DUE}`.execute(db)
  return result.rows[0]?.at ?? null
}

/** Seconds the oldest due (not in-flight) delivery has waited; 0 when none is due. */
export async function oldestDueAgeSeconds(db: Kysely<DB>): Promise<number> {
  const result = await sql<{ age: number | string | null }>`
    SELECT extract(epoch FROM now() - min(d.next_attempt_at))::float8 AS age ${DUE} AND d.next_attempt_at <= now()`.execute(
    db,
  )
  return Math.max(0, Number(result.rows[0]?.age ?? 0))
}
