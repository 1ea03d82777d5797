/**
 * SQL for budgets: each read with its figures — the sums by stage of the kept ledger totals it matches
 * (location, department, account: null matches any; budget date within its period) — and its entries.
 * Every query is scoped to one tenant.
 */
import { sql, type Expression, type Kysely, type SqlBool } from 'kysely'
import { listSql } from '../db/list.ts'
import type { DB } from '../db/schema.ts'
import type { BudgetAction } from '../ledger/tables.ts'
import { BudgetListQuery, EntryListQuery } from './schema.ts'

/** The figures of budget `b` from the kept totals (one index range scan over its period). */
const figures = sql<{ pending: string; committed: string; spent: string }>`(
  SELECT json_build_object(
    'pending', coalesce(sum(t.amount) FILTER (WHERE t.stage = 'pending'), 0)::text,
    'committed', coalesce(sum(t.amount) FILTER (WHERE t.stage = 'committed'), 0)::text,
    'spent', coalesce(sum(t.amount) FILTER (WHERE t.stage = 'spent'), 0)::text)
    FROM ledger_totals t
   WHERE t.tenant_id = b.tenant_id AND t.budget_date BETWEEN b.period_start AND b.period_end
     AND (b.location_id IS NULL OR t.location_id = b.location_id)
     AND (b.department_id IS NULL OR t.department_id = b.department_id)
     AND (b.account_id IS NULL OR t.account_id = b.account_id))`

const selectBudgets = (db: Kysely<DB>) =>
  db
    .selectFrom('budgets as b')
    .select([
      'b.id',
      'b.tenant_id',
      'b.name',
      'b.location_id',
      'b.department_id',
      'b.account_id',
      'b.action',
      'b.owner_id',
      'b.active',
      'b.updated_at',
      sql<string>`to_char(b.period_start, 'YYYY-MM-DD')`.as('period_start'),
      sql<string>`to_char(b.period_end, 'YYYY-MM-DD')`.as('period_end'),
      sql<string>`b.amount::text`.as('amount'),
      sql<
        number | null
      >`(SELECT p.id FROM user_profiles p WHERE p.tenant_id = b.tenant_id AND p.user_id = b.owner_id)`.as(
        'owner_profile',
      ),
      figures.as('figures'),
    ])
export type BudgetRow = Awaited<ReturnType<ReturnType<typeof selectBudgets>['executeTakeFirstOrThrow']>>

/**
 * Who reads a budget (scope values: the user id, the locations where they may read, whether they read budgets
 * of every location): its owner, and readers at its location.
 */
const readable = (v: readonly unknown[]): Expression<SqlBool> =>
  sql<boolean>`(b.owner_id = ${v[0]} OR b.location_id = ANY (${v[1]}::integer[]) OR (b.location_id IS NULL AND ${v[2]}::boolean))`

export const pageOfBudgets = listSql(BudgetListQuery, {
  select: selectBudgets,
  tenant: 'b.tenant_id',
  id: 'b.id',
  order: { name: 'b.name', period_start: 'b.period_start' },
  search: ['b.name'],
  filters: { location: 'b.location_id', active: 'b.active', action: 'b.action' },
  scope: readable,
})

export const findBudget = (db: Kysely<DB>, tenantId: number, id: number, lock = false) => {
  let q = selectBudgets(db).where('b.tenant_id', '=', tenantId).where('b.id', '=', id)
  if (lock) q = q.forUpdate('b')
  return q.executeTakeFirst()
}

export interface BudgetValues {
  name: string
  location_id: number | null
  department_id: number | null
  account_id: number | null
  period_start: string
  period_end: string
  amount: string
  action: BudgetAction
  owner_id: number | null
  active: boolean
}

export const insertBudget = async (db: Kysely<DB>, tenantId: number, v: BudgetValues) =>
  (
    await db
      .insertInto('budgets')
      .values({ tenant_id: tenantId, ...v })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id

export const updateBudget = (db: Kysely<DB>, tenantId: number, id: number, v: BudgetValues) =>
  db
    .updateTable('budgets')
    .set({ ...v, updated_at: new Date() })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute()

export const deleteBudget = (db: Kysely<DB>, tenantId: number, id: number) =>
  db.deleteFrom('budgets').where('tenant_id', '=', tenantId).where('id', '=', id).execute()

/** What a budget may refer to: the location, the department (and its location), the account, the owner. */
export async function references(
  db: Kysely<DB>,
  tenantId: number,
  v: { location: number | null; department: number | null; account: number | null },
) {
  const [location, department, account] = await Promise.all([
    v.location === null
      ? undefined
      : db
          .selectFrom('locations')
          .select('id')
          .where('tenant_id', '=', tenantId)
          .where('id', '=', v.location)
          .executeTakeFirst(),
    v.department === null
      ? undefined
      : db
          .selectFrom('departments')
          .select(['id', 'location_id'])
          .where('tenant_id', '=', tenantId)
          .where('id', '=', v.department)
          .executeTakeFirst(),
    v.account === null
      ? undefined
      : db
          .selectFrom('accounts')
          .select('id')
          .where('tenant_id', '=', tenantId)
          .where('id', '=', v.account)
          .executeTakeFirst(),
  ])
  return { location, department, account }
}

/**
 * The active budgets whose period overlaps [from, to], locked (`SELECT … FOR UPDATE`, in id order) when `lock`:
 * two documents checked against one budget at the same instant take turns, the second sees the first's entries.
 */
export function activeBudgets(db: Kysely<DB>, tenantId: number, from: string, to: string, locations: number[]) {
  return selectBudgets(db)
    .where('b.tenant_id', '=', tenantId)
    .where('b.active', '=', true)
    .where(sql<boolean>`b.period_start <= ${to}::date AND b.period_end >= ${from}::date`)
    .where((eb) => eb.or([eb('b.location_id', 'is', null), eb('b.location_id', 'in', locations)]))
    .orderBy('b.id')
    .execute()
}

/** Locks the budgets (in id order) and reads them again, figures as of now. */
export async function lockBudgets(db: Kysely<DB>, tenantId: number, ids: number[]) {
  if (ids.length === 0) return []
  await db
    .selectFrom('budgets')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', ids)
    .orderBy('id')
    .forUpdate()
    .execute()
  return selectBudgets(db).where('b.tenant_id', '=', tenantId).where('b.id', 'in', ids).orderBy('b.id').execute()
}

const selectEntries = (db: Kysely<DB>) =>
  db
    .selectFrom('ledger_entries as e')
    .select([
      sql<number>`e.id::integer`.as('id'),
      'e.tenant_id',
      'e.created_at',
      'e.stage',
      sql<string>`e.amount::text`.as('amount'),
      'e.currency',
      sql<string>`e.original_amount::text`.as('original_amount'),
      sql<string>`e.rate::text`.as('rate'),
      'e.document_type',
      'e.document_id',
      'e.document_number',
      'e.line_id',
      'e.location_id',
      'e.department_id',
      'e.account_id',
      sql<string>`to_char(e.budget_date, 'YYYY-MM-DD')`.as('budget_date'),
      'e.reason',
    ])
export type EntryRow = Awaited<ReturnType<ReturnType<typeof selectEntries>['executeTakeFirstOrThrow']>>

/** The entries a budget matches (scope values: location, department, account — null: any —, start, end). */
export const pageOfEntries = listSql(EntryListQuery, {
  select: selectEntries,
  tenant: 'e.tenant_id',
  id: 'e.id',
  order: {},
  search: [],
  filters: { stage: 'e.stage' },
  scope: (v) =>
    sql<boolean>`((${v[0]}::integer IS NULL OR e.location_id = ${v[0]}::integer)
      AND (${v[1]}::integer IS NULL OR e.department_id = ${v[1]}::integer)
      AND (${v[2]}::integer IS NULL OR e.account_id = ${v[2]}::integer)
      AND e.budget_date BETWEEN ${v[3]}::date AND ${v[4]}::date)`,
})

/** A user id of the tenant by profile id (and whether active); and the delegatee of an away user. */
export const userOfProfile = (db: Kysely<DB>, tenantId: number, profileId: number) =>
  db
    .selectFrom('user_profiles as p')
    .innerJoin('users as u', (j) => j.onRef('u.tenant_id', '=', 'p.tenant_id').onRef('u.id', '=', 'p.user_id'))
    .select(['u.id', 'u.is_active'])
    .where('p.tenant_id', '=', tenantId)
    .where('p.id', '=', profileId)
    .executeTakeFirst()

export const activeUser = async (db: Kysely<DB>, tenantId: number, userId: number) =>
  (
    await db
      .selectFrom('users')
      .select('is_active')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', userId)
      .executeTakeFirst()
  )?.is_active === true

/** The user's delegatee while their delegation is active (DECISIONS: until the end of expected_return_date, UTC). */
export const activeDelegatee = async (db: Kysely<DB>, tenantId: number, userId: number) =>
  (
    await sql<{ delegatee_id: number }>`
      SELECT d.delegatee_id FROM delegations d JOIN users u ON u.tenant_id = d.tenant_id AND u.id = d.delegatee_id
       WHERE d.tenant_id = ${tenantId} AND d.user_id = ${userId} AND d.active AND u.is_active
         AND (d.expected_return_date IS NULL OR d.expected_return_date >= (now() AT TIME ZONE 'UTC')::date)
       LIMIT 1`.execute(db)
  ).rows[0]?.delegatee_id

/** The warnings the last check of a document found (none: []). */
export const documentWarnings = async (db: Kysely<DB>, tenantId: number, type: string, ids: readonly number[]) => {
  if (ids.length === 0) return new Map<number, unknown>()
  const rows = await db
    .selectFrom('budget_warnings')
    .select(['id', 'warnings'])
    .where('tenant_id', '=', tenantId)
    .where('document_type', '=', type)
    .where('id', 'in', [...ids])
    .execute()
  return new Map(rows.map((r) => [r.id, r.warnings]))
}

export const setWarnings = (db: Kysely<DB>, tenantId: number, type: string, id: number, warnings: unknown[]) =>
  db
    .insertInto('budget_warnings')
    .values({ tenant_id: tenantId, document_type: type, id, warnings: JSON.stringify(warnings) })
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'document_type', 'id']).doUpdateSet({ warnings: JSON.stringify(warnings) }),
    )
    .execute()

/** The location's currency id, a currency id by name, and the rate of a currency. */
export const currencyFor = async (db: Kysely<DB>, tenantId: number, location: number, name: string | undefined) => {
  const row =
    name === undefined
      ? await db
          .selectFrom('locations as l')
          .innerJoin('currencies as c', (j) =>
            j.onRef('c.tenant_id', '=', 'l.tenant_id').onRef('c.id', '=', 'l.currency_id'),
          )
          .select(['c.name', sql<string>`c.rate::text`.as('rate')])
          .where('l.tenant_id', '=', tenantId)
          .where('l.id', '=', location)
          .executeTakeFirst()
      : await db
          .selectFrom('currencies as c')
          .select(['c.name', sql<string>`c.rate::text`.as('rate')])
          .where('c.tenant_id', '=', tenantId)
          .where('c.name', '=', name)
          .executeTakeFirst()
  return row
}

/** Whether the user owns a budget of the tenant (the console's menu: an owner reads it and may decide its steps). */
export const ownsBudget = async (db: Kysely<DB>, tenantId: number, userId: number) =>
  (await db
    .selectFrom('budgets')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('owner_id', '=', userId)
    .limit(1)
    .executeTakeFirst()) !== undefined

/**
 * What a page shows for the ids budgets name: location and department names, account codes and names, owners'
 * names (by profile id, as a budget's `owner`), each read once for all the budgets.
 */
export async function namesOf(
  db: Kysely<DB>,
  tenantId: number,
  ids: { locations: number[]; departments: number[]; accounts: number[]; owners: number[] },
) {
  const none = Promise.resolve([])
  const [locations, departments, accounts, owners] = await Promise.all([
    ids.locations.length === 0
      ? none
      : db
          .selectFrom('locations')
          .select(['id', 'name'])
          .where('tenant_id', '=', tenantId)
          .where('id', 'in', ids.locations)
          .execute(),
    ids.departments.length === 0
      ? none
      : db
          .selectFrom('departments')
          .select(['id', 'name'])
          .where('tenant_id', '=', tenantId)
          .where('id', 'in', ids.departments)
          .execute(),
    ids.accounts.length === 0
      ? none
      : db
          .selectFrom('accounts')
          .select(['id', sql<string>`code || ' ' || name`.as('name')])
          .where('tenant_id', '=', tenantId)
          .where('id', 'in', ids.accounts)
          .execute(),
    ids.owners.length === 0
      ? none
      : db
          .selectFrom('user_profiles as p')
          .innerJoin('users as u', (j) => j.onRef('u.tenant_id', '=', 'p.tenant_id').onRef('u.id', '=', 'p.user_id'))
          .select([
            'p.id',
            sql<string>`coalesce(nullif(trim(p.first_name || ' ' || p.last_name), ''), u.email)`.as('name'),
          ])
          .where('p.tenant_id', '=', tenantId)
          .where('p.id', 'in', ids.owners)
          .execute(),
  ])
  const map = (rows: readonly { id: number; name: string }[]) => new Map(rows.map((r) => [r.id, r.name]))
  return { locations: map(locations), departments: map(departments), accounts: map(accounts), owners: map(owners) }
}
