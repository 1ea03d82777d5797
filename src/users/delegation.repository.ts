/** SQL for out-of-office delegations: at most one active row per user; expiry is tested in every query. */
import { sql, type Kysely } from 'kysely'
import { delegationActive } from '../access/approvers.ts'
import { byTenant } from '../db/joins.ts'
import type { DB } from '../db/schema.ts'

export interface DelegationRow {
  delegatee: { id: number; first_name: string; last_name: string; email: string }
  expected_return_date: string | null
}

/** The user's delegation in force now (not ended, not expired), with the delegatee as a person. */
export async function currentDelegation(db: Kysely<DB>, tenantId: number, userId: number) {
  const row = await db
    .selectFrom('delegations as d')
    .innerJoin('user_profiles as p', byTenant('p', 'd.delegatee_id', 'user_id'))
    .innerJoin('users as u', byTenant('u', 'd.delegatee_id'))
    .select([
      sql<
        DelegationRow['delegatee']
      >`json_build_object('id', p.id, 'first_name', p.first_name, 'last_name', p.last_name, 'email', u.email)`.as(
        'delegatee',
      ),
      sql<string | null>`to_char(d.expected_return_date, 'YYYY-MM-DD')`.as('expected_return_date'),
    ])
    .where('d.tenant_id', '=', tenantId)
    .where('d.user_id', '=', userId)
    .where(delegationActive('d'))
    .executeTakeFirst()
  return row as DelegationRow | undefined
}

/** Ends the user's delegation (if any, expired or not); returns whether one was in force. */
export async function endDelegation(db: Kysely<DB>, tenantId: number, userId: number): Promise<boolean> {
  const rows = await db
    .updateTable('delegations')
    .set({ active: false })
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', userId)
    .where('active', '=', true)
    // RETURNING sees the row as written (active false): whether it was in force is whether it had not expired.
    .returning(
      sql<boolean>`(expected_return_date is null
        or now() < (expected_return_date + 1)::timestamp at time zone 'UTC')`.as('in_force'),
    )
    .execute()
  return rows.some((r) => r.in_force)
}

/** Ends every delegation in force to `delegateeId` (a delegatee must be active: DECISIONS); returns the delegators' user ids. */
export async function endDelegationsTo(db: Kysely<DB>, tenantId: number, delegateeId: number): Promise<number[]> {
  const rows = await db
    .updateTable('delegations')
    .set({ active: false })
    .where('tenant_id', '=', tenantId)
    .where('delegatee_id', '=', delegateeId)
    .where(delegationActive('delegations'))
    .returning('user_id')
    .execute()
  return rows.map((r) => r.user_id)
}

export async function insertDelegation(
  db: Kysely<DB>,
  tenantId: number,
  userId: number,
  delegateeId: number,
  expectedReturnDate: string | null,
): Promise<void> {
  await db
    .insertInto('delegations')
    .values({
      tenant_id: tenantId,
      user_id: userId,
      delegatee_id: delegateeId,
      expected_return_date: expectedReturnDate,
    })
    .execute()
}

/** Whether the date is today or later in UTC (a delegation ending before today would be over already). */
export async function notPast(db: Kysely<DB>, date: string): Promise<boolean> {
  const row = await sql<{ ok: boolean }>`select ${date}::date >= (now() at time zone 'UTC')::date as ok`.execute(db)
  return row.rows[0]!.ok
}

/** The users whose delegation in force names `delegateeId`: whose approvals the delegatee decides now. */
export async function delegatorsOf(db: Kysely<DB>, tenantId: number, delegateeId: number) {
  const rows = await db
    .selectFrom('delegations as d')
    .innerJoin('user_profiles as p', byTenant('p', 'd.user_id', 'user_id'))
    .innerJoin('users as u', byTenant('u', 'd.user_id'))
    .select(['p.id', 'p.first_name', 'p.last_name', 'u.email'])
    .where('d.tenant_id', '=', tenantId)
    .where('d.delegatee_id', '=', delegateeId)
    .where(delegationActive('d'))
    .orderBy('p.id')
    .execute()
  return rows satisfies DelegationRow['delegatee'][]
}
