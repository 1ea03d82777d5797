/**
 * Events and webhooks (DECISIONS.md "Events and webhooks").
 *
 * `events`: one row per committed write, written by the writing transaction itself. Its position is
 * (xid, seq): the writing transaction's id (`pg_current_xact_id()`) and a sequence number. A sequence alone
 * does not give commit order — a transaction can take number 7, commit after the one that took 8, and a
 * reader that had already passed 8 would skip 7 for ever. The feed therefore serves only events whose
 * transaction id is below the oldest transaction still running in this database (events/repository.ts), in
 * (xid, seq) order: an event can no longer appear before a position the feed has already served.
 *
 * `webhook_deliveries` rows are queued by the same statement that writes the event, for the endpoints that
 * are enabled and subscribed at that moment; a statement trigger wakes the delivery workers (NOTIFY
 * `webhooks_due`) only when a delivery became due now, so a write with no endpoint pays no notification.
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw(SCHEMA).execute(db)
}

const SCHEMA = `
CREATE SEQUENCE events_seq AS bigint;
CREATE TABLE events (
  tenant_id integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  seq bigint NOT NULL DEFAULT nextval('events_seq'),
  type text NOT NULL,
  object jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, xid, seq)
);
-- Retention deletes by age; a BRIN index costs next to nothing to keep on an append-only table.
CREATE INDEX events_created_at ON events USING brin (created_at);

CREATE TABLE webhook_endpoints (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tenant_id integer NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  url text NOT NULL,
  event_types text[] NOT NULL,
  description text NOT NULL DEFAULT '',
  enabled boolean NOT NULL DEFAULT true,
  secret text NOT NULL,
  previous_secret text,
  previous_secret_until timestamptz,
  -- Why it was switched off by the service (null: by a person, or enabled): read by the console later.
  disabled_reason text,
  disabled_at timestamptz,
  -- Since when every delivery has failed (null after a success); 5 days of that disables the endpoint.
  failing_since timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_tenant ON webhook_endpoints (tenant_id) WHERE enabled;

CREATE TABLE webhook_deliveries (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tenant_id integer NOT NULL,
  endpoint_id bigint NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  event_xid xid8 NOT NULL,
  event_seq bigint NOT NULL,
  event_type text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  -- Due time while pending; while an attempt is in flight, the end of its lease (a process that dies
  -- mid-attempt leaves it due again when the lease ends).
  next_attempt_at timestamptz,
  -- Attempts made on the schedule (manual retries are not counted), and which claim is in flight.
  scheduled_attempts integer NOT NULL DEFAULT 0,
  claim integer NOT NULL DEFAULT 0,
  attempts jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, id DESC);

CREATE FUNCTION notify_webhooks_due() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM queued WHERE status = 'pending' AND next_attempt_at <= now()) THEN PERFORM pg_notify('webhooks_due', ''); END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER webhook_deliveries_queued AFTER INSERT ON webhook_deliveries
  REFERENCING NEW TABLE AS queued FOR EACH STATEMENT EXECUTE FUNCTION notify_webhooks_due();
CREATE TRIGGER webhook_deliveries_due AFTER UPDATE ON webhook_deliveries
  REFERENCING NEW TABLE AS queued FOR EACH STATEMENT EXECUTE FUNCTION notify_webhooks_due();
`
