/**
 * The six reports (DECISIONS, "Reports"), one definition each: its filters and groupings, its row schema
 * (TypeBox, the OpenAPI document's and the JSON form's), how its rows are read (repository.ts), its totals,
 * the columns its CSV and XLSX forms flatten a row into, and what its chart draws. Every form is made from
 * the same rows, so they cannot disagree.
 */
import type { Kysely } from 'kysely'
import { Type, type TObject } from 'typebox'
import type { DB } from '../db/schema.ts'
import { named } from '../core/schema.ts'
import type { FilterName, Filters } from './filters.ts'
import * as repo from './repository.ts'
import { addAmounts, percentOf } from './money.ts'

/** What a report's query is given: the database, the tenant, the locations read, the filters. */
export interface ReportInput {
  db: Kysely<DB>
  tenantId: number
  scope: repo.Scope
  /** Whether the reader reads every location (budgets of every location are theirs to see). */
  everywhere: boolean
  filters: Filters
}

export type Row = Record<string, unknown>

/** One column of the CSV and XLSX forms: its header, its kind, and its value in a row. */
export interface Column {
  header: string
  kind: 'text' | 'integer' | 'amount' | 'hours'
  value: (row: Row) => string | number | null
}

/** What the chart draws: one category per row, one or more series of numbers (stacked where `stack`). */
export interface ChartSpec {
  unit: 'amount' | 'hours'
  stack: boolean
  category: (row: Row) => string
  series: { name: string; value: (row: Row) => number | null }[]
}

export interface ReportDefinition {
  name: string
  title: string
  description: string
  filters: readonly FilterName[]
  groupBy?: { values: readonly string[]; default: string }
  row: TObject
  rows(input: ReportInput): Promise<Row[]>
  totals(rows: Row[]): Record<string, unknown>
  columns: Column[]
  chart: ChartSpec
}

// ---- shared pieces --------------------------------------------------------------------------------------

const Amount = (description: string, example: string) =>
  Type.String({
    pattern: '^-?\\d+\\.\\d{2}$',
    description: `${description} (decimal string, base currency)`,
    examples: [example],
  })
const Ref = (idType: 'integer' | 'string', description: string, example: { id: number | string; name: string }) =>
  Type.Object(
    {
      id: idType === 'integer' ? Type.Integer() : Type.String(),
      name: Type.String(),
    },
    { description, examples: [example] },
  )
const Key = Type.Union(
  [Type.Object({ id: Type.Union([Type.Integer(), Type.String()]), name: Type.String() }), Type.Null()],
  {
    description:
      'What the row groups by: `{id, name}` (a month: `{id: "2026-11", name: "November 2026"}`); null for what has no value for the grouping.',
    examples: [{ id: 4, name: 'Acme Supplies' }],
  },
)

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
]

/** `"2026-11"` → `"November 2026"`. */
export const monthName = (id: string) => `${MONTHS[Number(id.slice(5, 7)) - 1]} ${id.slice(0, 4)}`

/** A repository key as `{id, name}` (or null): months by their id, others by their row's id and name. */
function keyOf(row: repo.KeyRow, group: string): { id: number | string; name: string } | null {
  if (row.key_id === null) return null
  if (group === 'month') return { id: row.key_id, name: monthName(row.key_id) }
  return { id: Number(row.key_id), name: row.key_name ?? '' }
}

const keyColumns: Column[] = [
  { header: 'key_id', kind: 'text', value: (r) => (r.key as { id: number | string } | null)?.id ?? null },
  { header: 'key_name', kind: 'text', value: (r) => (r.key as { name: string } | null)?.name ?? null },
]
const keyCategory = (row: Row) => (row.key as { name: string } | null)?.name ?? '(none)'
const amountColumn = (name: string): Column => ({ header: name, kind: 'amount', value: (r) => r[name] as string })
const num = (name: string) => (row: Row) => Number(row[name])
const sumOf = (rows: Row[], name: string) => addAmounts(rows.map((r) => r[name] as string))
const count = (rows: Row[], name: string) => rows.reduce((n, r) => n + (r[name] as number), 0)

const GROUPED: FilterName[] = ['from', 'to', 'location', 'department', 'vendor', 'account', 'group_by']

// ---- the reports ----------------------------------------------------------------------------------------

const spend: ReportDefinition = {
  name: 'spend',
  title: 'Spend',
  description: "The ledger's spent entries (bills, approved expense reports and payment requests) by budget date.",
  filters: GROUPED,
  groupBy: { values: ['vendor', 'location', 'department', 'account', 'month', 'user'], default: 'vendor' },
  row: named(
    'SpendReportRow',
    Type.Object({
      key: Key,
      documents: Type.Integer({ description: 'How many documents spent in the group.', examples: [12] }),
      amount: Amount('What they spent, net', '18250.40'),
    }),
  ),
  async rows({ db, tenantId, scope, filters }) {
    const rows = await repo.spend(db, tenantId, scope, filters)
    return rows.map((r) => ({ key: keyOf(r, filters.group_by!), documents: Number(r.documents), amount: r.amount }))
  },
  totals: (rows) => ({ documents: count(rows, 'documents'), amount: sumOf(rows, 'amount') }),
  columns: [
    ...keyColumns,
    { header: 'documents', kind: 'integer', value: (r) => r.documents as number },
    amountColumn('amount'),
  ],
  chart: { unit: 'amount', stack: false, category: keyCategory, series: [{ name: 'Spent', value: num('amount') }] },
}

const orders: ReportDefinition = {
  name: 'orders',
  title: 'Orders',
  description: 'Orders issued in the range (by their issue date): net amounts ordered, received and billed.',
  filters: GROUPED,
  groupBy: { values: ['vendor', 'location', 'department', 'user', 'month'], default: 'vendor' },
  row: named(
    'OrdersReportRow',
    Type.Object({
      key: Key,
      orders: Type.Integer({ description: 'How many orders.', examples: [7] }),
      ordered: Amount('Net amount ordered', '12400.00'),
      received: Amount('Net value received (received quantity × unit price)', '9800.00'),
      billed: Amount('Net value billed (billed quantity × unit price)', '7350.00'),
    }),
  ),
  async rows({ db, tenantId, scope, filters }) {
    const rows = await repo.orders(db, tenantId, scope, filters)
    return rows.map((r) => ({
      key: keyOf(r, filters.group_by!),
      orders: Number(r.orders),
      ordered: r.ordered,
      received: r.received,
      billed: r.billed,
    }))
  },
  totals: (rows) => ({
    orders: count(rows, 'orders'),
    ordered: sumOf(rows, 'ordered'),
    received: sumOf(rows, 'received'),
    billed: sumOf(rows, 'billed'),
  }),
  columns: [
    ...keyColumns,
    { header: 'orders', kind: 'integer', value: (r) => r.orders as number },
    amountColumn('ordered'),
    amountColumn('received'),
    amountColumn('billed'),
  ],
  chart: {
    unit: 'amount',
    stack: false,
    category: keyCategory,
    series: [
      { name: 'Ordered', value: num('ordered') },
      { name: 'Received', value: num('received') },
      { name: 'Billed', value: num('billed') },
    ],
  },
}

const budgets: ReportDefinition = {
  name: 'budgets',
  title: 'Budgets',
  description: 'Every budget whose period overlaps the range, with its figures from the ledger.',
  filters: ['from', 'to', 'location', 'department', 'account'],
  row: named(
    'BudgetsReportRow',
    Type.Object({
      budget: Ref('integer', 'The budget.', { id: 5, name: 'Marketing 2026' }),
      amount: Amount('The budget', '10000.00'),
      pending: Amount('Pending in the ledger', '1200.00'),
      committed: Amount('Committed in the ledger', '3000.00'),
      spent: Amount('Spent in the ledger', '2500.00'),
      available: Amount('amount − pending − committed − spent; negative when over', '3300.00'),
      used_percent: Type.Union([Type.String(), Type.Null()], {
        description: '(pending + committed + spent) ÷ amount × 100, one decimal, half-up; null when amount is 0.',
        examples: ['67.0'],
      }),
    }),
  ),
  async rows({ db, tenantId, scope, everywhere, filters }) {
    const rows = await repo.budgets(db, tenantId, scope, everywhere, filters)
    return rows.map((r) => ({
      budget: { id: r.id, name: r.name },
      amount: r.amount,
      pending: r.pending,
      committed: r.committed,
      spent: r.spent,
      available: r.available,
      used_percent: r.used_percent,
    }))
  },
  totals: (rows) => {
    const amount = sumOf(rows, 'amount')
    const used = addAmounts([sumOf(rows, 'pending'), sumOf(rows, 'committed'), sumOf(rows, 'spent')])
    return {
      amount,
      pending: sumOf(rows, 'pending'),
      committed: sumOf(rows, 'committed'),
      spent: sumOf(rows, 'spent'),
      available: sumOf(rows, 'available'),
      used_percent: percentOf(used, amount),
    }
  },
  columns: [
    { header: 'budget_id', kind: 'integer', value: (r) => (r.budget as { id: number }).id },
    { header: 'budget_name', kind: 'text', value: (r) => (r.budget as { name: string }).name },
    amountColumn('amount'),
    amountColumn('pending'),
    amountColumn('committed'),
    amountColumn('spent'),
    amountColumn('available'),
    { header: 'used_percent', kind: 'amount', value: (r) => r.used_percent as string | null },
  ],
  chart: {
    unit: 'amount',
    stack: true,
    category: (r) => (r.budget as { name: string }).name,
    series: [
      { name: 'Spent', value: num('spent') },
      { name: 'Committed', value: num('committed') },
      { name: 'Pending', value: num('pending') },
      { name: 'Available', value: (r) => Math.max(0, Number(r.available)) },
    ],
  },
}

const commitments: ReportDefinition = {
  name: 'commitments',
  title: 'Commitments',
  description:
    'Open order lines (issued orders, ordered > billed): what was received and not billed, and what is not received yet — what accountants accrue.',
  filters: ['from', 'to', 'location', 'department', 'vendor', 'account'],
  row: named(
    'CommitmentsReportRow',
    Type.Object({
      order: Type.Object(
        { id: Type.Integer(), number: Type.String() },
        { description: 'The order.', examples: [{ id: 42, number: 'PO-000042' }] },
      ),
      vendor: Ref('integer', "The order's vendor.", { id: 4, name: 'Acme Supplies' }),
      line: Type.Integer({ description: "The order line's id.", examples: [101] }),
      ordered: Amount("The line's net amount", '1200.00'),
      received_not_billed: Amount('Received beyond what is billed', '300.00'),
      not_received: Amount('Neither received nor billed yet', '500.00'),
    }),
  ),
  async rows({ db, tenantId, scope, filters }) {
    const rows = await repo.commitments(db, tenantId, scope, filters)
    return rows.map((r) => ({
      order: { id: r.order_id, number: r.order_number },
      vendor: { id: r.vendor_id, name: r.vendor_name },
      line: r.line,
      ordered: r.ordered,
      received_not_billed: r.received_not_billed,
      not_received: r.not_received,
    }))
  },
  totals: (rows) => ({
    ordered: sumOf(rows, 'ordered'),
    received_not_billed: sumOf(rows, 'received_not_billed'),
    not_received: sumOf(rows, 'not_received'),
  }),
  columns: [
    { header: 'order_id', kind: 'integer', value: (r) => (r.order as { id: number }).id },
    { header: 'order_number', kind: 'text', value: (r) => (r.order as { number: string }).number },
    { header: 'vendor_id', kind: 'integer', value: (r) => (r.vendor as { id: number }).id },
    { header: 'vendor_name', kind: 'text', value: (r) => (r.vendor as { name: string }).name },
    { header: 'line', kind: 'integer', value: (r) => r.line as number },
    amountColumn('ordered'),
    amountColumn('received_not_billed'),
    amountColumn('not_received'),
  ],
  chart: {
    unit: 'amount',
    stack: true,
    category: (r) => `${(r.order as { number: string }).number} · line ${r.line as number}`,
    series: [
      { name: 'Received, not billed', value: num('received_not_billed') },
      { name: 'Not received', value: num('not_received') },
    ],
  },
}

const BUCKETS = ['current', '1_30', '31_60', '61_90', 'over_90'] as const
const payablesAging: ReportDefinition = {
  name: 'payables-aging',
  title: 'Payables aging',
  description:
    "Approved bills' open amounts (total with tax, less what payment runs paid) by vendor, by days past their due date on as_of.",
  filters: ['from', 'to', 'location', 'department', 'vendor', 'as_of'],
  row: named(
    'PayablesAgingReportRow',
    Type.Object({
      vendor: Ref('integer', 'The vendor.', { id: 4, name: 'Acme Supplies' }),
      current: Amount('Due on as_of or later (or without a due date)', '2400.00'),
      '1_30': Amount('1–30 days past due', '850.00'),
      '31_60': Amount('31–60 days past due', '0.00'),
      '61_90': Amount('61–90 days past due', '120.00'),
      over_90: Amount('More than 90 days past due', '0.00'),
      total: Amount('All of it', '3370.00'),
    }),
  ),
  async rows({ db, tenantId, scope, filters }) {
    const rows = await repo.payablesAging(db, tenantId, scope, filters)
    return rows.map((r) => ({
      vendor: { id: r.vendor_id, name: r.vendor_name },
      current: r.current,
      '1_30': r.d1_30,
      '31_60': r.d31_60,
      '61_90': r.d61_90,
      over_90: r.over_90,
      total: r.total,
    }))
  },
  totals: (rows) => Object.fromEntries([...BUCKETS, 'total'].map((b) => [b, sumOf(rows, b)])),
  columns: [
    { header: 'vendor_id', kind: 'integer', value: (r) => (r.vendor as { id: number }).id },
    { header: 'vendor_name', kind: 'text', value: (r) => (r.vendor as { name: string }).name },
    ...BUCKETS.map(amountColumn),
    amountColumn('total'),
  ],
  chart: {
    unit: 'amount',
    stack: true,
    category: (r) => (r.vendor as { name: string }).name,
    series: [
      { name: 'Not yet due', value: num('current') },
      { name: '1–30 days overdue', value: num('1_30') },
      { name: '31–60 days overdue', value: num('31_60') },
      { name: '61–90 days overdue', value: num('61_90') },
      { name: 'Over 90 days overdue', value: num('over_90') },
    ],
  },
}

export const STAGES = [
  'submit_to_approval',
  'approval_to_order',
  'order_to_receipt',
  'receipt_to_bill_approval',
  'bill_approval_to_paid',
] as const
export const STAGE_TITLES: Record<(typeof STAGES)[number], string> = {
  submit_to_approval: 'Submit → approval',
  approval_to_order: 'Approval → order',
  order_to_receipt: 'Order → receipt',
  receipt_to_bill_approval: 'Receipt → bill approval',
  bill_approval_to_paid: 'Bill approval → paid',
}
const Span = Type.Object(
  {
    count: Type.Integer(),
    median_hours: Type.Union([Type.Number(), Type.Null()]),
    p90_hours: Type.Union([Type.Number(), Type.Null()]),
  },
  {
    description: 'How many spans, and their median and 90th percentile in hours (one decimal; null when count is 0).',
    examples: [{ count: 12, median_hours: 20.5, p90_hours: 70.2 }],
  },
)
const stat = (r: Row, stage: string) =>
  r[stage] as { count: number; median_hours: number | null; p90_hours: number | null }

const cycleTimes: ReportDefinition = {
  name: 'cycle-times',
  title: 'Cycle times',
  description: "Hours from submit to approval, to order, to receipt, to the bill's approval and to payment.",
  filters: ['from', 'to', 'location', 'department', 'group_by'],
  groupBy: { values: ['location', 'month'], default: 'month' },
  row: named('CycleTimesReportRow', Type.Object({ key: Key, ...Object.fromEntries(STAGES.map((s) => [s, Span])) })),
  async rows({ db, tenantId, scope, filters }) {
    const rows = await repo.cycleTimes(db, tenantId, scope, filters)
    const out = new Map<string, Row>()
    for (const r of rows) {
      const id = r.key_id ?? ''
      let row = out.get(id)
      if (row === undefined) {
        row = { key: keyOf(r, filters.group_by!) }
        for (const s of STAGES) row[s] = { count: 0, median_hours: null, p90_hours: null }
        out.set(id, row)
      }
      row[r.measure] = {
        count: Number(r.count),
        median_hours: r.median_hours === null ? null : Number(r.median_hours),
        p90_hours: r.p90_hours === null ? null : Number(r.p90_hours),
      }
    }
    return [...out.values()]
  },
  totals: (rows) =>
    Object.fromEntries(STAGES.map((s) => [s, { count: rows.reduce((n, r) => n + stat(r, s).count, 0) }])),
  columns: [
    ...keyColumns,
    ...STAGES.flatMap((s): Column[] => [
      { header: `${s}_count`, kind: 'integer', value: (r) => stat(r, s).count },
      { header: `${s}_median_hours`, kind: 'hours', value: (r) => stat(r, s).median_hours },
      { header: `${s}_p90_hours`, kind: 'hours', value: (r) => stat(r, s).p90_hours },
    ]),
  ],
  chart: {
    unit: 'hours',
    stack: false,
    category: keyCategory,
    series: STAGES.map((s) => ({ name: `${STAGE_TITLES[s]} (median)`, value: (r: Row) => stat(r, s).median_hours })),
  },
}

export const REPORTS: readonly ReportDefinition[] = [spend, orders, budgets, commitments, payablesAging, cycleTimes]
export const REPORT_NAMES = REPORTS.map((r) => r.name)
export const reportNamed = (name: string) => REPORTS.find((r) => r.name === name)
