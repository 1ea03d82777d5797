/** SQL for payment requests. Every query is scoped to one tenant. */
import { sql, type Kysely } from 'kysely'
import { documentScope } from '../access/document-scope.ts'
import { byTenant, personJson } from '../db/joins.ts'
import { listSql } from '../db/list.ts'
import type { DB, PaymentRequestStatus } from '../db/schema.ts'
import { PaymentRequestListQuery } from './schema.ts'

function selectPaymentRequests(db: Kysely<DB>) {
  return db
    .selectFrom('payment_requests as p')
    .innerJoin('vendors as v', byTenant('v', 'p.vendor_id'))
    .innerJoin('locations as l', byTenant('l', 'p.location_id'))
    .innerJoin('currencies as c', byTenant('c', 'p.currency_id'))
    .leftJoin('departments as d', byTenant('d', 'p.department_id'))
    .select([
      'p.id',
      'p.tenant_id',
      'p.number',
      'p.status',
      'p.requester_id',
      personJson(sql.ref('p.requester_id'), sql.ref('p.tenant_id')).as('requester'),
      'p.location_id',
      'l.name as location_name',
      'p.department_id',
      'd.name as department_name',
      'p.vendor_id',
      'v.name as vendor_name',
      'p.currency_id',
      'c.name as currency',
      sql<string>`p.amount::text`.as('amount'),
      sql<string>`p.amount_paid::text`.as('amount_paid'),
      'p.account_id',
      sql<string | null>`to_char(p.due_date, 'YYYY-MM-DD')`.as('due_date'),
      'p.invoice_number',
      'p.reason',
      'p.budget_warnings',
      'p.submitted_at',
      'p.paid_at',
      'p.payment_reference',
      'p.created_at',
      'p.updated_at',
    ])
}
export type PaymentRequestRow = Awaited<ReturnType<ReturnType<typeof selectPaymentRequests>['executeTakeFirstOrThrow']>>

/** Who sees a payment request: its requester, holders of its permissions at its location, its approvals' candidates. */
const visibility = documentScope('p', 'payment_request', 'requester_id')

export const pageOfPaymentRequests = listSql(PaymentRequestListQuery, {
  select: selectPaymentRequests,
  tenant: 'p.tenant_id',
  id: 'p.id',
  order: { created_at: 'p.created_at', updated_at: 'p.updated_at', due_date: 'p.due_date' },
  search: ['p.number', 'v.name', 'p.invoice_number'],
  filters: {
    status: 'p.status',
    vendor: 'p.vendor_id',
    location: 'p.location_id',
    updated_since: visibility.updatedSince,
  },
  scope: visibility.scope,
})

export function findPaymentRequest(db: Kysely<DB>, tenantId: number, id: number, scope?: readonly [number, number[]]) {
  let q = selectPaymentRequests(db).where('p.tenant_id', '=', tenantId).where('p.id', '=', id)
  if (scope !== undefined) q = q.where(visibility.visible(scope[0], scope[1]))
  return q.executeTakeFirst()
}

export const lockPaymentRequest = (db: Kysely<DB>, tenantId: number, id: number) =>
  db
    .selectFrom('payment_requests')
    .select(['id', 'status'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst()

export interface PaymentRequestValues {
  location_id: number
  department_id: number | null
  vendor_id: number
  currency_id: number
  amount: string
  account_id: number | null
  due_date: string | null
  invoice_number: string
  reason: string
}

export async function insertPaymentRequest(
  db: Kysely<DB>,
  tenantId: number,
  number: string,
  v: PaymentRequestValues,
  requesterId: number,
) {
  const row = await db
    .insertInto('payment_requests')
    .values({ tenant_id: tenantId, number, ...v, amount_paid: '0', requester_id: requesterId })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

export async function updatePaymentRequest(
  db: Kysely<DB>,
  tenantId: number,
  id: number,
  set: Partial<PaymentRequestValues> & {
    status?: PaymentRequestStatus
    submitted_at?: Date
    amount_paid?: string
    paid_at?: Date | string | null
    payment_reference?: string | null
    budget_warnings?: string
  },
) {
  await db
    .updateTable('payment_requests')
    .set({ ...set, updated_at: new Date() })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute()
}

/** What a payment request refers to, each null when it is not the tenant's. */
export async function references(
  db: Kysely<DB>,
  tenantId: number,
  ids: {
    location: number
    department: number | null
    vendor: number
    currency: string | undefined
    account: number | null
  },
) {
  const row = await sql<{
    location: number | null
    location_currency: number | null
    department_location: number | null
    vendor: number | null
    currency: number | null
    account: number | null
  }>`select
      (select id from locations where tenant_id = ${tenantId} and id = ${ids.location}) as location,
      (select currency_id from locations where tenant_id = ${tenantId} and id = ${ids.location}) as location_currency,
      (select location_id from departments where tenant_id = ${tenantId} and id = ${ids.department ?? 0}) as department_location,
      (select id from vendors where tenant_id = ${tenantId} and id = ${ids.vendor}) as vendor,
      (select id from currencies where tenant_id = ${tenantId} and name = ${ids.currency ?? ''}) as currency,
      (select id from accounts where tenant_id = ${tenantId} and id = ${ids.account ?? 0}) as account`.execute(db)
  return row.rows[0]!
}

/** Adds `amount` to what has been paid of the request; returns what is paid now and its amount. */
export const addPaid = async (db: Kysely<DB>, tenantId: number, id: number, amount: string) =>
  (
    await sql<{ amount_paid: string; amount: string }>`update payment_requests
      set amount_paid = amount_paid + ${amount}::numeric, updated_at = now()
      where tenant_id = ${tenantId} and id = ${id}
      returning amount_paid::text as amount_paid, amount::text as amount`.execute(db)
  ).rows[0]!
