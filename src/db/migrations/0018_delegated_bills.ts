/**
 * The delegated part of a user's pending count for any kind (`pending_delegated_kind`): the bill approvals of
 * those whose delegation to the user is in force now count for the delegatee as their order approvals do
 * (`pending_delegated_orders`, migrations 0009, 0011 and 0013) — the same rule, the same plan settings (one
 * generic plan per session, no parallel workers), with the kind as a parameter. Before it,
 * `pending_approvals_count.bill` counted only the user's own kept count, so a delegatee who could see and
 * decide an away colleague's bill approvals counted none of them.
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw(SCHEMA).execute(db)
}

const SCHEMA = `
CREATE FUNCTION pending_delegated_kind(tenant integer, usr integer, approval_kind varchar) RETURNS integer
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_generic_plan SET max_parallel_workers_per_gather = 0 AS $$
BEGIN
  RETURN (SELECT count(*)::int FROM request_approvals a
    WHERE a.tenant_id = tenant AND a.status = 'pending' AND a.kind = approval_kind
      AND a.candidates && array(SELECT dd.user_id FROM delegations dd WHERE dd.delegatee_id = usr AND dd.active
        AND (dd.expected_return_date IS NULL OR now() < (dd.expected_return_date + 1)::timestamp AT TIME ZONE 'UTC'))
      AND a.submitter_id <> usr
      AND (NOT a.candidates @> array[usr] OR EXISTS (SELECT 1 FROM delegations dw WHERE dw.user_id = usr AND dw.active
        AND (dw.expected_return_date IS NULL OR now() < (dw.expected_return_date + 1)::timestamp AT TIME ZONE 'UTC'))));
END $$;
`
