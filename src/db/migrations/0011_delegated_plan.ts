/**
 * The delegated part of a user's pending count (`pending_delegated_orders`, migration 0009) as PL/pgSQL with
 * one generic plan per session, instead of a SQL function (issue #22). A SQL function's body is parsed and
 * planned again at its first call in every statement that calls it: about 0.4 ms, the largest part of a users
 * page's cost whenever a delegatee is on the page. PL/pgSQL keeps the plan of its query for the session; by
 * default the plan cache plans it again for each call's values (a custom plan) as long as those plans look
 * cheaper than a generic one — for a small tenant they always do, so a PL/pgSQL version alone gained nothing —
 * hence `plan_cache_mode = force_generic_plan` on the function: planned once per session, then only run.
 * And no parallel plan: a generic plan does not know how few approvals a delegator has, and at a million
 * approvals it chose a parallel one, whose workers took 7–10 ms to start for a count of one row.
 * The same rule and the same result as before (access/approvers.ts); still a function, so the planner still
 * costs it as one call (no GIN scan of unknown size per row, no JIT for a users page).
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw(SCHEMA).execute(db)
}

const SCHEMA = `
CREATE OR REPLACE FUNCTION pending_delegated_orders(tenant integer, usr integer) RETURNS integer
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_generic_plan SET max_parallel_workers_per_gather = 0 AS $$
BEGIN
  RETURN (SELECT count(*)::int FROM request_approvals a
    JOIN purchase_requests r ON r.tenant_id = a.tenant_id AND r.id = a.request_id
    WHERE a.tenant_id = tenant AND a.status = 'pending' AND a.kind = 'order'
      AND a.candidates && array(SELECT dd.user_id FROM delegations dd WHERE dd.delegatee_id = usr AND dd.active
        AND (dd.expected_return_date IS NULL OR now() < (dd.expected_return_date + 1)::timestamp AT TIME ZONE 'UTC'))
      AND r.requester_id <> usr
      AND (NOT a.candidates @> array[usr] OR EXISTS (SELECT 1 FROM delegations dw WHERE dw.user_id = usr AND dw.active
        AND (dw.expected_return_date IS NULL OR now() < (dw.expected_return_date + 1)::timestamp AT TIME ZONE 'UTC'))));
END $$;
`
