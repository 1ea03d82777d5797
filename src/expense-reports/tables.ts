/** The expense-report tables (migration 0035), added to the database's types by declaration merging. */
import type { ColumnType, Generated } from 'kysely'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>
type Numeric = ColumnType<string, string | number | undefined, string | number>

export type ExpenseStatus = 'draft' | 'pending_approval' | 'approved' | 'rejected' | 'reimbursed' | 'cancelled'

export interface ExpenseReportTable {
  id: Generated<number>
  tenant_id: number
  number: string
  status: Generated<ExpenseStatus>
  employee_id: number
  location_id: number
  department_id: number | null
  currency_id: number
  travel_request_id: number | null
  title: Generated<string>
  total: Numeric
  /** The report currency's rate, locked at submit. */
  rate: ColumnType<string | null, string | null | undefined, string | null>
  /** The named travel request's currency rate, locked at submit (for its `expensed_total`). */
  travel_rate: ColumnType<string | null, string | null | undefined, string | null>
  reimbursed_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
  payment_reference: string | null
  submitted_at: Date | null
  created_at: Timestamp
  updated_at: Timestamp
}

export interface ExpenseReportLineTable {
  id: Generated<number>
  tenant_id: number
  expense_report_id: number
  position: number
  date: ColumnType<string, string, string>
  merchant: Generated<string>
  description: Generated<string>
  account_id: number | null
  amount: Numeric
  currency_id: number
  /** The line currency's rate, locked at submit. */
  rate: ColumnType<string | null, string | null | undefined, string | null>
  converted_amount: Numeric
  receipt_id: number | null
}

declare module '../db/schema.ts' {
  interface DB {
    expense_reports: ExpenseReportTable
    expense_report_lines: ExpenseReportLineTable
  }
}
