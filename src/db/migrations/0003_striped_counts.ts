/**
 * Row counts without a hot row: each tenant and table has up to 16 slots, a statement adds its delta to a
 * random one, and a count is their sum. Concurrent inserts into one tenant's table no longer queue on a
 * single row lock until commit; reading the total stays one index range scan (no table scan), exact.
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw(SCHEMA).execute(db)
}

const SCHEMA = `
ALTER TABLE row_counts DROP CONSTRAINT row_counts_pkey;
ALTER TABLE row_counts DROP CONSTRAINT IF EXISTS row_counts_n_check;
ALTER TABLE row_counts ADD COLUMN slot smallint NOT NULL DEFAULT 0 CHECK (slot BETWEEN 0 AND 15);
ALTER TABLE row_counts ADD PRIMARY KEY (tenant_id, table_name, slot);

CREATE OR REPLACE FUNCTION count_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO row_counts AS c (tenant_id, table_name, slot, n)
    SELECT tenant_id, TG_TABLE_NAME, floor(random() * 16)::smallint, count(*) FROM inserted GROUP BY tenant_id
    ON CONFLICT (tenant_id, table_name, slot) DO UPDATE SET n = c.n + EXCLUDED.n;
  RETURN NULL;
END $$;

-- A slot may go below zero (its rows were counted in another slot); the sum over slots never does.
CREATE OR REPLACE FUNCTION count_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO row_counts AS c (tenant_id, table_name, slot, n)
    SELECT tenant_id, TG_TABLE_NAME, floor(random() * 16)::smallint, -count(*) FROM deleted GROUP BY tenant_id
    ON CONFLICT (tenant_id, table_name, slot) DO UPDATE SET n = c.n + EXCLUDED.n;
  RETURN NULL;
END $$;
`
