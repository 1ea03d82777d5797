/** SQL for expense reports and their lines. Every query is scoped to one tenant. */
import { sql, type Kysely } from 'kysely'
import { documentScope } from '../access/document-scope.ts'
import { byTenant, personJson } from '../db/joins.ts'
import { listSql } from '../db/list.ts'
import type { DB } from '../db/schema.ts'
import { ExpenseListQuery } from './schema.ts'
import type { ExpenseStatus } from './tables.ts'
import './tables.ts'

export interface ExpenseLineRow {
  id: number
  date: string
  merchant: string
  description: string
  account_id: number | null
  amount: string
  currency: string
  currency_id: number
  rate: string | null
  converted_amount: string
  receipt: number | null
}

function selectReports(db: Kysely<DB>) {
  return db
    .selectFrom('expense_reports as e')
    .innerJoin('locations as l', byTenant('l', 'e.location_id'))
    .innerJoin('currencies as c', byTenant('c', 'e.currency_id'))
    .leftJoin('departments as d', byTenant('d', 'e.department_id'))
    .innerJoin('user_profiles as ep', byTenant('ep', 'e.employee_id', 'user_id'))
    .select([
      'e.id',
      'e.tenant_id',
      'e.number',
      'e.status',
      'e.employee_id',
      personJson(sql.ref('e.employee_id'), sql.ref('e.tenant_id')).as('employee'),
      'e.location_id',
      'l.name as location_name',
      'e.department_id',
      'd.name as department_name',
      'e.currency_id',
      'c.name as currency',
      'e.travel_request_id',
      'e.title',
      sql<string>`e.total::text`.as('total'),
      sql<string | null>`e.rate::text`.as('rate'),
      'e.reimbursed_at',
      'e.payment_reference',
      'e.submitted_at',
      'e.created_at',
      'e.updated_at',
      sql<ExpenseLineRow[]>`coalesce((select json_agg(json_build_object('id', el.id,
        'date', to_char(el.date, 'YYYY-MM-DD'), 'merchant', el.merchant, 'description', el.description,
        'account_id', el.account_id, 'amount', el.amount::text, 'currency', lc.name, 'currency_id', el.currency_id,
        'rate', el.rate::text, 'converted_amount', el.converted_amount::text, 'receipt', el.receipt_id)
        order by el.position)
        from expense_report_lines el join currencies lc on lc.tenant_id = el.tenant_id and lc.id = el.currency_id
        where el.tenant_id = e.tenant_id and el.expense_report_id = e.id), '[]')`.as('lines'),
    ])
}
export type ExpenseRow = Awaited<ReturnType<ReturnType<typeof selectReports>['executeTakeFirstOrThrow']>>

/** Who sees a report: its employee, accounts_payable at its location (the scope's locations), its approvals' candidates. */
const visibility = documentScope('e', 'expense_report', 'employee_id')

export const pageOfReports = listSql(ExpenseListQuery, {
  select: selectReports,
  tenant: 'e.tenant_id',
  id: 'e.id',
  order: { created_at: 'e.created_at', updated_at: 'e.updated_at', total: 'e.total' },
  search: ['e.number', 'e.title'],
  filters: {
    status: 'e.status',
    location: 'e.location_id',
    employee: 'ep.id',
    travel_request: 'e.travel_request_id',
    updated_since: visibility.updatedSince,
  },
  scope: visibility.scope,
})

export function findReport(db: Kysely<DB>, tenantId: number, id: number, scope?: readonly [number, number[]]) {
  let q = selectReports(db).where('e.tenant_id', '=', tenantId).where('e.id', '=', id)
  if (scope !== undefined) q = q.where(visibility.visible(scope[0], scope[1]))
  return q.executeTakeFirst()
}

export const lockReport = (db: Kysely<DB>, tenantId: number, id: number) =>
  db
    .selectFrom('expense_reports')
    .select(['id', 'status'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst()

export interface ReportValues {
  location_id: number
  department_id: number | null
  currency_id: number
  travel_request_id: number | null
  title: string
  total: string
}
export interface LineValues {
  id?: number
  date: string
  merchant: string
  description: string
  account_id: number | null
  amount: string
  currency_id: number
  rate: string | null
  converted_amount: string
  receipt_id: number | null
}

export async function insertReport(
  db: Kysely<DB>,
  tenantId: number,
  number: string,
  employee: number,
  v: ReportValues,
) {
  const row = await db
    .insertInto('expense_reports')
    .values({ tenant_id: tenantId, number, employee_id: employee, ...v })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

/** Replaces the lines; a line that names the id of one of the report's lines keeps it. */
export async function replaceLines(db: Kysely<DB>, tenantId: number, reportId: number, lines: LineValues[]) {
  await db
    .deleteFrom('expense_report_lines')
    .where('tenant_id', '=', tenantId)
    .where('expense_report_id', '=', reportId)
    .execute()
  await db
    .insertInto('expense_report_lines')
    .values(
      lines.map(({ id, ...l }, i) => ({
        tenant_id: tenantId,
        expense_report_id: reportId,
        position: i + 1,
        ...(id === undefined ? {} : { id }),
        ...l,
      })),
    )
    .execute()
}

export async function updateReport(
  db: Kysely<DB>,
  tenantId: number,
  id: number,
  set: Partial<ReportValues> & {
    status?: ExpenseStatus
    rate?: string | null
    travel_rate?: string | null
    submitted_at?: Date
    reimbursed_at?: Date | string | null
    payment_reference?: string | null
  },
) {
  await db
    .updateTable('expense_reports')
    .set({ ...set, updated_at: new Date() })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute()
}

/** Locks a line's rate and amount in the report currency (at submit). */
export const lockLine = (db: Kysely<DB>, tenantId: number, id: number, rate: string, converted: string) =>
  db
    .updateTable('expense_report_lines')
    .set({ rate, converted_amount: converted })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute()

/** The line ids of the report (which ids a PUT may keep). */
export const lineIds = async (db: Kysely<DB>, tenantId: number, reportId: number) =>
  new Set(
    (
      await db
        .selectFrom('expense_report_lines')
        .select('id')
        .where('tenant_id', '=', tenantId)
        .where('expense_report_id', '=', reportId)
        .execute()
    ).map((r) => r.id),
  )

/** Sets one line's receipt; false when the report has no such line. */
export const setLineReceipt = async (
  db: Kysely<DB>,
  tenantId: number,
  reportId: number,
  lineId: number,
  receipt: number,
) =>
  (
    await db
      .updateTable('expense_report_lines')
      .set({ receipt_id: receipt })
      .where('tenant_id', '=', tenantId)
      .where('expense_report_id', '=', reportId)
      .where('id', '=', lineId)
      .executeTakeFirst()
  ).numUpdatedRows > 0n

/** Which of `ids` are attachments of this report (a receipt must be one). */
export async function attachmentsOfReport(db: Kysely<DB>, tenantId: number, reportId: number, ids: number[]) {
  if (ids.length === 0) return new Set<number>()
  const rows = await sql<{ id: number }>`select id from attachments where tenant_id = ${tenantId}
    and document_type = 'expense_report' and document_id = ${reportId} and id = any(${ids}::int[])`.execute(db)
  return new Set(rows.rows.map((r) => r.id))
}

/** Locks the report row for a decision; false when it is gone. */
export const lockForDecision = async (db: Kysely<DB>, tenantId: number, id: number) =>
  (await lockReport(db, tenantId, id)) !== undefined

/** What an e-mail about the report says of it. */
export const mailFacts = (db: Kysely<DB>, tenantId: number, id: number) =>
  db
    .selectFrom('expense_reports as e')
    .innerJoin('users as u', byTenant('u', 'e.employee_id'))
    .innerJoin('locations as l', byTenant('l', 'e.location_id'))
    .innerJoin('currencies as c', byTenant('c', 'e.currency_id'))
    .select([
      'e.number',
      'e.title',
      sql<string>`e.total::text`.as('total'),
      'c.name as currency',
      'l.name as location',
      'u.email',
      'u.approval_emails as wants',
      'u.is_active as active',
    ])
    .where('e.tenant_id', '=', tenantId)
    .where('e.id', '=', id)
    .executeTakeFirstOrThrow()

/** Whether the travel request is approved and the user's (an expense report may name it). */
export const approvedTravelOf = async (db: Kysely<DB>, tenantId: number, id: number, userId: number) =>
  (await db
    .selectFrom('travel_requests')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('traveller_id', '=', userId)
    .where('status', '=', 'approved')
    .executeTakeFirst()) !== undefined

/** The currency of the travel request (its `expensed_total` is in it). */
export const travelCurrency = async (db: Kysely<DB>, tenantId: number, id: number) =>
  (
    await db
      .selectFrom('travel_requests')
      .select('currency_id')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst()
  )?.currency_id

/** The travel request's number (how its ledger entries name it). */
export const travelNumber = async (db: Kysely<DB>, tenantId: number, id: number) =>
  (
    await db
      .selectFrom('travel_requests')
      .select('number')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst()
  )?.number
