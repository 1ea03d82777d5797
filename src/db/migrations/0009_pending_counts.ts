/**
 * Kept counts of pending approvals (issue #22): per tenant, user and kind, how many pending approvals name
 * the user as a candidate without the user being the request's requester. Statement triggers on
 * `request_approvals` keep them (insert, update of anything — status, candidates, kind — and delete) from the
 * transition tables, so a bulk write costs one upsert per user touched. Each transaction adds its deltas to one
 * of 16 slots (its transaction id modulo 16), so concurrent decisions naming the same approver rarely wait on
 * one row; a count is the sum of the slots. What is not kept is what changes with time alone: delegations
 * (access/approvers.ts adds and removes those live, in every query).
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw(SCHEMA).execute(db)
}

/** Σ ±1 per (tenant, candidate, kind) over the rows of `changed` (tenant_id, request_id, kind, candidates, sign). */
const apply = (slot: string) => `
    INSERT INTO pending_counts AS c (tenant_id, user_id, kind, slot, n)
      SELECT ch.tenant_id, u.id, ch.kind, ${slot}, sum(ch.sign)::int
      FROM changed ch
      JOIN purchase_requests r ON r.tenant_id = ch.tenant_id AND r.id = ch.request_id
      CROSS JOIN LATERAL (SELECT DISTINCT x FROM unnest(ch.candidates) x WHERE x IS NOT NULL) u (id)
      WHERE u.id IS DISTINCT FROM r.requester_id
      GROUP BY ch.tenant_id, u.id, ch.kind
      HAVING sum(ch.sign) <> 0
      ORDER BY ch.tenant_id, u.id, ch.kind
    ON CONFLICT (tenant_id, user_id, kind, slot) DO UPDATE SET n = c.n + EXCLUDED.n`

const SCHEMA = `
CREATE TABLE pending_counts (
  tenant_id integer NOT NULL,
  user_id   integer NOT NULL,
  kind      varchar(10) NOT NULL,
  slot      smallint NOT NULL CHECK (slot BETWEEN 0 AND 15),
  n         integer NOT NULL,
  PRIMARY KEY (tenant_id, user_id, kind, slot)
);

CREATE FUNCTION pending_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH changed AS (SELECT tenant_id, request_id, kind, candidates, 1 AS sign FROM new_rows WHERE status = 'pending')
  ${apply('(txid_current() % 16)::smallint')};
  RETURN NULL;
END $$;

-- A slot may go below zero (its approvals were counted in another slot); the sum over slots never does.
CREATE FUNCTION pending_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH changed AS (SELECT tenant_id, request_id, kind, candidates, -1 AS sign FROM old_rows WHERE status = 'pending')
  ${apply('(txid_current() % 16)::smallint')};
  RETURN NULL;
END $$;

CREATE FUNCTION pending_counts_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH changed AS (
    SELECT tenant_id, request_id, kind, candidates, -1 AS sign FROM old_rows WHERE status = 'pending'
    UNION ALL
    SELECT tenant_id, request_id, kind, candidates, 1 AS sign FROM new_rows WHERE status = 'pending')
  ${apply('(txid_current() % 16)::smallint')};
  RETURN NULL;
END $$;

CREATE TRIGGER request_approvals_pending_inserted AFTER INSERT ON request_approvals
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pending_counts_inserted();
CREATE TRIGGER request_approvals_pending_updated AFTER UPDATE ON request_approvals
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pending_counts_updated();
CREATE TRIGGER request_approvals_pending_deleted AFTER DELETE ON request_approvals
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION pending_counts_deleted();

WITH changed AS (SELECT tenant_id, request_id, kind, candidates, 1 AS sign FROM request_approvals WHERE status = 'pending')
${apply('0::smallint')};
`
