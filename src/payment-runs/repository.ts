/** SQL for payment runs, their items, and the documents they pay. Every query is scoped to one tenant. */
import { sql, type Kysely } from 'kysely'
import { approvalCandidateOf } from '../access/approvers.ts'
import { byTenant, personJson } from '../db/joins.ts'
import { listSql } from '../db/list.ts'
import type { DB, PaymentRunStatus } from '../db/schema.ts'
import { PaymentRunListQuery } from './schema.ts'

/** A run holds its documents while it is open. */
export const OPEN_RUN: readonly PaymentRunStatus[] = ['draft', 'pending_approval', 'approved']

export interface RunItemRow {
  id: number
  type: 'bill' | 'payment_request'
  document_id: number
  number: string
  invoice_number: string
  vendor_id: number
  vendor_name: string
  location_id: number
  location_name: string
  amount: string
  reference: string
}

const itemsJson = sql<RunItemRow[]>`coalesce((select json_agg(json_build_object('id', i.id,
    'type', case when i.bill_id is null then 'payment_request' else 'bill' end,
    'document_id', coalesce(i.bill_id, i.payment_request_id),
    'number', coalesce(b.number, p.number), 'invoice_number', coalesce(b.number, p.invoice_number),
    'vendor_id', v.id, 'vendor_name', v.name, 'location_id', l.id, 'location_name', l.name,
    'amount', i.amount::text, 'reference', i.reference) order by i.position)
  from payment_run_items i
  left join bills b on b.tenant_id = i.tenant_id and b.id = i.bill_id
  left join payment_requests p on p.tenant_id = i.tenant_id and p.id = i.payment_request_id
  join vendors v on v.tenant_id = i.tenant_id and v.id = coalesce(b.vendor_id, p.vendor_id)
  join locations l on l.tenant_id = i.tenant_id and l.id = coalesce(b.location_id, p.location_id)
  where i.tenant_id = r.tenant_id and i.run_id = r.id), '[]')`

function selectRuns(db: Kysely<DB>) {
  return db
    .selectFrom('payment_runs as r')
    .innerJoin('company_bank_accounts as ba', byTenant('ba', 'r.bank_account_id'))
    .innerJoin('currencies as c', byTenant('c', 'r.currency_id'))
    .select([
      'r.id',
      'r.tenant_id',
      'r.number',
      'r.status',
      'r.bank_account_id',
      'ba.name as bank_account_name',
      'r.currency_id',
      'c.name as currency',
      sql<string>`to_char(r.execution_date, 'YYYY-MM-DD')`.as('execution_date'),
      sql<string>`r.total::text`.as('total'),
      'r.submitted_at',
      'r.confirmed_at',
      'r.created_by as created_by_id',
      personJson(sql.ref('r.created_by'), sql.ref('r.tenant_id')).as('created_by'),
      'r.created_at',
      'r.updated_at',
    ])
}
export type RunRow = Awaited<ReturnType<ReturnType<typeof selectRuns>['executeTakeFirstOrThrow']>>

/** Who sees a run besides accounts payable (every run): the candidates and deciders of its approvals. */
const candidateOf = (user: unknown) =>
  approvalCandidateOf(user, 'payment_run', sql<number>`${sql.ref('r.tenant_id')}`, sql<number>`${sql.ref('r.id')}`)

export const pageOfRuns = listSql(PaymentRunListQuery, {
  select: selectRuns,
  tenant: 'r.tenant_id',
  id: 'r.id',
  order: { created_at: 'r.created_at', updated_at: 'r.updated_at', execution_date: 'r.execution_date' },
  search: ['r.number', 'ba.name'],
  filters: {
    status: 'r.status',
    bank_account: 'r.bank_account_id',
    updated_since: (since: string) => sql<boolean>`r.updated_at >= ${since}`,
  },
  scope: ([user]: readonly unknown[]) => candidateOf(user),
})

/** `candidate`: only when the user is a candidate or decider of its approvals (a reader without accounts_payable). */
export function findRun(db: Kysely<DB>, tenantId: number, id: number, candidate?: number) {
  let q = selectRuns(db).where('r.tenant_id', '=', tenantId).where('r.id', '=', id)
  if (candidate !== undefined) q = q.where(candidateOf(candidate))
  return q.executeTakeFirst()
}

export const runItems = async (db: Kysely<DB>, tenantId: number, runIds: readonly number[]) => {
  if (runIds.length === 0) return new Map<number, RunItemRow[]>()
  const rows = await db
    .selectFrom('payment_runs as r')
    .select(['r.id', itemsJson.as('items')])
    .where('r.tenant_id', '=', tenantId)
    .where('r.id', 'in', [...runIds])
    .execute()
  return new Map(rows.map((r) => [r.id, r.items]))
}

export const lockRun = (db: Kysely<DB>, tenantId: number, id: number) =>
  db
    .selectFrom('payment_runs')
    .select(['id', 'status'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst()

/** What a run needs to know of a document it pays. */
export interface PayableRow {
  id: number
  number: string
  invoice_number: string
  status: string
  vendor_id: number
  vendor_name: string
  location_id: number
  currency_id: number
  currency: string
  total: string
  amount_paid: string
}

/**
 * The bills of these ids, locked (`for update`) in id order when `lock` — two runs claiming the same bills take
 * turns in one order, so they never deadlock and the second sees what the first wrote.
 */
export async function payableBills(db: Kysely<DB>, tenantId: number, ids: readonly number[], lock: boolean) {
  if (ids.length === 0) return new Map<number, PayableRow>()
  const result = await sql<PayableRow>`select b.id, b.number, b.number as invoice_number, b.status,
      b.vendor_id, v.name as vendor_name, b.location_id, b.currency_id, c.name as currency,
      b.total::text as total, b.amount_paid::text as amount_paid
    from bills b join vendors v on v.tenant_id = b.tenant_id and v.id = b.vendor_id
    join currencies c on c.tenant_id = b.tenant_id and c.id = b.currency_id
    where b.tenant_id = ${tenantId} and b.id = any(${[...ids]}::int[])
    order by b.id ${lock ? sql`for update of b` : sql``}`.execute(db)
  return new Map(result.rows.map((r) => [r.id, r]))
}

/** The payment requests of these ids, locked in id order when `lock` (after the bills). */
export async function payableRequests(db: Kysely<DB>, tenantId: number, ids: readonly number[], lock: boolean) {
  if (ids.length === 0) return new Map<number, PayableRow>()
  const result = await sql<PayableRow>`select p.id, p.number, p.invoice_number, p.status,
      p.vendor_id, v.name as vendor_name, p.location_id, p.currency_id, c.name as currency,
      p.amount::text as total, p.amount_paid::text as amount_paid
    from payment_requests p join vendors v on v.tenant_id = p.tenant_id and v.id = p.vendor_id
    join currencies c on c.tenant_id = p.tenant_id and c.id = p.currency_id
    where p.tenant_id = ${tenantId} and p.id = any(${[...ids]}::int[])
    order by p.id ${lock ? sql`for update of p` : sql``}`.execute(db)
  return new Map(result.rows.map((r) => [r.id, r]))
}

/** The open runs (other than `except`) holding any of these documents: `bill:5` → the run. */
export async function openRunsHolding(
  db: Kysely<DB>,
  tenantId: number,
  docs: { bills: readonly number[]; requests: readonly number[] },
  except = 0,
) {
  const held = new Map<string, { id: number; number: string; status: string }>()
  if (docs.bills.length === 0 && docs.requests.length === 0) return held
  const result = await sql<{ key: string; id: number; number: string; status: string }>`
    select case when i.bill_id is null then 'payment_request:' || i.payment_request_id else 'bill:' || i.bill_id end
      as key, r.id, r.number, r.status
    from payment_run_items i join payment_runs r on r.tenant_id = i.tenant_id and r.id = i.run_id
    where i.tenant_id = ${tenantId} and r.id <> ${except} and r.status in ('draft', 'pending_approval', 'approved')
      and (i.bill_id = any(${[...docs.bills]}::int[]) or i.payment_request_id = any(${[...docs.requests]}::int[]))`.execute(
    db,
  )
  for (const row of result.rows) held.set(row.key, { id: row.id, number: row.number, status: row.status })
  return held
}

/** The open run holding this one document, if any. */
export async function openRunHolding(
  db: Kysely<DB>,
  tenantId: number,
  doc: { billId?: number; paymentRequestId?: number },
) {
  const held = await openRunsHolding(db, tenantId, {
    bills: doc.billId === undefined ? [] : [doc.billId],
    requests: doc.paymentRequestId === undefined ? [] : [doc.paymentRequestId],
  })
  return [...held.values()][0]
}

export interface RunValues {
  bank_account_id: number
  currency_id: number
  execution_date: string
  total: string
}
export interface ItemValues {
  bill_id: number | null
  payment_request_id: number | null
  amount: string
  reference: string
}

export async function insertRun(db: Kysely<DB>, tenantId: number, number: string, v: RunValues, createdBy: number) {
  const row = await db
    .insertInto('payment_runs')
    .values({ tenant_id: tenantId, number, ...v, created_by: createdBy })
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}

export async function replaceItems(db: Kysely<DB>, tenantId: number, runId: number, items: readonly ItemValues[]) {
  await db.deleteFrom('payment_run_items').where('tenant_id', '=', tenantId).where('run_id', '=', runId).execute()
  // In chunks: 1,000 items of 7 columns stay well under the 65,535 parameters of one statement.
  for (let start = 0; start < items.length; start += 500)
    await db
      .insertInto('payment_run_items')
      .values(
        items
          .slice(start, start + 500)
          .map((item, i) => ({ tenant_id: tenantId, run_id: runId, position: start + i + 1, ...item })),
      )
      .execute()
}

export async function updateRun(
  db: Kysely<DB>,
  tenantId: number,
  id: number,
  set: Partial<RunValues> & { status?: PaymentRunStatus; submitted_at?: Date; confirmed_at?: Date | string },
) {
  await db
    .updateTable('payment_runs')
    .set({ ...set, updated_at: new Date() })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute()
}

/** Adds `amount` to what has been paid of the bill; returns what is paid now and its total. */
export const addBillPaid = async (db: Kysely<DB>, tenantId: number, id: number, amount: string) =>
  (
    await sql<{ amount_paid: string; total: string }>`update bills set amount_paid = amount_paid + ${amount}::numeric,
      updated_at = now() where tenant_id = ${tenantId} and id = ${id}
      returning amount_paid::text as amount_paid, total::text as total`.execute(db)
  ).rows[0]!

/**
 * Adds each item's amount to what has been paid of its bill, in one statement; returns the ids of the bills
 * with nothing left open.
 */
export async function addBillsPaid(db: Kysely<DB>, tenantId: number, items: readonly { id: number; amount: string }[]) {
  if (items.length === 0) return []
  const result = await sql<{ id: number }>`update bills b set amount_paid = b.amount_paid + x.amount, updated_at = now()
    from unnest(${items.map((i) => i.id)}::int[], ${items.map((i) => i.amount)}::numeric[]) as x(id, amount)
    where b.tenant_id = ${tenantId} and b.id = x.id
    returning b.id, (b.amount_paid >= b.total) as settled`.execute(db)
  return (result.rows as { id: number; settled: boolean }[])
    .filter((r) => r.settled)
    .map((r) => r.id)
    .sort((a, b) => a - b)
}

export const companyAccount = (db: Kysely<DB>, tenantId: number, id: number) =>
  db
    .selectFrom('company_bank_accounts as a')
    .innerJoin('currencies as c', byTenant('c', 'a.currency_id'))
    .select([
      'a.id',
      'a.name',
      'a.account_holder',
      'a.iban',
      'a.bic',
      'a.currency_id',
      'c.name as currency',
      'a.active',
    ])
    .where('a.tenant_id', '=', tenantId)
    .where('a.id', '=', id)
    .executeTakeFirst()

/** The active `payment_run` rules (they have no location) with `min_total` ≤ the base total, by step. */
export const runRules = (db: Kysely<DB>, tenantId: number, baseTotal: string) =>
  db
    .selectFrom('approval_rules')
    .select(['id', 'step', 'approvers'])
    .where('tenant_id', '=', tenantId)
    .where('active', '=', true)
    .where('document', '=', 'payment_run')
    .where(sql<boolean>`min_total <= ${baseTotal}::numeric`)
    .orderBy('step')
    .orderBy('id')
    .execute()

/** The currency's rate (units per one base unit), as text. */
export const currencyRate = async (db: Kysely<DB>, tenantId: number, id: number) =>
  (
    await db
      .selectFrom('currencies')
      .select(sql<string>`rate::text`.as('rate'))
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst()
  )?.rate

/** The invoice number of each item's document, in item order (a bill's number; a payment request's invoice_number). */
export const itemInvoices = async (db: Kysely<DB>, tenantId: number, runId: number) =>
  (await runItems(db, tenantId, [runId])).get(runId)?.map((i) => i.invoice_number) ?? []

/** The locations of a run's items' documents (each once, ascending): where deciding its approval needs authority. */
export async function itemLocations(db: Kysely<DB>, tenantId: number, runId: number): Promise<number[]> {
  const result = await sql<{ location_id: number }>`
    select distinct coalesce(b.location_id, p.location_id) as location_id
    from payment_run_items i
    left join bills b on b.tenant_id = i.tenant_id and b.id = i.bill_id
    left join payment_requests p on p.tenant_id = i.tenant_id and p.id = i.payment_request_id
    where i.tenant_id = ${tenantId} and i.run_id = ${runId}
    order by 1`.execute(db)
  return result.rows.map((r) => r.location_id)
}

/** The runs (any status, newest first) with an item paying this payment request. */
export async function runIdsPayingRequest(db: Kysely<DB>, tenantId: number, paymentRequestId: number) {
  const rows = await db
    .selectFrom('payment_run_items')
    .select('run_id')
    .distinct()
    .where('tenant_id', '=', tenantId)
    .where('payment_request_id', '=', paymentRequestId)
    .orderBy('run_id', 'desc')
    .execute()
  return rows.map((r) => r.run_id)
}
