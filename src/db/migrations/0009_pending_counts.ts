/**
 * Kept counts of pending approvals (issue #22): per tenant, user and kind, how many pending approvals name
 * the user as a candidate without the user being the request's requester. Statement triggers on
 * `request_approvals` keep them (insert, update of anything — status, candidates, kind — and delete) from the
 * transition tables, so a bulk write costs one upsert per user touched. Each session adds its deltas to rows
 * of its own (slot = its backend's process id), so two transactions never write the same count row: they
 * never wait on each other, and cannot deadlock — with shared slots, two decisions taking the same approvers
 * in opposite order over two statements (an approval, then the next step's) could. A count is the sum of its
 * rows; housekeeping folds the rows of past sessions into slot 0 (db/maintenance.ts, skipping rows a
 * session holds). What is not kept is what changes with time alone: delegations
 * (access/approvers.ts adds and removes those live, in every query).
 *
 * Beside them, per tenant and request location, the pending approvals of every kind: the approvals inbox's
 * total for the locations where the caller sees everything (approvals/repository.ts). Both assume what the
 * service guarantees: a request's requester and location do not change while it has a pending approval
 * (a request is edited only as a draft, and a draft has none).
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

/** Σ ±1 per (tenant, location of the request) over the rows of `changed`: every kind, every candidate. */
const applyLocations = (slot: string) => `
    INSERT INTO pending_location_counts AS c (tenant_id, location_id, slot, n)
      SELECT ch.tenant_id, r.location_id, ${slot}, sum(ch.sign)::int
      FROM changed ch
      JOIN purchase_requests r ON r.tenant_id = ch.tenant_id AND r.id = ch.request_id
      GROUP BY ch.tenant_id, r.location_id
      HAVING sum(ch.sign) <> 0
      ORDER BY ch.tenant_id, r.location_id
    ON CONFLICT (tenant_id, location_id, slot) DO UPDATE SET n = c.n + EXCLUDED.n`

const SLOT = 'pg_backend_pid()'
/** Both upserts for the rows the query `changed` gives (tenant_id, request_id, kind, candidates, sign). */
const both = (changed: string, slot = SLOT) => `
  WITH changed AS (${changed}) ${apply(slot)};
  WITH changed AS (${changed}) ${applyLocations(slot)};`

const SCHEMA = `
CREATE TABLE pending_counts (
  tenant_id integer NOT NULL,
  user_id   integer NOT NULL,
  kind      varchar(10) NOT NULL,
  slot      integer NOT NULL,
  n         integer NOT NULL,
  PRIMARY KEY (tenant_id, user_id, kind, slot)
);
CREATE TABLE pending_location_counts (
  tenant_id   integer NOT NULL,
  location_id integer NOT NULL,
  slot        integer NOT NULL,
  n           integer NOT NULL,
  PRIMARY KEY (tenant_id, location_id, slot)
);
-- The inbox page in created_at order walks this instead of sorting every pending approval.
CREATE INDEX request_approvals_pending_created ON request_approvals (tenant_id, created_at, id) WHERE status = 'pending';

-- The part of a user's count that comes through delegation (access/approvers.ts): the pending order approvals
-- of those whose delegation to the user is in force now (one hop), not the user's own requests, and not
-- those the user counts as a candidate already (a candidate who is not away). A function, so that the
-- planner costs it as one call rather than as a scan of every pending approval (which, on a page of users,
-- made it compile the statement with JIT at every request).
CREATE FUNCTION pending_delegated_orders(tenant integer, usr integer) RETURNS integer
LANGUAGE sql STABLE AS $$
  SELECT count(*)::int FROM request_approvals a
  JOIN purchase_requests r ON r.tenant_id = a.tenant_id AND r.id = a.request_id
  WHERE a.tenant_id = tenant AND a.status = 'pending' AND a.kind = 'order'
    AND a.candidates && array(SELECT dd.user_id FROM delegations dd WHERE dd.delegatee_id = usr AND dd.active
      AND (dd.expected_return_date IS NULL OR now() < (dd.expected_return_date + 1)::timestamp AT TIME ZONE 'UTC'))
    AND r.requester_id <> usr
    AND (NOT a.candidates @> array[usr] OR EXISTS (SELECT 1 FROM delegations dw WHERE dw.user_id = usr AND dw.active
      AND (dw.expected_return_date IS NULL OR now() < (dw.expected_return_date + 1)::timestamp AT TIME ZONE 'UTC')))
$$;

CREATE FUNCTION pending_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  ${both(`SELECT tenant_id, request_id, kind, candidates, 1 AS sign FROM new_rows WHERE status = 'pending'`)}
  RETURN NULL;
END $$;

-- A slot may go below zero (its approvals were counted in another slot); the sum over slots never does.
CREATE FUNCTION pending_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  ${both(`SELECT tenant_id, request_id, kind, candidates, -1 AS sign FROM old_rows WHERE status = 'pending'`)}
  RETURN NULL;
END $$;

CREATE FUNCTION pending_counts_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  ${both(`SELECT tenant_id, request_id, kind, candidates, -1 AS sign FROM old_rows WHERE status = 'pending'
    UNION ALL SELECT tenant_id, request_id, kind, candidates, 1 AS sign FROM new_rows WHERE status = 'pending'`)}
  RETURN NULL;
END $$;

CREATE TRIGGER request_approvals_pending_inserted AFTER INSERT ON request_approvals
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pending_counts_inserted();
CREATE TRIGGER request_approvals_pending_updated AFTER UPDATE ON request_approvals
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pending_counts_updated();
CREATE TRIGGER request_approvals_pending_deleted AFTER DELETE ON request_approvals
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION pending_counts_deleted();

${both(`SELECT tenant_id, request_id, kind, candidates, 1 AS sign FROM request_approvals WHERE status = 'pending'`, '0')}
`
