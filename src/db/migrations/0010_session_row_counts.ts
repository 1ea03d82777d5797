/**
 * Row counts by session, as the pending counts are (migration 0009): each session adds its deltas to rows of
 * its own (slot = its backend's process id) instead of one of 16 shared slots picked at random. With shared
 * slots, two writes to one tenant's table met on the same row one time in 16, and the second then waited for
 * the first to commit — however long that took; a transaction counting two tables could even deadlock with
 * one counting them in the other order. Now no two transactions ever write the same count row. A count is
 * still the sum of its rows; housekeeping folds the rows of past sessions into slot 0 (db/maintenance.ts).
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw(SCHEMA).execute(db)
}

const SCHEMA = `
ALTER TABLE row_counts DROP CONSTRAINT IF EXISTS row_counts_slot_check;
ALTER TABLE row_counts ALTER COLUMN slot TYPE integer;

CREATE OR REPLACE FUNCTION count_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO row_counts AS c (tenant_id, table_name, slot, n)
    SELECT tenant_id, TG_TABLE_NAME, pg_backend_pid(), count(*) FROM inserted GROUP BY tenant_id ORDER BY tenant_id
    ON CONFLICT (tenant_id, table_name, slot) DO UPDATE SET n = c.n + EXCLUDED.n;
  RETURN NULL;
END $$;

-- A row may go below zero (its rows were counted in another session's); the sum over rows never does.
CREATE OR REPLACE FUNCTION count_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO row_counts AS c (tenant_id, table_name, slot, n)
    SELECT tenant_id, TG_TABLE_NAME, pg_backend_pid(), -count(*) FROM deleted GROUP BY tenant_id ORDER BY tenant_id
    ON CONFLICT (tenant_id, table_name, slot) DO UPDATE SET n = c.n + EXCLUDED.n;
  RETURN NULL;
END $$;
`
