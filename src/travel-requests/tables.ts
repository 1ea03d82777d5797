/** The travel-request tables (migration 0035), added to the database's types by declaration merging. */
import type { ColumnType, Generated } from 'kysely'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>
type Numeric = ColumnType<string, string | number | undefined, string | number>

export type TravelStatus = 'draft' | 'pending_approval' | 'approved' | 'rejected' | 'cancelled'
export type TravelCategory = 'airfare' | 'lodging' | 'ground' | 'meals' | 'other'

export interface TravelRequestTable {
  id: Generated<number>
  tenant_id: number
  number: string
  status: Generated<TravelStatus>
  traveller_id: number
  location_id: number
  department_id: number | null
  currency_id: number
  purpose: Generated<string>
  destination: Generated<string>
  departure_date: ColumnType<string, string, string>
  return_date: ColumnType<string, string, string>
  total: Numeric
  /** The currency's rate, locked at submit. */
  rate: ColumnType<string | null, string | null | undefined, string | null>
  submitted_at: Date | null
  created_at: Timestamp
  updated_at: Timestamp
}

export interface TravelEstimateTable {
  id: Generated<number>
  tenant_id: number
  travel_request_id: number
  position: number
  category: TravelCategory
  amount: Numeric
  account_id: number | null
}

declare module '../db/schema.ts' {
  interface DB {
    travel_requests: TravelRequestTable
    travel_estimates: TravelEstimateTable
  }
}
