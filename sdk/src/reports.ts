/**
 * Reports (`GET /api/v3/reports/{name}/`): the rows as JSON, or the same rows as CSV, XLSX or an SVG chart.
 * The row shapes are written here by hand until the generated types include them.
 *
 * @example
 * const { data, metadata } = await client.reports.get('spend', { group_by: 'month', from: '2026-01-01' })
 * const xlsx = await client.reports.file('payables-aging', 'xlsx', { as_of: '2026-12-31' })
 */
import type { Transport } from './http.ts'

export type ReportName = 'spend' | 'orders' | 'budgets' | 'commitments' | 'payables-aging' | 'cycle-times'
export interface ReportFilters {
  from?: string
  to?: string
  location?: number
  department?: number
  vendor?: number
  account?: number
  group_by?: string
  as_of?: string
}
export type ReportKey = { id: number | string; name: string } | null
export interface Span {
  count: number
  median_hours: number | null
  p90_hours: number | null
}
export interface ReportRows {
  spend: { key: ReportKey; documents: number; amount: string }
  orders: { key: ReportKey; orders: number; ordered: string; received: string; billed: string }
  budgets: {
    budget: { id: number; name: string }
    amount: string
    pending: string
    committed: string
    spent: string
    available: string
    used_percent: string | null
  }
  commitments: {
    order: { id: number; number: string }
    vendor: { id: number; name: string }
    line: number
    ordered: string
    received_not_billed: string
    not_received: string
  }
  'payables-aging': {
    vendor: { id: number; name: string }
    current: string
    '1_30': string
    '31_60': string
    '61_90': string
    over_90: string
    total: string
  }
  'cycle-times': {
    key: ReportKey
    submit_to_approval: Span
    approval_to_order: Span
    order_to_receipt: Span
    receipt_to_bill_approval: Span
    bill_approval_to_paid: Span
  }
}
export interface Report<N extends ReportName> {
  data: ReportRows[N][]
  metadata: { filters: Record<string, unknown>; totals: Record<string, unknown>; currency: string }
}

const ACCEPT = {
  csv: 'text/csv',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  svg: 'image/svg+xml',
} as const

export class Reports {
  constructor(private readonly http: Transport) {}

  /** A report's rows, filters applied, totals and currency. */
  async get<N extends ReportName>(name: N, filters: ReportFilters = {}): Promise<Report<N>> {
    const response = await this.http.request<Report<N>>('GET', `/api/v3/reports/${name}/`, { query: { ...filters } })
    return response.data
  }

  /** The same rows as a file: CSV, XLSX or an SVG chart (bytes and content type). */
  async file(name: ReportName, format: keyof typeof ACCEPT, filters: ReportFilters = {}) {
    const response = await this.http.requestBytes(
      'GET',
      `/api/v3/reports/${name}/`,
      { query: { ...filters, format } },
      ACCEPT[format],
    )
    return { data: response.data, contentType: response.contentType }
  }
}
