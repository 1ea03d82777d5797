/** SQL of the events table (see migrations/0007_events.ts for why the feed reads as it does). */
import { sql, type Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'

export interface EventRow {
  /** The event's number within its tenant (migration 0012), as text. */
  n: string
  type: string
  object: unknown
  created_at: Date
}

/** The internal place of an event in the feed (transaction id, sequence number): never shown. */
export interface Position {
  xid: bigint
  seq: bigint
}

/** At most this many events are numbered by one statement (each call stays short). */
export const NUMBERING_BATCH = 10_000

/**
 * Numbers the tenant's events that have reached the feed's horizon and have no number yet, in feed order
 * (`number_events`, migration 0012), in batches until none is left or `budgetMs` has passed; call it before
 * reading by number. Whatever is left (only after an upgrade, for a tenant with many events) is numbered by
 * the next read, still in order: nothing is skipped, it only comes later. Returns how many it numbered.
 */
export async function numberEvents(db: Kysely<DB>, tenantId: number, budgetMs = 2000): Promise<number> {
  const started = Date.now()
  let total = 0
  for (;;) {
    const result = await sql<{ added: string | number }>`
      SELECT number_events(${tenantId}::integer, ${NUMBERING_BATCH}::integer) AS added`.execute(db)
    const added = Number(result.rows[0]?.added ?? 0)
    total += added
    if (added < NUMBERING_BATCH || Date.now() - started > budgetMs) return total
  }
}

/**
 * Writes the events and, in the same statement, queues a delivery of each to every endpoint of the tenant
 * that is enabled and subscribed to its type right now.
 */
export async function insertEvents(
  db: Kysely<DB>,
  tenantId: number,
  events: readonly { type: string; object: string }[],
): Promise<void> {
  if (events.length === 0) return
  const values = sql.join(events.map((e) => sql`(${tenantId}::integer, ${e.type}::text, ${e.object}::jsonb)`))
  await sql`
    WITH e AS (
      INSERT INTO events (tenant_id, type, object) VALUES ${values}
      RETURNING tenant_id, xid, seq, type
    )
    INSERT INTO webhook_deliveries (tenant_id, endpoint_id, event_xid, event_seq, event_type, next_attempt_at)
    SELECT e.tenant_id, w.id, e.xid, e.seq, e.type, now()
    FROM e JOIN webhook_endpoints w ON w.tenant_id = e.tenant_id AND w.enabled
    WHERE e.type = ANY (w.event_types) OR '*' = ANY (w.event_types)
       OR split_part(e.type, '.', 1) || '.*' = ANY (w.event_types)
  `.execute(db)
}

const COLUMNS = sql`n::text AS n, type, object, created_at`

/**
 * Up to `limit` numbered events after number `after`, oldest first. Only events below the horizon are numbered
 * (`numberEvents`), so nothing can later appear before what this returns. The horizon is the oldest
 * transaction still running in this database (PostgreSQL's own xmin is cluster-wide, and would let a long
 * transaction in any database of the server hold this feed back); `number_events` spells it out.
 */
export async function pageOfEvents(
  db: Kysely<DB>,
  tenantId: number,
  options: { after: bigint; type: string | undefined; limit: number },
): Promise<EventRow[]> {
  const { after, type, limit } = options
  const typeClause =
    type === undefined
      ? sql``
      : type.endsWith('.*')
        ? sql`AND starts_with(type, ${type.slice(0, -1)})`
        : sql`AND type = ${type}`
  const result = await sql<EventRow>`
    SELECT ${COLUMNS} FROM events
    WHERE tenant_id = ${tenantId} AND events.n > ${after.toString()}::bigint ${typeClause}
    ORDER BY events.n -- the column, not the text of the same name in COLUMNS
    LIMIT ${limit}
  `.execute(db)
  return result.rows
}

export async function findEvent(db: Kysely<DB>, tenantId: number, n: bigint): Promise<EventRow | undefined> {
  const result = await sql<EventRow>`
    SELECT ${COLUMNS} FROM events WHERE tenant_id = ${tenantId} AND n = ${n.toString()}::bigint
  `.execute(db)
  return result.rows[0]
}

/**
 * The number an id of the earlier form (evt_ + xid + seq, before migration 0012) stands for: that event's,
 * or if it is gone, the last numbered event before its place; 0 when there is none. A client that kept such a
 * cursor across the upgrade carries on where it was.
 */
export async function numberAtOrBefore(db: Kysely<DB>, tenantId: number, at: Position): Promise<bigint> {
  const result = await sql<{ n: string | null }>`
    SELECT max(n)::text AS n FROM events
    WHERE tenant_id = ${tenantId} AND n IS NOT NULL
      AND (xid, seq) <= (${at.xid.toString()}::xid8, ${at.seq.toString()}::bigint)
  `.execute(db)
  return BigInt(result.rows[0]?.n ?? 0)
}

/** The numbered event at an earlier-form place, if any. */
export async function findEventAt(db: Kysely<DB>, tenantId: number, at: Position): Promise<EventRow | undefined> {
  const result = await sql<EventRow>`
    SELECT ${COLUMNS} FROM events
    WHERE tenant_id = ${tenantId} AND xid = ${at.xid.toString()}::xid8 AND seq = ${at.seq.toString()}::bigint
      AND n IS NOT NULL
  `.execute(db)
  return result.rows[0]
}
