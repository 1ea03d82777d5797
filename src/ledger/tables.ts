/**
 * The table types of accounts, budgets and the ledger (migration 0034), added to the database's types by
 * declaration merging, as events add their types to events/schema.ts: one place, no edit of db/schema.ts.
 */
import type { ColumnType, Generated } from 'kysely'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>
type DateText = ColumnType<string, string, string>

export type LedgerStage = 'pending' | 'committed' | 'spent'
export type BudgetAction = 'warn' | 'block' | 'approve'

export interface AccountTable {
  id: Generated<number>
  tenant_id: number
  code: string
  name: Generated<string>
  active: Generated<boolean>
  created_at: Timestamp
  updated_at: Timestamp
}

export interface BudgetTable {
  id: Generated<number>
  tenant_id: number
  name: string
  location_id: number | null
  department_id: number | null
  account_id: number | null
  period_start: DateText
  period_end: DateText
  amount: string
  action: BudgetAction
  owner_id: number | null
  active: Generated<boolean>
  created_at: Timestamp
  updated_at: Timestamp
}

export interface LedgerEntryTable {
  id: Generated<string>
  tenant_id: number
  created_at: Timestamp
  stage: LedgerStage
  amount: string
  currency: string
  original_amount: string
  rate: string
  document_type: string
  document_id: number
  document_number: Generated<string>
  line_id: number
  location_id: number
  department_id: number | null
  account_id: number | null
  budget_date: DateText
  reason: string
}

export interface LedgerTotalTable {
  id: Generated<string>
  tenant_id: number
  budget_date: DateText
  location_id: number
  department_id: number
  account_id: number
  stage: LedgerStage
  amount: string
}

export interface BudgetWarningTable {
  tenant_id: number
  document_type: string
  id: number
  warnings: ColumnType<unknown, string, string>
}

declare module '../db/schema.ts' {
  interface DB {
    accounts: AccountTable
    budgets: BudgetTable
    ledger_entries: LedgerEntryTable
    ledger_totals: LedgerTotalTable
    budget_warnings: BudgetWarningTable
  }
  interface RequestLineTable {
    account_id: ColumnType<number | null, number | null | undefined, number | null>
  }
  interface PurchaseOrderLineTable {
    account_id: ColumnType<number | null, number | null | undefined, number | null>
  }
  interface PlannedStep {
    /** A budget's step (budgets/check.service.ts): its owner decides it; owning the budget is the authority. */
    budget?: number
  }
  interface BillLineTable {
    account_id: ColumnType<number | null, number | null | undefined, number | null>
  }
}
