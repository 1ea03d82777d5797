/**
 * Expense reports and travel requests: an employee's own spending, reimbursed with receipts, and trips approved
 * before they are booked. Every POST carries an Idempotency-Key (the transport makes one unless you pass yours).
 * The shapes are written here by hand until the generated types include them.
 */
import type { Transport } from './http.ts'

interface Person {
  id: number
  first_name: string
  last_name: string
  email: string
}
interface Ref {
  id: number
  name: string
}
/** An approval of the document (as GET /api/v3/approvals/{id}/ returns it). */
type ApprovalOf = Record<string, unknown> & { id: number; status: 'pending' | 'approved' | 'rejected' | 'cancelled' }
export interface BudgetWarning {
  budget: Ref
  available: string
  requested: string
  over_by: string
}
type Account = { id: number; code: string; name: string } | null

export interface ExpenseReportLine {
  id: number
  date: string
  merchant: string
  description: string
  account: Account
  /** What the receipt says, in `currency`. */
  amount: string
  currency: string
  /** In the report's currency: amount ÷ its currency's rate × the report currency's rate, half-up (locked at submit). */
  converted_amount: string
  /** An attachment of this report, or null. */
  receipt: number | null
}
export interface ExpenseReport {
  id: number
  number: string
  status: 'draft' | 'pending_approval' | 'approved' | 'rejected' | 'reimbursed' | 'cancelled'
  employee: Person
  location: Ref
  department: Ref | null
  currency: string
  travel_request: number | null
  title: string
  lines: ExpenseReportLine[]
  total: string
  budget_warnings: BudgetWarning[]
  approvals: ApprovalOf[]
  reimbursed_at: string | null
  payment_reference: string | null
  submitted_at: string | null
  created_at: string
  updated_at: string
}
export interface ExpenseReportInput {
  location: number
  department?: number | null
  currency?: string
  travel_request?: number | null
  title?: string
  lines: {
    id?: number
    date: string
    merchant?: string
    description?: string
    account?: number | null
    amount: string
    currency?: string
    receipt?: number | null
  }[]
}
export interface TravelRequest {
  id: number
  number: string
  status: 'draft' | 'pending_approval' | 'approved' | 'rejected' | 'cancelled'
  traveller: Person
  location: Ref
  department: Ref | null
  purpose: string
  destination: string
  departure_date: string
  return_date: string
  currency: string
  estimates: { category: TravelCategory; amount: string; account: Account }[]
  total: string
  expensed_total: string
  budget_warnings: BudgetWarning[]
  approvals: ApprovalOf[]
  submitted_at: string | null
  created_at: string
  updated_at: string
}
export type TravelCategory = 'airfare' | 'lodging' | 'ground' | 'meals' | 'other'
export interface TravelRequestInput {
  location: number
  department?: number | null
  purpose: string
  destination: string
  departure_date: string
  return_date: string
  currency?: string
  estimates: { category: TravelCategory; amount: string; account?: number | null }[]
}
type Query = Record<string, string | number | boolean | undefined>
interface Options {
  idempotencyKey?: string
}

/** The calls both documents share: list, get, create, replace, submit, cancel. */
class Documents<T, I> {
  constructor(
    protected readonly http: Transport,
    protected readonly path: string,
  ) {}

  protected async send(method: string, path: string, body?: unknown, options: Options = {}): Promise<T> {
    const response = await this.http.request<{ data: T }>(method, path, {
      ...(body === undefined ? {} : { body }),
      idempotencyKey: options.idempotencyKey,
    })
    return response.data.data
  }

  /** One page of the documents you may see; filters as the API documents them (`status`, `location`, …). */
  async list(query: Query = {}) {
    const { data } = await this.http.request<{ data: T[]; metadata: { pagination: unknown } }>('GET', this.path, {
      query,
    })
    return { data: data.data, pagination: data.metadata.pagination }
  }

  get(id: number): Promise<T> {
    return this.send('GET', `${this.path}${id}/`)
  }

  create(body: I, options?: Options): Promise<T> {
    return this.send('POST', this.path, body, options)
  }

  /** Replaces a draft (or a rejected one, before submitting it again). */
  replace(id: number, body: I): Promise<T> {
    return this.send('PUT', `${this.path}${id}/`, body)
  }

  /** Submits it for approval (no matching rule: approved at once). */
  submit(id: number, options?: Options): Promise<T> {
    return this.send('POST', `${this.path}${id}/submit/`, undefined, options)
  }

  /** Cancels a draft or one awaiting approval. */
  cancel(id: number, options?: Options): Promise<T> {
    return this.send('POST', `${this.path}${id}/cancel/`, undefined, options)
  }
}

/**
 * @example
 * const report = await client.expenseReports.create({ location: 1, lines: [{ date: '2026-11-20', amount: '38.00', currency: 'EUR' }] })
 * await client.expenseReports.submit(report.id)
 */
export class ExpenseReports extends Documents<ExpenseReport, ExpenseReportInput> {
  constructor(http: Transport) {
    super(http, '/api/v3/expense-reports/')
  }

  /** Marks an approved report reimbursed (accounts_payable at its location). */
  reimburse(id: number, body: { reimbursed_at?: string; payment_reference?: string } = {}, options?: Options) {
    return this.send('POST', `${this.path}${id}/reimburse/`, body, options)
  }
}

/** @example const trip = await client.travelRequests.create({ location: 1, purpose: 'Fair', destination: 'Berlin', departure_date: '2026-12-07', return_date: '2026-12-09', estimates: [{ category: 'airfare', amount: '420' }] }) */
export class TravelRequests extends Documents<TravelRequest, TravelRequestInput> {
  constructor(http: Transport) {
    super(http, '/api/v3/travel-requests/')
  }
}
