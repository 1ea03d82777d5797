/** SQL for travel requests and their estimates. Every query is scoped to one tenant. */
import { sql, type Kysely } from 'kysely'
import { documentScope } from '../access/document-scope.ts'
import { byTenant, personJson } from '../db/joins.ts'
import { listSql } from '../db/list.ts'
import type { DB } from '../db/schema.ts'
import '../expense-reports/tables.ts'
import { TravelListQuery } from './schema.ts'
import type { TravelCategory, TravelStatus } from './tables.ts'

export interface EstimateRow {
  id: number
  category: TravelCategory
  amount: string
  account_id: number | null
}

function selectTravel(db: Kysely<DB>) {
  return db
    .selectFrom('travel_requests as t')
    .innerJoin('locations as l', byTenant('l', 't.location_id'))
    .innerJoin('currencies as c', byTenant('c', 't.currency_id'))
    .leftJoin('departments as d', byTenant('d', 't.department_id'))
    .innerJoin('user_profiles as tp', byTenant('tp', 't.traveller_id', 'user_id'))
    .select([
      't.id',
      't.tenant_id',
      't.number',
      't.status',
      't.traveller_id',
      personJson(sql.ref('t.traveller_id'), sql.ref('t.tenant_id')).as('traveller'),
      't.location_id',
      'l.name as location_name',
      't.department_id',
      'd.name as department_name',
      't.currency_id',
      'c.name as currency',
      't.purpose',
      't.destination',
      sql<string>`to_char(t.departure_date, 'YYYY-MM-DD')`.as('departure_date'),
      sql<string>`to_char(t.return_date, 'YYYY-MM-DD')`.as('return_date'),
      sql<string>`t.total::text`.as('total'),
      sql<string | null>`t.rate::text`.as('rate'),
      't.submitted_at',
      't.created_at',
      't.updated_at',
      sql<EstimateRow[]>`coalesce((select json_agg(json_build_object('id', te.id, 'category', te.category,
        'amount', te.amount::text, 'account_id', te.account_id) order by te.position)
        from travel_estimates te where te.tenant_id = t.tenant_id and te.travel_request_id = t.id), '[]')`.as(
        'estimates',
      ),
      sql<{ total: string; rate: string; travel_rate: string }[]>`coalesce((select json_agg(json_build_object(
        'total', e.total::text, 'rate', e.rate::text, 'travel_rate', e.travel_rate::text) order by e.id)
        from expense_reports e where e.tenant_id = t.tenant_id and e.travel_request_id = t.id
          and e.status in ('approved', 'reimbursed') and e.rate is not null and e.travel_rate is not null), '[]')`.as(
        'expensed',
      ),
    ])
}
export type TravelRow = Awaited<ReturnType<ReturnType<typeof selectTravel>['executeTakeFirstOrThrow']>>

/** Who sees a travel request: its traveller, accounts_payable at its location (the scope's), its approvals' candidates. */
const visibility = documentScope('t', 'travel_request', 'traveller_id')

export const pageOfTravel = listSql(TravelListQuery, {
  select: selectTravel,
  tenant: 't.tenant_id',
  id: 't.id',
  order: {
    created_at: 't.created_at',
    updated_at: 't.updated_at',
    departure_date: 't.departure_date',
    total: 't.total',
  },
  search: ['t.number', 't.purpose', 't.destination'],
  filters: {
    status: 't.status',
    location: 't.location_id',
    traveller: 'tp.id',
    updated_since: visibility.updatedSince,
  },
  scope: visibility.scope,
})

export function findTravel(db: Kysely<DB>, tenantId: number, id: number, scope?: readonly [number, number[]]) {
  let q = selectTravel(db).where('t.tenant_id', '=', tenantId).where('t.id', '=', id)
  if (scope !== undefined) q = q.where(visibility.visible(scope[0], scope[1]))
  return q.executeTakeFirst()
}

export const lockTravel = (db: Kysely<DB>, tenantId: number, id: number) =>
  db
    .selectFrom('travel_requests')
    .select(['id', 'status'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst()

export interface TravelValues {
  location_id: number
  department_id: number | null
  currency_id: number
  purpose: string
  destination: string
  departure_date: string
  return_date: string
  total: string
}
export interface EstimateValues {
  category: TravelCategory
  amount: string
  account_id: number | null
}

export async function insertTravel(
  db: Kysely<DB>,
  tenantId: number,
  number: string,
  traveller: number,
  v: TravelValues,
) {
  const row = await db
    .insertInto('travel_requests')
    .values({ tenant_id: tenantId, number, traveller_id: traveller, ...v })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

export async function replaceEstimates(db: Kysely<DB>, tenantId: number, id: number, estimates: EstimateValues[]) {
  await db
    .deleteFrom('travel_estimates')
    .where('tenant_id', '=', tenantId)
    .where('travel_request_id', '=', id)
    .execute()
  await db
    .insertInto('travel_estimates')
    .values(estimates.map((e, i) => ({ tenant_id: tenantId, travel_request_id: id, position: i + 1, ...e })))
    .execute()
}

export async function updateTravel(
  db: Kysely<DB>,
  tenantId: number,
  id: number,
  set: Partial<TravelValues> & { status?: TravelStatus; rate?: string | null; submitted_at?: Date },
) {
  await db
    .updateTable('travel_requests')
    .set({ ...set, updated_at: new Date() })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute()
}

/** What an e-mail about the request says of it. */
export const mailFacts = (db: Kysely<DB>, tenantId: number, id: number) =>
  db
    .selectFrom('travel_requests as t')
    .innerJoin('users as u', byTenant('u', 't.traveller_id'))
    .innerJoin('locations as l', byTenant('l', 't.location_id'))
    .innerJoin('currencies as c', byTenant('c', 't.currency_id'))
    .select([
      't.number',
      't.destination',
      sql<string>`t.total::text`.as('total'),
      'c.name as currency',
      'l.name as location',
      'u.email',
      'u.approval_emails as wants',
      'u.is_active as active',
    ])
    .where('t.tenant_id', '=', tenantId)
    .where('t.id', '=', id)
    .executeTakeFirstOrThrow()

/** Whether an approved (or reimbursed) expense report names the travel request. */
export const expensed = async (db: Kysely<DB>, tenantId: number, id: number) =>
  (await db
    .selectFrom('expense_reports')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('travel_request_id', '=', id)
    .where('status', 'in', ['approved', 'reimbursed'])
    .executeTakeFirst()) !== undefined
