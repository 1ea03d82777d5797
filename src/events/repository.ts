/** SQL of the events table (see migrations/0007_events.ts for why the feed reads as it does). */
import { sql, type Kysely } from 'kysely'
import type { DB } from '../db/schema.ts'

export interface EventRow {
  xid: string
  seq: number
  type: string
  object: unknown
  created_at: Date
}

/** The place of an event in the feed. */
export interface Position {
  xid: bigint
  seq: bigint
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

const COLUMNS = sql`xid::text AS xid, seq, type, object, created_at`

/**
 * The feed's horizon: every transaction with a lower id has ended, as far as this database is concerned.
 * It is the oldest transaction still running in the statement's snapshot, leaving out those positively seen
 * running in another database (they cannot write this one's events): PostgreSQL's own xmin is cluster-wide,
 * and would let a long transaction in any database of the server hold this feed back. A running transaction
 * that pg_stat_activity does not show (another role's, without pg_read_all_stats; or one that ended since)
 * counts as this database's, so the horizon is never too high. No transaction running: the snapshot's xmax.
 */
const HORIZON = sql`(
  WITH s AS (SELECT pg_current_snapshot() AS snap)
  SELECT coalesce(
    (SELECT min(x) FROM pg_snapshot_xip((SELECT snap FROM s)) AS x
     WHERE NOT EXISTS (SELECT 1 FROM pg_stat_activity a
                       WHERE a.backend_xid = xid(x) AND a.datname <> current_database())),
    pg_snapshot_xmax((SELECT snap FROM s))))`

/**
 * Up to `limit` events after `after`, oldest first, of transactions that have all ended: only below the
 * horizon is the set of events final, so nothing can later appear before what this returns.
 */
export async function pageOfEvents(
  db: Kysely<DB>,
  tenantId: number,
  options: { after: Position | undefined; type: string | undefined; limit: number },
): Promise<EventRow[]> {
  const { after, type, limit } = options
  const afterClause =
    after === undefined ? sql`` : sql`AND (xid, seq) > (${after.xid.toString()}::xid8, ${after.seq.toString()}::bigint)`
  const typeClause =
    type === undefined
      ? sql``
      : type.endsWith('.*')
        ? sql`AND starts_with(type, ${type.slice(0, -1)})`
        : sql`AND type = ${type}`
  const result = await sql<EventRow>`
    SELECT ${COLUMNS} FROM events
    WHERE tenant_id = ${tenantId} ${afterClause}
      AND xid < ${HORIZON} ${typeClause}
    ORDER BY events.xid, events.seq
    LIMIT ${limit}
  `.execute(db)
  return result.rows
}

export async function findEvent(db: Kysely<DB>, tenantId: number, at: Position): Promise<EventRow | undefined> {
  const result = await sql<EventRow>`
    SELECT ${COLUMNS} FROM events
    WHERE tenant_id = ${tenantId} AND xid = ${at.xid.toString()}::xid8 AND seq = ${at.seq.toString()}::bigint
  `.execute(db)
  return result.rows[0]
}
