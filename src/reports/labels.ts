/**
 * What the console's Reports page calls each report's columns: one map per report, beside the definitions
 * (definitions.ts). The CSV, XLSX and JSON forms keep the machine names (`vendor_name`, `1_30`), which
 * integrations read; only the page a person reads shows these. A report's grouping names its key column
 * ("Vendor", "Month"), so the heading says what the rows are.
 */
import { STAGES, STAGE_TITLES } from './definitions.ts'

/** The key column's heading by `group_by`. */
const GROUPS: Record<string, string> = {
  vendor: 'Vendor',
  location: 'Location',
  department: 'Department',
  account: 'Account',
  month: 'Month',
  user: 'Person',
}

const KEY = { key_id: 'ID' }

/** Column header (machine name) → heading, per report name. */
export const COLUMN_LABELS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  spend: { ...KEY, documents: 'Documents', amount: 'Amount spent' },
  orders: { ...KEY, orders: 'Orders', ordered: 'Ordered', received: 'Received', billed: 'Billed' },
  budgets: {
    budget_id: 'Budget ID',
    budget_name: 'Budget',
    amount: 'Budgeted',
    pending: 'Pending',
    committed: 'Committed',
    spent: 'Spent',
    available: 'Available',
    used_percent: 'Used (%)',
  },
  commitments: {
    order_id: 'Order ID',
    order_number: 'Order',
    vendor_id: 'Vendor ID',
    vendor_name: 'Vendor',
    line: 'Order line',
    ordered: 'Ordered',
    received_not_billed: 'Received, not billed',
    not_received: 'Not received',
  },
  'payables-aging': {
    vendor_id: 'Vendor ID',
    vendor_name: 'Vendor',
    current: 'Not yet due',
    '1_30': '1–30 days overdue',
    '31_60': '31–60 days overdue',
    '61_90': '61–90 days overdue',
    over_90: 'Over 90 days overdue',
    total: 'Total open',
  },
  'cycle-times': {
    ...KEY,
    ...Object.fromEntries(
      STAGES.flatMap((s) => [
        [`${s}_count`, `${STAGE_TITLES[s]}: count`],
        [`${s}_median_hours`, `${STAGE_TITLES[s]}: median hours`],
        [`${s}_p90_hours`, `${STAGE_TITLES[s]}: p90 hours`],
      ]),
    ),
  },
}

/**
 * The heading of a report's column on the console's page: the report's label, the grouping's name for its key
 * (`key_name`), else the machine name with spaces (a column added without a label still reads as words).
 */
export function columnLabel(report: string, header: string, groupBy: string | null): string {
  if (header === 'key_name') return GROUPS[groupBy ?? ''] ?? 'Name'
  return COLUMN_LABELS[report]?.[header] ?? header.replace(/_/g, ' ')
}
