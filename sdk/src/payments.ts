/**
 * Paying vendors: bank accounts (a vendor's, verified by a second person; the company's), payment requests (a
 * payment without an order) and payment runs, whose ISO 20022 `pain.001.001.03` file goes to the bank. Every POST
 * carries an Idempotency-Key (the transport makes one unless you pass yours). The shapes are written here by hand
 * until the generated types include them.
 *
 * @example
 * const run = await client.paymentRuns.create({ bank_account: 1, execution_date: '2026-12-01', items: [{ document: { type: 'bill', id: 5 } }] })
 * await client.paymentRuns.submit(run.id)
 * const xml = await client.paymentRuns.file(run.id) // once approved: hand it to the bank
 * await client.paymentRuns.confirm(run.id)           // after the bank executed it: everything is marked paid
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
type ApprovalOf = Record<string, unknown> & { id: number; status: 'pending' | 'approved' | 'rejected' | 'cancelled' }
type Query = Record<string, string | number | boolean | undefined>
interface Options {
  idempotencyKey?: string
}

export interface VendorBankAccount {
  vendor: Ref
  account_holder: string
  /** Masked to its last four characters for readers without accounts_payable (`masked`). */
  iban: string | null
  bic: string | null
  account_number: string | null
  routing_number: string | null
  country: string
  status: 'unverified' | 'verified'
  masked: boolean
  changed_by: Person
  changed_at: string
  verified_by: Person | null
  verified_at: string | null
}
export interface VendorBankAccountInput {
  account_holder: string
  iban?: string | null
  bic?: string | null
  account_number?: string | null
  routing_number?: string | null
  country?: string
}
export interface CompanyBankAccount {
  id: number
  name: string
  account_holder: string
  iban: string
  bic: string
  currency: string
  active: boolean
  created_at: string
  updated_at: string
}
export type CompanyBankAccountInput = Pick<
  CompanyBankAccount,
  'name' | 'account_holder' | 'iban' | 'bic' | 'currency'
> & {
  active?: boolean
}
export interface PaymentRequest {
  id: number
  number: string
  status: 'draft' | 'pending_approval' | 'approved' | 'rejected' | 'cancelled' | 'paid'
  requester: Person
  location: Ref
  department: Ref | null
  vendor: Ref
  currency: string
  amount: string
  amount_paid: string
  account: number | null
  due_date: string | null
  invoice_number: string
  reason: string
  budget_warnings: Record<string, unknown>[]
  approvals: ApprovalOf[]
  submitted_at: string | null
  paid_at: string | null
  payment_reference: string | null
  created_at: string
  updated_at: string
}
export interface PaymentRequestInput {
  location: number
  vendor: number
  amount: string
  department?: number | null
  currency?: string
  account?: number | null
  due_date?: string | null
  invoice_number?: string
  reason?: string
}
export interface PaymentRunItem {
  id: number
  document: { type: 'bill' | 'payment_request'; id: number; number: string }
  vendor: Ref
  location: Ref
  amount: string
  reference: string
}
export interface PaymentRun {
  id: number
  number: string
  status: 'draft' | 'pending_approval' | 'approved' | 'confirmed' | 'cancelled'
  bank_account: Ref
  currency: string
  execution_date: string
  items: PaymentRunItem[]
  total: string
  approvals: ApprovalOf[]
  submitted_at: string | null
  confirmed_at: string | null
  created_by: Person
  created_at: string
  updated_at: string
}
export interface PaymentRunInput {
  bank_account: number
  execution_date: string
  /** `amount` defaults to all that is open; `reference` to the invoice number. */
  items: { document: { type: 'bill' | 'payment_request'; id: number }; amount?: string; reference?: string }[]
}

class Api<T> {
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

  async list(query: Query = {}) {
    const { data } = await this.http.request<{ data: T[]; metadata: { pagination: unknown } }>('GET', this.path, {
      query,
    })
    return { data: data.data, pagination: data.metadata.pagination }
  }

  get(id: number): Promise<T> {
    return this.send('GET', `${this.path}${id}/`)
  }
}

/** `/api/v3/bank-accounts/` (the company's) and `/api/v3/vendors/{id}/bank-account/` (a vendor's). */
export class BankAccounts extends Api<CompanyBankAccount> {
  constructor(http: Transport) {
    super(http, '/api/v3/bank-accounts/')
  }
  create(body: CompanyBankAccountInput, options?: Options) {
    return this.send('POST', this.path, body, options)
  }
  replace(id: number, body: CompanyBankAccountInput) {
    return this.send('PUT', `${this.path}${id}/`, body)
  }
  /** A vendor's account; masked without accounts_payable. */
  ofVendor(vendor: number): Promise<VendorBankAccount> {
    return this.send('GET', `/api/v3/vendors/${vendor}/bank-account/`)
  }
  /** Sets a vendor's account: it becomes unverified and accounts payable is e-mailed. */
  setForVendor(vendor: number, body: VendorBankAccountInput): Promise<VendorBankAccount> {
    return this.send('PUT', `/api/v3/vendors/${vendor}/bank-account/`, body)
  }
  /** Verifies a vendor's account; must be someone other than who changed it (409 otherwise). */
  verifyVendor(vendor: number, options?: Options): Promise<VendorBankAccount> {
    return this.send('POST', `/api/v3/vendors/${vendor}/bank-account/verify/`, undefined, options)
  }
}

export class PaymentRequests extends Api<PaymentRequest> {
  constructor(http: Transport) {
    super(http, '/api/v3/payment-requests/')
  }
  create(body: PaymentRequestInput, options?: Options) {
    return this.send('POST', this.path, body, options)
  }
  replace(id: number, body: PaymentRequestInput) {
    return this.send('PUT', `${this.path}${id}/`, body)
  }
  submit(id: number, options?: Options) {
    return this.send('POST', `${this.path}${id}/submit/`, undefined, options)
  }
  cancel(id: number, options?: Options) {
    return this.send('POST', `${this.path}${id}/cancel/`, undefined, options)
  }
}

export class PaymentRuns extends Api<PaymentRun> {
  constructor(http: Transport) {
    super(http, '/api/v3/payment-runs/')
  }
  create(body: PaymentRunInput, options?: Options) {
    return this.send('POST', this.path, body, options)
  }
  replace(id: number, body: PaymentRunInput) {
    return this.send('PUT', `${this.path}${id}/`, body)
  }
  submit(id: number, options?: Options) {
    return this.send('POST', `${this.path}${id}/submit/`, undefined, options)
  }
  cancel(id: number, options?: Options) {
    return this.send('POST', `${this.path}${id}/cancel/`, undefined, options)
  }
  /** After the bank executed the file: every item is marked paid. */
  confirm(id: number, body: { confirmed_at?: string } = {}, options?: Options) {
    return this.send('POST', `${this.path}${id}/confirm/`, body, options)
  }
  /** The ISO 20022 pain.001.001.03 XML of an approved or confirmed run. */
  async file(id: number): Promise<string> {
    const response = await this.http.requestBytes('GET', `${this.path}${id}/file`, {}, 'application/xml')
    return new TextDecoder().decode(response.data)
  }
}
