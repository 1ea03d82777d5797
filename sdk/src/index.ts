/**
 * A typed client for the procurement service API. Types come from the service's OpenAPI document
 * (`src/generated/openapi.ts`, regenerated with `npm run generate`).
 *
 * @example
 * import { ProcurementClient } from 'procurement-sdk'
 *
 * const client = new ProcurementClient({ baseUrl: 'http://127.0.0.1:3000', clientId, clientSecret, audience: 'procurement-api' })
 * for await (const vendor of client.vendors.iterate({ active: true })) console.log(vendor.name)
 */
import type { components, operations } from './generated/openapi.ts'
import { Events } from './events.ts'
import { Transport, type ApiResponse, type ClientOptions } from './http.ts'
import { Approvals, ApprovalRules, Requests, Roles, UserAccess } from './workflow.ts'
import { ProcurementSettingsApi, PurchaseOrders, Receipts } from './orders.ts'
import { Bills } from './bills.ts'
import { Attachments, Comments } from './attachments.ts'
import { ExpenseReports, TravelRequests } from './expenses.ts'
import { Accounts, Budgets } from './budgets.ts'
import { BankAccounts, PaymentRequests, PaymentRuns } from './payments.ts'
import { Reports } from './reports.ts'

export { OAuthError, ProblemError, type Problem } from './errors.ts'
export {
  Events,
  type AnyEvent,
  type EventObjects,
  type EventType,
  type OtherEvent,
  type ProcurementEvent,
} from './events.ts'
export { verifyWebhook, WebhookVerificationError, type VerifyOptions } from './webhooks.ts'
export type { ApiResponse, ClientOptions } from './http.ts'
export * from './workflow.ts'
export * from './orders.ts'
export * from './bills.ts'
export * from './attachments.ts'
export * from './expenses.ts'
export * from './budgets.ts'
export * from './payments.ts'
export * from './reports.ts'
export type { components, operations, paths } from './generated/openapi.ts'

type Schemas = components['schemas']
export type Vendor = Schemas['Vendor']
export type VendorInput = Schemas['VendorInput']
export type VendorPatch = Schemas['VendorPatch']
export type Location = Schemas['Location']
export type LocationInput = Schemas['LocationInput']
export type UserProfile = Schemas['UserProfile']
export type UserProfileMe = Schemas['UserProfileMe']
export type BatchUser = Schemas['BatchUser']
export type SingleUser = Schemas['SingleUser']
export type Pagination = Schemas['Pagination']
export type Application = Schemas['Application']
export type Credentials = Schemas['Credentials']

/** A list operation's query parameters (page, page_size, order_by, search, filters). */
type QueryOf<K extends keyof operations> = operations[K] extends { parameters: { query?: infer Q } }
  ? NonNullable<Q>
  : never
type Query = Record<string, string | number | boolean | undefined>

/** One page of a list: its items and the pagination metadata. */
export interface Page<T> {
  data: T[]
  pagination: Pagination
}

interface ListEnvelope<T> {
  metadata: { pagination: Pagination }
  data: T[]
}
interface ItemEnvelope<T> {
  data: T
}

/** The list, iterate and get calls every resource has. */
class ReadOnly<T, Q> {
  constructor(
    protected readonly http: Transport,
    protected readonly path: string,
  ) {}

  /**
   * One page.
   * @example const { data, pagination } = await client.vendors.list({ search: 'acme', page_size: 50 })
   */
  async list(query: Q = {} as Q): Promise<Page<T>> {
    const { data } = await this.http.request<ListEnvelope<T>>('GET', this.path, { query: query as Query })
    return { data: data.data, pagination: data.metadata.pagination }
  }

  /**
   * Every item over all pages (100 per request), lazily.
   * @example for await (const vendor of client.vendors.iterate({ active: true })) console.log(vendor.id)
   */
  async *iterate(query: Omit<Q, 'page'> = {} as Omit<Q, 'page'>): AsyncGenerator<T> {
    const base = { page_size: 100, ...(query as Query) }
    for (let page = 1; ; page++) {
      const { data, pagination } = await this.list({ ...base, page } as Q)
      yield* data
      if (pagination.next === null || data.length === 0) return
    }
  }
}

class Items<T, Q> extends ReadOnly<T, Q> {
  /**
   * One item by id.
   * @example const vendor = await client.vendors.get(42)
   */
  async get(id: number): Promise<T> {
    return (await this.http.request<ItemEnvelope<T>>('GET', `${this.path}${id}/`)).data.data
  }
}

/** Vendors: list, iterate, get, create, replace (PUT: omitted fields reset), update (PATCH). */
export class Vendors extends Items<Vendor, QueryOf<'listVendors'>> {
  /**
   * Creates a vendor (needs superuser or nav_purchase). Retries reuse one Idempotency-Key: one vendor.
   * @example const vendor = await client.vendors.create({ name: 'Acme Office Supply', city: 'Chicago' })
   */
  async create(body: VendorInput, options: { idempotencyKey?: string } = {}): Promise<Vendor> {
    return (
      await this.http.request<ItemEnvelope<Vendor>>('POST', this.path, { body, idempotencyKey: options.idempotencyKey })
    ).data.data
  }
  /**
   * Replaces every field; the ones left out take their defaults.
   * @example await client.vendors.replace(42, { ...vendor, city: 'Oslo' })
   */
  async replace(id: number, body: VendorInput): Promise<Vendor> {
    return (await this.http.request<ItemEnvelope<Vendor>>('PUT', `${this.path}${id}/`, { body })).data.data
  }
  /**
   * Changes only the fields sent.
   * @example await client.vendors.update(42, { active: false })
   */
  async update(id: number, body: VendorPatch): Promise<Vendor> {
    return (await this.http.request<ItemEnvelope<Vendor>>('PATCH', `${this.path}${id}/`, { body })).data.data
  }
}

/** A location with the ETag to send back when replacing it. */
export interface Versioned<T> {
  data: T
  etag: string | null
}

/** Locations: list, iterate, get (with its ETag), create, replace (full replacement, optional If-Match). */
export class Locations extends Items<Location, QueryOf<'listLocations'>> {
  /**
   * A location and its ETag.
   * @example const { data, etag } = await client.locations.getVersioned(7)
   */
  async getVersioned(id: number): Promise<Versioned<Location>> {
    const response = await this.http.request<ItemEnvelope<Location>>('GET', `${this.path}${id}/`)
    return { data: response.data.data, etag: response.headers.get('etag') }
  }
  /**
   * Creates a location (needs superuser).
   * @example await client.locations.create({ name: 'Plant 2', currency: 'USD', phoneOne: '+1 555 0100', primary_billing_address: a, primary_shipping_address: a })
   */
  async create(body: LocationInput, options: { idempotencyKey?: string } = {}): Promise<Versioned<Location>> {
    const response = await this.http.request<ItemEnvelope<Location>>('POST', this.path, {
      body,
      idempotencyKey: options.idempotencyKey,
    })
    return { data: response.data.data, etag: response.headers.get('etag') }
  }
  /**
   * Replaces a location completely; with `ifMatch`, only if nobody changed it since you read it (else a
   * ProblemError with type `/problems/precondition-failed`).
   * @example
   * const { data, etag } = await client.locations.getVersioned(7)
   * await client.locations.replace(7, { ...data, currency: data.currency.name, legal_entity: data.legal_entity?.id ?? null, fax: '+1 555 0199' }, { ifMatch: etag })
   */
  async replace(
    id: number,
    body: LocationInput,
    options: { ifMatch?: string | null } = {},
  ): Promise<Versioned<Location>> {
    const headers = options.ifMatch ? { 'if-match': options.ifMatch } : undefined
    const response = await this.http.request<ItemEnvelope<Location>>('PUT', `${this.path}${id}/`, { body, headers })
    return { data: response.data.data, etag: response.headers.get('etag') }
  }
}

/** Users: list, iterate, get, create (one), createBatch (all or nothing), replace, deactivate. */
export class Users extends Items<UserProfile, QueryOf<'listUsers'>> {
  /**
   * Creates one user (single form).
   * @example await client.users.create({ email: 'kim@example.com', firstName: 'Kim', lastName: 'Lee', location: null, department: null })
   */
  async create(body: SingleUser, options: { idempotencyKey?: string } = {}): Promise<UserProfile> {
    return (
      await this.http.request<ItemEnvelope<UserProfile>>('POST', this.path, {
        body,
        idempotencyKey: options.idempotencyKey,
      })
    ).data.data
  }
  /**
   * Creates up to 1,000 users in one transaction: all or none (per-item errors in `ProblemError.errors`).
   * @example await client.users.createBatch([{ email: 'a@example.com' }, { email: 'b@example.com', send_invitation_email: true }])
   */
  async createBatch(body: BatchUser[], options: { idempotencyKey?: string } = {}): Promise<UserProfile[]> {
    return (
      await this.http.request<ItemEnvelope<UserProfile[]>>('POST', this.path, {
        body,
        idempotencyKey: options.idempotencyKey,
      })
    ).data.data
  }
  /**
   * Replaces the single-form fields of a user.
   * @example await client.users.replace(12, { email: 'kim@example.com', firstName: 'Kim', lastName: 'Lee', location: 3, department: 9 })
   */
  async replace(id: number, body: SingleUser): Promise<UserProfile> {
    return (await this.http.request<ItemEnvelope<UserProfile>>('PUT', `${this.path}${id}/`, { body })).data.data
  }
  /**
   * Deactivates a user; their applications stop working.
   * @example await client.users.deactivate(12)
   */
  async deactivate(id: number): Promise<void> {
    await this.http.request('DELETE', `${this.path}${id}/`)
  }
}

/** Client credentials of the tenant (needs superuser or nav_setting). */
export class Applications extends ReadOnly<Application, QueryOf<'listApplications'>> {
  /**
   * One application (never its secret).
   * @example const app = await client.applications.get('pc_…')
   */
  async get(clientId: string): Promise<Application> {
    return (await this.http.request<ItemEnvelope<Application>>('GET', `${this.path}${encodeURIComponent(clientId)}/`))
      .data.data
  }
  /**
   * Creates an application owned by the caller; the secret is in this result only.
   * @example const { client_id, client_secret } = await client.applications.create('Nightly export')
   */
  async create(description = ''): Promise<Credentials> {
    return (await this.http.request<ItemEnvelope<Credentials>>('POST', this.path, { body: { description } })).data.data
  }
  /**
   * Issues a new secret (owner only); the old one and its tokens stop working.
   * @example const { client_secret } = await client.applications.rotate('pc_…')
   */
  async rotate(clientId: string): Promise<Credentials> {
    return (
      await this.http.request<ItemEnvelope<Credentials>>('POST', `${this.path}${encodeURIComponent(clientId)}/rotate/`)
    ).data.data
  }
  /**
   * Revokes an application; its tokens stop working.
   * @example await client.applications.revoke('pc_…')
   */
  async revoke(clientId: string): Promise<void> {
    await this.http.request('DELETE', `${this.path}${encodeURIComponent(clientId)}/`)
  }
}

/**
 * The client. Every call carries a bearer token, obtained on first use and cached until shortly before it
 * expires; calls answered 429 or 503 are retried after Retry-After; a POST carries an Idempotency-Key.
 */
export class ProcurementClient {
  readonly #http: Transport
  readonly vendors: Vendors
  readonly locations: Locations
  readonly users: Users
  readonly applications: Applications
  readonly events: Events
  readonly currencies: ReadOnly<Schemas['Currency'], QueryOf<'listCurrencies'>>
  readonly legalEntities: ReadOnly<Schemas['LegalEntity'], QueryOf<'listLegalEntities'>>
  readonly departments: ReadOnly<Schemas['Department'], QueryOf<'listDepartments'>>
  readonly roles: Roles
  readonly requests: Requests
  readonly approvals: Approvals
  readonly approvalRules: ApprovalRules
  readonly purchaseOrders: PurchaseOrders
  readonly receipts: Receipts
  readonly procurementSettings: ProcurementSettingsApi
  /** Bills: enter, submit (matching), pay, cancel. */
  readonly bills: Bills
  /** Attachments on any document: upload (streamed), list, download, delete. */
  readonly attachments: Attachments
  /** Comments on any document, with @e-mail mentions. */
  readonly comments: Comments
  /** Expense reports: an employee's own spending, with receipts; submit, cancel, reimburse. */
  readonly expenseReports: ExpenseReports
  /** Travel requests: trips approved before they are booked. */
  readonly travelRequests: TravelRequests
  /** Accounts: general-ledger codes for lines. */
  readonly accounts: Accounts
  /** Budgets: figures, ledger entries, and the check while drafting. */
  readonly budgets: Budgets
  /** Bank accounts: the company's, and vendors' (verified by a second person). */
  readonly bankAccounts: BankAccounts
  /** Payment requests: paying a vendor without an order. */
  readonly paymentRequests: PaymentRequests
  /** Payment runs: bills and payment requests paid through one ISO 20022 file. */
  readonly paymentRuns: PaymentRuns
  /** Reports: spend, orders, budgets, commitments, payables aging, cycle times (nav_report). */
  readonly reports: Reports
  /** Per-location grants, re-activation and delegation of users (by user id). */
  readonly userAccess: UserAccess
  readonly paymentTerms: ReadOnly<Schemas['VendorLookup'], QueryOf<'listPaymentTerms'>>
  readonly shippingTerms: ReadOnly<Schemas['VendorLookup'], QueryOf<'listShippingTerms'>>
  readonly paymentMethods: ReadOnly<Schemas['VendorLookup'], QueryOf<'listPaymentMethods'>>
  readonly shippingMethods: ReadOnly<Schemas['VendorLookup'], QueryOf<'listShippingMethods'>>

  /**
   * @example const client = new ProcurementClient({ baseUrl: 'https://acme.procurement.example.com', clientId, clientSecret, audience: 'procurement-api' })
   */
  constructor(options: ClientOptions) {
    const http = (this.#http = new Transport(options))
    this.vendors = new Vendors(http, '/api/v3/vendors/')
    this.locations = new Locations(http, '/api/v2/locations/')
    this.users = new Users(http, '/api/v3/users/')
    this.applications = new Applications(http, '/api/v3/applications/')
    this.events = new Events(http)
    this.currencies = new ReadOnly(http, '/api/v2/currencies/')
    this.legalEntities = new ReadOnly(http, '/api/v3/legal-entities/')
    this.departments = new ReadOnly(http, '/api/v3/departments/')
    this.roles = new Roles(http, '/api/v3/roles/')
    this.requests = new Requests(http, '/api/v3/requests/')
    this.approvals = new Approvals(http, '/api/v3/approvals/')
    this.approvalRules = new ApprovalRules(http, '/api/v3/approval-rules/')
    this.purchaseOrders = new PurchaseOrders(http, '/api/v3/purchase-orders/')
    this.receipts = new Receipts(http, '/api/v3/receipts/')
    this.procurementSettings = new ProcurementSettingsApi(http, '/api/v3/procurement-settings/')
    this.bills = new Bills(http)
    this.attachments = new Attachments(http)
    this.comments = new Comments(http)
    this.expenseReports = new ExpenseReports(http)
    this.travelRequests = new TravelRequests(http)
    this.accounts = new Accounts(http)
    this.budgets = new Budgets(http)
    this.bankAccounts = new BankAccounts(http)
    this.paymentRequests = new PaymentRequests(http)
    this.paymentRuns = new PaymentRuns(http)
    this.reports = new Reports(http)
    this.userAccess = new UserAccess(http, '/api/v3/users/')
    this.paymentTerms = new ReadOnly(http, '/api/v3/payment-terms/')
    this.shippingTerms = new ReadOnly(http, '/api/v3/shipping-terms/')
    this.paymentMethods = new ReadOnly(http, '/api/v3/payment-methods/')
    this.shippingMethods = new ReadOnly(http, '/api/v3/shipping-methods/')
  }

  /**
   * The account of the user the credentials act as: roles and permissions per location, department, approvals.
   * @example const me = await client.me()
   */
  async me(): Promise<UserProfileMe> {
    return (await this.#http.request<ItemEnvelope<UserProfileMe>>('GET', '/api/v3/users/me/')).data.data
  }

  /**
   * The current access token (cached; fetched if needed), e.g. for a call this client does not wrap.
   * @example const token = await client.accessToken()
   */
  accessToken(): Promise<string> {
    return this.#http.accessToken()
  }

  /**
   * Any API call, with the client's token, retries and errors.
   * @example const { data } = await client.request('GET', '/api/v3/roles/', { query: { page_size: 100 } })
   */
  request<T = unknown>(
    method: string,
    path: string,
    options: Parameters<Transport['request']>[2] = {},
  ): Promise<ApiResponse<T>> {
    return this.#http.request<T>(method, path, options)
  }
}
