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
  /** The event's tenant-local number (its id); null only when the event is gone (past retention). */
  event_n: string | null
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

/** A delivery whose event has its number (its id), or whose event is gone: one that can be sent. */
const READY = sql`(d.event_n IS NOT NULL OR NOT EXISTS (SELECT 1 FROM events e
  WHERE e.tenant_id = d.tenant_id AND e.xid = d.event_xid AND e.seq = d.event_seq))`

/**
 * Gives the events of due deliveries their numbers (migration 0012), so they can be sent with their ids. An
 * event not yet below the feed's horizon (an older transaction is still open) cannot be numbered yet: its
 * deliveries wait 100 ms rather than keep the worker spinning; rows another process holds are skipped.
 */
async function numberDueEvents(db: Kysely<DB>): Promise<void> {
  const due = sql`d.status = 'pending' AND d.next_attempt_at <= now() AND d.event_n IS NULL`
  const tenants = await sql<{ tenant_id: number }>`
    SELECT DISTINCT d.tenant_id FROM webhook_deliveries d WHERE ${due}`.execute(db)
  if (tenants.rows.length === 0) return
  for (const { tenant_id } of tenants.rows) await sql`SELECT number_events(${tenant_id}::integer)`.execute(db)
  await sql`
    UPDATE webhook_deliveries SET next_attempt_at = now() + interval '100 milliseconds'
    WHERE id IN (SELECT d.id FROM webhook_deliveries d WHERE ${due} AND NOT ${READY} FOR UPDATE SKIP LOCKED)`.execute(
    db,
  )
}

/**
 * Whether any delivery is pending and due, of any endpoint: when not, `claimDue` would number no event and
 * claim nothing. One look at the partial index, where the claim's first run in a process costs some 0.5 s of
 * the embedded engine's one connection (its plan, and the code paths it runs for the first time).
 */
export async function anyDue(db: Kysely<DB>): Promise<boolean> {
  const result = await sql`SELECT 1 FROM webhook_deliveries d
    WHERE d.status = 'pending' AND d.next_attempt_at <= now() LIMIT 1`.execute(db)
  return result.rows.length > 0
}

/**
 * Claims up to `total` due deliveries of enabled endpoints, at most `perEndpoint` of each — fewer for the
 * endpoints in `busy` (id → slots still free in this process), so one endpoint cannot take every slot.
 */
export async function claimDue(
  db: Kysely<DB>,
  options: { total: number; perEndpoint: number; busy: ReadonlyMap<number, number>; leaseMs: number },
): Promise<Claimed[]> {
  await numberDueEvents(db)
  const ids = [...options.busy.keys()]
  const free = ids.map((id) => options.busy.get(id)!)
  const result = await sql<Claimed>`
    WITH slots AS (SELECT * FROM unnest(${ids}::bigint[], ${free}::integer[]) AS s(endpoint_id, free)),
    claimed AS (
      SELECT d.id FROM webhook_endpoints w
      CROSS JOIN LATERAL (
        SELECT d.id FROM webhook_deliveries d
        WHERE d.endpoint_id = w.id AND d.status = 'pending' AND d.next_attempt_at <= now() AND ${READY}
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
      RETURNING d.id, d.claim, d.tenant_id, d.endpoint_id, d.event_xid, d.event_seq, d.event_n, d.scheduled_attempts
    )
    SELECT l.id, l.claim, l.tenant_id, l.endpoint_id, l.event_n::text AS event_n, l.scheduled_attempts,
           w.url, w.secret, w.previous_secret, w.previous_secret_until, e.type, e.object, e.created_at
    FROM leased l
    JOIN webhook_endpoints w ON w.id = l.endpoint_id
    LEFT JOIN events e ON e.tenant_id = l.tenant_id AND e.xid = l.event_xid AND e.seq = l.event_seq
  `.execute(db)
  return result.rows
}

export interface Outcome {
  claimed: Pick<Claimed, 'id' | 'claim' | 'endpoint_id'>
  status: 'pending' | 'succeeded' | 'failed'
  nextAttemptAt: Date | null
  attempt: WebhookAttempt
  /** What the endpoint learns: a success clears its failing streak; a failure starts or extends it. */
  succeeded: boolean
  /** The receiver answered 410 Gone: the endpoint is switched off now. */
  gone: boolean
}

export const GONE_REASON = 'the receiver answered 410 Gone'
export const FAILING_REASON = 'every delivery failed for 5 days'

/**
 * Writes the results of several attempts in one statement, each only if its claim is still the one that made
 * it, and what their endpoints learn, as if written one by one in the order given: a success clears the
 * failing streak, a failure starts it (or a new one after an earlier success of the batch); a 410 switches the
 * endpoint off, and so does a failure when the streak it extends is `failingLimitMs` old. An endpoint row is
 * written only when it changes (all successes and no streak: not at all). Returns the deliveries written and
 * the endpoints of the batch that are now off.
 */
export async function recordOutcomes(
  db: Kysely<DB>,
  outcomes: readonly Outcome[],
  failingLimitMs: number,
): Promise<{ written: number; disabled: number[] }> {
  const column = <T>(pick: (o: Outcome) => T) => outcomes.map(pick)
  const limit = sql`now() - make_interval(secs => ${failingLimitMs / 1000})`
  const result = await sql<{ written: number | string; disabled: (number | string)[] | null }>`
    WITH o AS (
      SELECT * FROM unnest(${column((o) => o.claimed.id)}::bigint[], ${column((o) => o.claimed.claim)}::integer[],
        ${column((o) => o.status)}::text[], ${column((o) => o.nextAttemptAt?.toISOString() ?? null)}::timestamptz[],
        ${column((o) => JSON.stringify([o.attempt]))}::jsonb[], ${column((o) => o.succeeded)}::boolean[],
        ${column((o) => o.gone)}::boolean[]
      ) WITH ORDINALITY AS o(id, claim, status, next_at, attempt, ok, gone, n)
    ),
    written AS (
      UPDATE webhook_deliveries d SET
        status = o.status, next_attempt_at = o.next_at, attempts = d.attempts || o.attempt,
        scheduled_attempts = d.scheduled_attempts + 1
      FROM o WHERE d.id = o.id AND d.claim = o.claim
      RETURNING d.id, d.endpoint_id
    ),
    learnt AS (
      SELECT w.endpoint_id, bool_or(o.ok) AS any_ok, bool_or(o.gone) AS any_gone,
             (array_agg(o.ok ORDER BY o.n DESC))[1] AS last_ok,
             (array_agg(o.ok ORDER BY o.n))[1] AS first_ok, (array_agg(o.gone ORDER BY o.n))[1] AS first_gone
      FROM written w JOIN o ON o.id = w.id GROUP BY w.endpoint_id
    ),
    judged AS (
      SELECT l.*, e.enabled AND NOT l.first_ok AND NOT l.first_gone AND coalesce(e.failing_since <= ${limit}, false)
             AS too_long
      FROM learnt l JOIN webhook_endpoints e ON e.id = l.endpoint_id
    ),
    changed AS (
      UPDATE webhook_endpoints e SET
        failing_since = CASE WHEN j.last_ok THEN NULL
                             WHEN NOT e.enabled THEN CASE WHEN j.any_ok THEN NULL ELSE e.failing_since END
                             WHEN j.any_ok THEN now()
                             ELSE coalesce(e.failing_since, now()) END,
        enabled = e.enabled AND NOT j.any_gone AND NOT j.too_long,
        disabled_reason = CASE WHEN NOT e.enabled THEN e.disabled_reason
                               WHEN j.too_long THEN ${FAILING_REASON}
                               WHEN j.any_gone THEN ${GONE_REASON}
                               ELSE e.disabled_reason END,
        disabled_at = CASE WHEN e.enabled AND (j.any_gone OR j.too_long) THEN now() ELSE e.disabled_at END
      FROM judged j
      WHERE e.id = j.endpoint_id AND (e.failing_since IS NOT NULL OR NOT j.last_ok OR (e.enabled AND j.any_gone))
      RETURNING e.id, e.enabled
    )
    SELECT (SELECT count(*) FROM written) AS written,
           (SELECT array_agg(id) FROM changed WHERE NOT enabled) AS disabled
  `.execute(db)
  const row = result.rows[0]
  return { written: Number(row?.written ?? 0), disabled: (row?.disabled ?? []).map(Number) }
}

/** Gives claimed deliveries back, due now (not started, or stopped before their attempt ended). */
export async function release(db: Kysely<DB>, claimed: readonly Pick<Claimed, 'id' | 'claim'>[]): Promise<void> {
  if (claimed.length === 0) return
  await sql`UPDATE webhook_deliveries d SET next_attempt_at = now()
            FROM unnest(${claimed.map((c) => c.id)}::bigint[], ${claimed.map((c) => c.claim)}::integer[]) AS r(id, claim)
            WHERE d.id = r.id AND d.claim = r.claim AND d.status = 'pending'`.execute(db)
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
