/**
 * The SQL of the six reports (DECISIONS, "Reports"): one query each, summed in SQL `numeric` so every amount
 * is exact, scoped to one tenant and to the locations the reader may report on. A document amount becomes
 * base currency at the rate its ledger entries locked (the first entry of the line or document), else the
 * currency's rate now: amount ÷ rate, rounded half-up to 2 decimals per line, then summed.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely'
import type { DB } from '../db/schema.ts'
import type { Filters } from './filters.ts'

/** The locations whose rows the reader sees: every one, or these. */
export type Scope = 'all' | readonly number[]

export interface KeyRow {
  key_id: string | null
  key_name: string | null
}

const inScope = (column: RawBuilder<unknown>, scope: Scope) =>
  scope === 'all' ? sql<boolean>`true` : sql<boolean>`${column} = any(${[...scope]}::int[])`

/** `and <column> = <value>` when the filter is set. */
const eq = (column: RawBuilder<unknown>, value: number | null) =>
  value === null ? sql`` : sql`and ${column} = ${value}`

/** `and <date expression> between from and to` (each bound when set). */
const within = (day: RawBuilder<unknown>, f: Filters) =>
  sql`${f.from === null ? sql`` : sql`and ${day} >= ${f.from}::date`} ${f.to === null ? sql`` : sql`and ${day} <= ${f.to}::date`}`

/** A timestamp's UTC date and month. */
const utcDay = (ts: RawBuilder<unknown>) => sql`(${ts} at time zone 'UTC')::date`
const month = (day: RawBuilder<unknown>) => sql<string>`to_char(${day}, 'YYYY-MM')`

const ref = (name: string) => sql.ref(name)

/** The name of the thing a key id names (`kind` the grouping), as a scalar subquery. */
function nameOf(kind: string, id: RawBuilder<unknown>, tenant: number): RawBuilder<string | null> {
  switch (kind) {
    case 'vendor':
      return sql`(select v.name from vendors v where v.tenant_id = ${tenant} and v.id = ${id}::int)`
    case 'location':
      return sql`(select l.name from locations l where l.tenant_id = ${tenant} and l.id = ${id}::int)`
    case 'department':
      return sql`(select d.name from departments d where d.tenant_id = ${tenant} and d.id = ${id}::int)`
    case 'account':
      return sql`(select coalesce(nullif(a.name, ''), a.code) from accounts a where a.tenant_id = ${tenant} and a.id = ${id}::int)`
    case 'user':
      return sql`(select coalesce(nullif(trim(p.first_name || ' ' || p.last_name), ''), u.email)
        from user_profiles p join users u on u.tenant_id = p.tenant_id and u.id = p.user_id
        where p.tenant_id = ${tenant} and p.user_id = ${id}::int)`
    default:
      return sql`null`
  }
}

/** A user key is their profile id on the wire (a person everywhere else is); the others are the row's id. */
function keyId(kind: string, id: RawBuilder<unknown>, tenant: number): RawBuilder<string | null> {
  if (kind === 'user')
    return sql`(select p.id::text from user_profiles p where p.tenant_id = ${tenant} and p.user_id = ${id}::int)`
  if (kind === 'month') return sql`${id}::text`
  return sql`${id}::text`
}

/** The rate a document line counted at in the ledger, else its currency's rate now. */
const lockedRate = (
  type: string,
  documentId: RawBuilder<unknown>,
  lineId: RawBuilder<unknown> | null,
  rate: RawBuilder<unknown>,
) =>
  sql`coalesce((select le.rate from ledger_entries le where le.tenant_id = ${ref('o.tenant_id')}
    and le.document_type = ${type} and le.document_id = ${documentId}
    ${lineId === null ? sql`` : sql`and le.line_id = ${lineId}`} order by le.id limit 1), ${rate})`

const toBase = (amount: RawBuilder<unknown>, rate: RawBuilder<unknown>) => sql`round(${amount} / ${rate}, 2)`

// ---- spend ----------------------------------------------------------------------------------------------

export interface SpendRow extends KeyRow {
  documents: string
  amount: string
}

/** The ledger's `spent` entries by document, then by key; documents whose entries net to 0 are not counted. */
export async function spend(db: Kysely<DB>, tenant: number, scope: Scope, f: Filters): Promise<SpendRow[]> {
  const g = f.group_by ?? 'vendor'
  const vendor = sql`coalesce(b.vendor_id, pr.vendor_id)`
  const user = sql`coalesce(b.created_by, pr.requester_id, er.employee_id)`
  const key: RawBuilder<unknown> = {
    vendor,
    location: sql`e.location_id`,
    department: sql`e.department_id`,
    account: sql`e.account_id`,
    month: month(sql`e.budget_date`),
    user,
  }[g]!
  // The documents are joined only when the key or a filter reads them: by month, location, department or
  // account the entries alone answer (a million entries read without a million probes).
  const byDocument = g === 'vendor' || g === 'user' || f.vendor !== null
  const result = await sql<SpendRow>`
    with docs as (
      select ${key} as k, e.document_type, e.document_id, sum(e.amount) as amount
      from ledger_entries e
      ${
        byDocument
          ? sql`left join bills b on e.document_type = 'bill' and b.tenant_id = e.tenant_id and b.id = e.document_id
      left join payment_requests pr
        on e.document_type = 'payment_request' and pr.tenant_id = e.tenant_id and pr.id = e.document_id
      left join expense_reports er
        on e.document_type = 'expense_report' and er.tenant_id = e.tenant_id and er.id = e.document_id`
          : sql``
      }
      where e.tenant_id = ${tenant} and e.stage = 'spent' and ${inScope(sql`e.location_id`, scope)}
        ${within(sql`e.budget_date`, f)}
        ${eq(sql`e.location_id`, f.location)} ${eq(sql`e.department_id`, f.department)}
        ${eq(sql`e.account_id`, f.account)} ${eq(vendor, f.vendor)}
      group by 1, 2, 3
    ), groups as (
      select k, count(*) filter (where amount <> 0) as documents, sum(amount) as amount from docs group by k
    )
    select ${keyId(g, sql`k`, tenant)} as key_id, ${nameOf(g, sql`k`, tenant)} as key_name,
      documents::text as documents, amount::text as amount
    from groups where documents > 0 or amount <> 0
    order by (k is null), ${g === 'month' ? sql`k` : sql`groups.amount desc, key_name`}`.execute(db)
  return result.rows
}

// ---- orders ---------------------------------------------------------------------------------------------

export interface OrdersRow extends KeyRow {
  orders: string
  ordered: string
  received: string
  billed: string
}

/** Orders issued in the range, their lines' net amounts ordered, received and billed, in base currency. */
export async function orders(db: Kysely<DB>, tenant: number, scope: Scope, f: Filters): Promise<OrdersRow[]> {
  const g = f.group_by ?? 'vendor'
  const key: RawBuilder<unknown> = {
    vendor: sql`o.vendor_id`,
    location: sql`o.location_id`,
    department: sql`o.department_id`,
    user: sql`o.created_by`,
    month: month(utcDay(sql`o.issued_at`)),
  }[g]!
  const rate = lockedRate('purchase_order', sql`o.id`, sql`l.id`, sql`c.rate`)
  const result = await sql<OrdersRow>`
    with lines as (
      select ${key} as k, o.id as order_id,
        ${toBase(sql`l.amount`, rate)} as ordered,
        ${toBase(sql`round(l.received_quantity * l.unit_price, 2)`, rate)} as received,
        ${toBase(sql`round(l.billed_quantity * l.unit_price, 2)`, rate)} as billed
      from purchase_orders o
      join purchase_order_lines l on l.tenant_id = o.tenant_id and l.order_id = o.id
      join currencies c on c.tenant_id = o.tenant_id and c.id = o.currency_id
      where o.tenant_id = ${tenant} and o.issued_at is not null and o.status in ('issued', 'closed')
        and ${inScope(sql`o.location_id`, scope)} ${within(utcDay(sql`o.issued_at`), f)}
        ${eq(sql`o.location_id`, f.location)} ${eq(sql`o.department_id`, f.department)}
        ${eq(sql`o.vendor_id`, f.vendor)} ${eq(sql`l.account_id`, f.account)}
    ), groups as (
      select k, count(distinct order_id) as orders, sum(ordered) as ordered, sum(received) as received,
        sum(billed) as billed
      from lines group by k
    )
    select ${keyId(g, sql`k`, tenant)} as key_id, ${nameOf(g, sql`k`, tenant)} as key_name, orders::text as orders,
      ordered::text as ordered, received::text as received, billed::text as billed
    from groups
    order by (k is null), ${g === 'month' ? sql`k` : sql`groups.ordered desc, key_name`}`.execute(db)
  return result.rows
}

// ---- budgets --------------------------------------------------------------------------------------------

export interface BudgetsRow {
  id: number
  name: string
  amount: string
  pending: string
  committed: string
  spent: string
  available: string
  used_percent: string | null
}

/**
 * Every budget overlapping the range, with its figures from the ledger: the entries it matches (null matches
 * any) whose budget date lies in its period, summed by stage. A budget of every location is shown only to a
 * reader of every location (`everywhere`).
 */
export async function budgets(
  db: Kysely<DB>,
  tenant: number,
  scope: Scope,
  everywhere: boolean,
  f: Filters,
): Promise<BudgetsRow[]> {
  const result = await sql<BudgetsRow>`
    with chosen as (
      select b.* from budgets b
      where b.tenant_id = ${tenant}
        and (${everywhere} and b.location_id is null or ${inScope(sql`b.location_id`, scope)} and b.location_id is not null)
        ${f.to === null ? sql`` : sql`and b.period_start <= ${f.to}::date`}
        ${f.from === null ? sql`` : sql`and b.period_end >= ${f.from}::date`}
        ${eq(sql`b.location_id`, f.location)} ${eq(sql`b.department_id`, f.department)}
        ${eq(sql`b.account_id`, f.account)}
    ), figures as (
      select b.id,
        coalesce(sum(e.amount) filter (where e.stage = 'pending'), 0.00) as pending,
        coalesce(sum(e.amount) filter (where e.stage = 'committed'), 0.00) as committed,
        coalesce(sum(e.amount) filter (where e.stage = 'spent'), 0.00) as spent
      from chosen b
      left join ledger_entries e on e.tenant_id = b.tenant_id
        and e.budget_date between b.period_start and b.period_end
        and (b.location_id is null or e.location_id = b.location_id)
        and (b.department_id is null or e.department_id = b.department_id)
        and (b.account_id is null or e.account_id = b.account_id)
      group by b.id
    )
    select b.id, b.name, b.amount::text as amount, f.pending::text as pending, f.committed::text as committed,
      f.spent::text as spent, (b.amount - f.pending - f.committed - f.spent)::text as available,
      case when b.amount = 0 then null
        else round((f.pending + f.committed + f.spent) * 100 / b.amount, 1)::text end as used_percent
    from chosen b join figures f on f.id = b.id
    order by b.name, b.id`.execute(db)
  return result.rows
}

/** The tenant's location ids (a reader of all of them reads budgets of every location). */
export async function locationIds(db: Kysely<DB>, tenant: number): Promise<number[]> {
  const rows = await db.selectFrom('locations').select('id').where('tenant_id', '=', tenant).execute()
  return rows.map((r) => r.id)
}

// ---- commitments ----------------------------------------------------------------------------------------

export interface CommitmentsRow {
  order_id: number
  order_number: string
  vendor_id: number
  vendor_name: string
  line: number
  ordered: string
  received_not_billed: string
  not_received: string
}

/**
 * Open order lines: of issued orders, not closed, ordered > billed. `received_not_billed` is what was received
 * beyond what was billed; `not_received` what is neither received nor billed yet.
 */
export async function commitments(db: Kysely<DB>, tenant: number, scope: Scope, f: Filters): Promise<CommitmentsRow[]> {
  const rate = lockedRate('purchase_order', sql`o.id`, sql`l.id`, sql`c.rate`)
  const result = await sql<CommitmentsRow>`
    select o.id as order_id, o.number as order_number, v.id as vendor_id, v.name as vendor_name, l.id as line,
      ${toBase(sql`l.amount`, rate)}::text as ordered,
      ${toBase(sql`round(greatest(l.received_quantity - l.billed_quantity, 0) * l.unit_price, 2)`, rate)}::text
        as received_not_billed,
      ${toBase(sql`round(greatest(l.quantity - greatest(l.received_quantity, l.billed_quantity), 0) * l.unit_price, 2)`, rate)}::text
        as not_received
    from purchase_orders o
    join purchase_order_lines l on l.tenant_id = o.tenant_id and l.order_id = o.id
    join currencies c on c.tenant_id = o.tenant_id and c.id = o.currency_id
    join vendors v on v.tenant_id = o.tenant_id and v.id = o.vendor_id
    where o.tenant_id = ${tenant} and o.status = 'issued' and not l.closed and l.quantity > l.billed_quantity
      and ${inScope(sql`o.location_id`, scope)} ${within(utcDay(sql`o.issued_at`), f)}
      ${eq(sql`o.location_id`, f.location)} ${eq(sql`o.department_id`, f.department)}
      ${eq(sql`o.vendor_id`, f.vendor)} ${eq(sql`l.account_id`, f.account)}
    order by o.issued_at, o.id, l.position, l.id`.execute(db)
  return result.rows
}

// ---- payables aging -------------------------------------------------------------------------------------

export interface AgingRow {
  vendor_id: number
  vendor_name: string
  current: string
  d1_30: string
  d31_60: string
  d61_90: string
  over_90: string
  total: string
}

/** Approved bills' open amounts (total with tax less what payment runs paid) by days past due on `as_of`. */
export async function payablesAging(db: Kysely<DB>, tenant: number, scope: Scope, f: Filters): Promise<AgingRow[]> {
  const rate = sql`coalesce((select le.rate from ledger_entries le where le.tenant_id = b.tenant_id
    and le.document_type = 'bill' and le.document_id = b.id order by le.id limit 1), c.rate)`
  const late = sql`(${f.as_of}::date - b.due_date)`
  const result = await sql<AgingRow>`
    with open as (
      select b.vendor_id, coalesce(${late}, 0) as late,
        ${toBase(sql`(b.total - coalesce(b.amount_paid, 0))`, rate)} as amount
      from bills b
      join currencies c on c.tenant_id = b.tenant_id and c.id = b.currency_id
      left join purchase_orders o on o.tenant_id = b.tenant_id and o.id = b.order_id
      where b.tenant_id = ${tenant} and b.status = 'approved' and b.total > coalesce(b.amount_paid, 0)
        and ${inScope(sql`b.location_id`, scope)} ${within(sql`b.invoice_date`, f)}
        ${eq(sql`b.location_id`, f.location)} ${eq(sql`o.department_id`, f.department)}
        ${eq(sql`b.vendor_id`, f.vendor)}
    )
    select v.id as vendor_id, v.name as vendor_name,
      coalesce(sum(amount) filter (where late <= 0), 0.00)::text as current,
      coalesce(sum(amount) filter (where late between 1 and 30), 0.00)::text as d1_30,
      coalesce(sum(amount) filter (where late between 31 and 60), 0.00)::text as d31_60,
      coalesce(sum(amount) filter (where late between 61 and 90), 0.00)::text as d61_90,
      coalesce(sum(amount) filter (where late > 90), 0.00)::text as over_90,
      sum(amount)::text as total
    from open join vendors v on v.tenant_id = ${tenant} and v.id = open.vendor_id
    group by v.id, v.name
    order by sum(amount) desc, v.name`.execute(db)
  return result.rows
}

// ---- cycle times ----------------------------------------------------------------------------------------

export interface CycleRow extends KeyRow {
  measure: string
  count: string
  median_hours: string | null
  p90_hours: string | null
}

/**
 * Hours between the documents' own timestamps, one row per (key, measure), keyed by the location or the UTC
 * month where each span starts; `from`/`to` choose spans by the date they start.
 *  - submit_to_approval: a request's `submitted_at` → its last approval (or its submit, approved at once);
 *  - approval_to_order: that approval → the first issue of an order made from the request;
 *  - order_to_receipt: an order's `issued_at` → its first posted receipt;
 *  - receipt_to_bill_approval: that receipt → the approval of each bill of the order;
 *  - bill_approval_to_paid: a bill's approval → its `paid_at`.
 * A bill's approval is its last approval step, or (approved at submit, without steps) its `bill.approved`
 * event while the event is kept.
 */
export async function cycleTimes(db: Kysely<DB>, tenant: number, scope: Scope, f: Filters): Promise<CycleRow[]> {
  const g = f.group_by ?? 'month'
  const key = (location: RawBuilder<unknown>, start: RawBuilder<unknown>) =>
    g === 'location' ? sql`${location}::text` : month(utcDay(start))
  const where = (location: RawBuilder<unknown>, department: RawBuilder<unknown>, start: RawBuilder<unknown>) =>
    sql`${inScope(location, scope)} ${within(utcDay(start), f)} ${eq(location, f.location)} ${eq(department, f.department)}`
  const result = await sql<CycleRow>`
    with requests as (
      select r.id, r.location_id, r.department_id, r.submitted_at,
        coalesce((select max(a.acted_at) from request_approvals a where a.tenant_id = r.tenant_id
          and a.document_type = 'request' and a.document_id = r.id and a.status = 'approved'), r.submitted_at) as approved_at
      from purchase_requests r
      where r.tenant_id = ${tenant} and r.status = 'approved' and r.submitted_at is not null
    ), orders as (
      select o.id, o.request_id, o.location_id, o.department_id, o.issued_at,
        (select min(rc.received_at) from receipts rc where rc.tenant_id = o.tenant_id and rc.order_id = o.id
          and rc.type = 'receipt' and rc.status = 'posted') as received_at
      from purchase_orders o
      where o.tenant_id = ${tenant} and o.issued_at is not null
    ), bills as (
      select b.id, b.order_id, b.location_id, o.department_id, b.paid_at,
        coalesce(
          (select max(a.acted_at) from request_approvals a where a.tenant_id = b.tenant_id
            and a.document_type = 'bill' and a.document_id = b.id and a.status = 'approved'),
          (select min(ev.created_at) from events ev where ev.tenant_id = b.tenant_id and ev.type = 'bill.approved'
            and ev.object->>'id' = b.id::text)) as approved_at
      from bills b left join purchase_orders o on o.tenant_id = b.tenant_id and o.id = b.order_id
      where b.tenant_id = ${tenant} and b.status in ('approved', 'paid')
    ), spans as (
      select 'submit_to_approval' as measure, ${key(sql`r.location_id`, sql`r.submitted_at`)} as k,
        r.submitted_at as started, r.approved_at as ended
      from requests r where ${where(sql`r.location_id`, sql`r.department_id`, sql`r.submitted_at`)}
      union all
      select 'approval_to_order', ${key(sql`r.location_id`, sql`r.approved_at`)}, r.approved_at,
        (select min(o.issued_at) from orders o where o.request_id = r.id)
      from requests r where ${where(sql`r.location_id`, sql`r.department_id`, sql`r.approved_at`)}
        and exists (select 1 from orders o where o.request_id = r.id)
      union all
      select 'order_to_receipt', ${key(sql`o.location_id`, sql`o.issued_at`)}, o.issued_at, o.received_at
      from orders o where o.received_at is not null
        and ${where(sql`o.location_id`, sql`o.department_id`, sql`o.issued_at`)}
      union all
      select 'receipt_to_bill_approval', ${key(sql`o.location_id`, sql`o.received_at`)}, o.received_at, b.approved_at
      from bills b join orders o on o.id = b.order_id
      where o.received_at is not null and b.approved_at is not null
        and ${where(sql`o.location_id`, sql`o.department_id`, sql`o.received_at`)}
      union all
      select 'bill_approval_to_paid', ${key(sql`b.location_id`, sql`b.approved_at`)}, b.approved_at, b.paid_at
      from bills b where b.paid_at is not null and b.approved_at is not null
        and ${where(sql`b.location_id`, sql`b.department_id`, sql`b.approved_at`)}
    ), hours as (
      select measure, k, extract(epoch from (ended - started)) / 3600.0 as h from spans
    )
    select ${g === 'location' ? keyId('location', sql`k`, tenant) : sql`k`} as key_id,
      ${g === 'location' ? nameOf('location', sql`k`, tenant) : sql`null`} as key_name, measure,
      count(*)::text as count,
      round((percentile_cont(0.5) within group (order by h))::numeric, 1)::text as median_hours,
      round((percentile_cont(0.9) within group (order by h))::numeric, 1)::text as p90_hours
    from hours group by k, measure
    order by (k is null), ${g === 'location' ? sql`key_name` : sql`k`}, measure`.execute(db)
  return result.rows
}
