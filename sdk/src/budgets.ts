/**
 * Accounts (general-ledger codes), budgets with their figures and ledger entries, and the check a form makes
 * while a document is drafted. Every POST carries an Idempotency-Key (the transport makes one unless you pass
 * yours). The shapes are written here by hand until the generated types include them.
 *
 * @example
 * const budget = await client.budgets.create({ name: 'IT 2026', location: 1, account: 4,
 *   period_start: '2026-01-01', period_end: '2026-12-31', amount: '50000', action: 'approve', owner: 7 })
 * const { budgets } = await client.budgets.check({ document: 'request', location: 1,
 *   lines: [{ account: 4, quantity: '3', unit_price: '1200' }] })
 */
import type { Transport } from './http.ts'

export interface Account {
  id: number
  code: string
  name: string
  active: boolean
}
export interface AccountInput {
  code: string
  name?: string
  active?: boolean
}
export type BudgetAction = 'warn' | 'block' | 'approve'
export interface Budget {
  id: number
  name: string
  location: number | null
  department: number | null
  account: number | null
  period_start: string
  period_end: string
  amount: string
  action: BudgetAction
  owner: number | null
  active: boolean
  pending: string
  committed: string
  spent: string
  available: string
  used_percent: string | null
}
export interface BudgetInput {
  name: string
  location?: number | null
  department?: number | null
  account?: number | null
  period_start: string
  period_end: string
  amount: string
  action: BudgetAction
  owner?: number | null
  active?: boolean
}
export interface LedgerEntry {
  id: number
  created_at: string
  stage: 'pending' | 'committed' | 'spent'
  amount: string
  currency: string
  original_amount: string
  rate: string
  document: { type: string; id: number; number: string }
  line: number
  location: number
  department: number | null
  account: number | null
  budget_date: string
  reason: string
}
export interface BudgetCheckInput {
  document: 'request' | 'purchase_order' | 'bill' | 'expense_report' | 'travel_request'
  location: number
  department?: number | null
  currency?: string
  date?: string
  lines: { account?: number | null; quantity: string; unit_price: string }[]
}
export interface BudgetCheck {
  budgets: {
    budget: { id: number; name: string; action: BudgetAction }
    available: string
    this_document: string
    over_by: string
  }[]
}
type Query = Record<string, string | number | boolean | undefined>
interface Options {
  idempotencyKey?: string
}

abstract class Resource<T, I> {
  constructor(
    protected readonly http: Transport,
    protected readonly path: string,
  ) {}

  protected async send<R = T>(method: string, path: string, body?: unknown, options: Options = {}): Promise<R> {
    const response = await this.http.request<{ data: R }>(method, path, {
      ...(body === undefined ? {} : { body }),
      idempotencyKey: options.idempotencyKey,
    })
    return response.data.data
  }

  /** One page; filters as the API documents them. */
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

  replace(id: number, body: I): Promise<T> {
    return this.send('PUT', `${this.path}${id}/`, body)
  }
}

/** /api/v3/accounts/: read by every user; written by superuser or nav_setting. */
export class Accounts extends Resource<Account, AccountInput> {
  constructor(http: Transport) {
    super(http, '/api/v3/accounts/')
  }
}

/** /api/v3/budgets/: figures computed from the ledger; entries newest first; the check while drafting. */
export class Budgets extends Resource<Budget, BudgetInput> {
  constructor(http: Transport) {
    super(http, '/api/v3/budgets/')
  }

  async delete(id: number): Promise<void> {
    await this.http.request('DELETE', `${this.path}${id}/`)
  }

  /** One page of the ledger entries the budget matches, newest first. */
  async entries(id: number, query: Query = {}) {
    const { data } = await this.http.request<{ data: LedgerEntry[]; metadata: { pagination: unknown } }>(
      'GET',
      `${this.path}${id}/entries/`,
      { query },
    )
    return { data: data.data, pagination: data.metadata.pagination }
  }

  /** What a document with these lines would do to every budget they match; writes nothing. */
  check(body: BudgetCheckInput, options?: Options): Promise<BudgetCheck> {
    return this.send<BudgetCheck>('POST', `${this.path}check/`, body, options)
  }
}
