/**
 * Issue 30 ("authority read fresh where it is used").
 *
 * Tenant-local event numbers. An event's id used to spell its place in the feed, (xid, seq): two counters
 * of the whole database, so one tenant's ids showed the gaps of every other tenant's writes. The feed's order
 * and its horizon stay as migration 0007 made them; what changes is the name of a place. Each event gets `n`,
 * its number within its tenant (1, 2, 3 …), and its id spells `n`. Numbers are given in feed order by
 * `number_events(tenant)`, and only to events below the horizon — whose set can no longer change — so
 * every event numbered later has a higher (xid, seq) than every event numbered before, and `n` sorts exactly
 * as (xid, seq) does. The tenant's counter row is locked while numbering, so two passes never interleave.
 * The feed and the delivery worker number what they are about to serve; a write pays nothing.
 * `webhook_deliveries.event_n` keeps the number with the delivery (its event may pass retention first).
 *
 * Stale grants. Changing a user's role used to leave the old role's tenant-wide grant in place (a demoted
 * Administrator stayed a superuser). Only user creation writes tenant-wide grants, always of the profile's
 * role, so any other tenant-wide grant is such a leftover: removed here, once.
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw(SCHEMA).execute(db)
}

const SCHEMA = `
ALTER TABLE events ADD COLUMN n bigint;
CREATE UNIQUE INDEX events_tenant_n ON events (tenant_id, n);
CREATE INDEX events_unnumbered ON events (tenant_id, xid, seq) WHERE n IS NULL;
ALTER TABLE webhook_deliveries ADD COLUMN event_n bigint;

CREATE TABLE event_counters (
  tenant_id integer PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
  last bigint NOT NULL DEFAULT 0
);

-- Numbers the tenant's oldest unnumbered events below the horizon (events/repository.ts explains the
-- horizon), at most batch of them, in feed order; returns how many. A tenant with many unnumbered events
-- (the first read after this upgrade) is numbered over several calls, each short.
CREATE FUNCTION number_events(t integer, batch integer DEFAULT 10000) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  base bigint;
  horizon xid8;
  added bigint;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM events WHERE tenant_id = t AND n IS NULL) THEN RETURN 0; END IF;
  INSERT INTO event_counters (tenant_id) VALUES (t) ON CONFLICT (tenant_id) DO NOTHING;
  SELECT last INTO base FROM event_counters WHERE tenant_id = t FOR UPDATE;
  WITH s AS (SELECT pg_current_snapshot() AS snap)
  SELECT coalesce(
    (SELECT min(x) FROM pg_snapshot_xip((SELECT snap FROM s)) AS x
     WHERE NOT EXISTS (SELECT 1 FROM pg_stat_activity a
                       WHERE a.backend_xid = xid(x) AND a.datname <> current_database())),
    pg_snapshot_xmax((SELECT snap FROM s))) INTO horizon;
  WITH todo AS (
    SELECT xid, seq, row_number() OVER (ORDER BY xid, seq) AS k FROM events
    WHERE tenant_id = t AND n IS NULL AND xid < horizon
    ORDER BY xid, seq LIMIT batch
  ),
  numbered AS (
    UPDATE events e SET n = base + todo.k FROM todo
    WHERE e.tenant_id = t AND e.xid = todo.xid AND e.seq = todo.seq
    RETURNING e.xid, e.seq, e.n
  ),
  stamped AS (
    UPDATE webhook_deliveries d SET event_n = numbered.n FROM numbered
    WHERE d.tenant_id = t AND d.event_xid = numbered.xid AND d.event_seq = numbered.seq
  )
  SELECT count(*) INTO added FROM numbered;
  IF added > 0 THEN UPDATE event_counters SET last = base + added WHERE tenant_id = t; END IF;
  RETURN added;
END $$;

DELETE FROM role_grants g USING user_profiles up
WHERE g.location_id IS NULL AND up.tenant_id = g.tenant_id AND up.user_id = g.user_id AND g.role_id <> up.role_id;
`
