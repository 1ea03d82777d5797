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
 * Up to `limit` events after `after`, oldest first, of transactions that have all ended: only below the
 * snapshot's xmin is the set of events final, so nothing can later appear before what this returns.
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
      AND xid < pg_snapshot_xmin(pg_current_snapshot()) ${typeClause}
    ORDER BY xid, seq
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
