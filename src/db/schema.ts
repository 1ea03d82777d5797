/**
 * What a row is, table by table: the one statement of persistence (see migrations/ for constraints).
 * `Generated<T>` columns have a database default and may be left out of inserts.
 */
import type { ColumnType, Generated, GeneratedAlways, Insertable, Selectable, Updateable } from 'kysely'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>
type Numeric = ColumnType<string, string | number | undefined, string | number>

export interface TenantTable {
  id: Generated<number>
  domain: string
  name: string
  active: Generated<boolean>
  created_at: Timestamp
}

export interface SystemStateTable {
  key: string
  value: unknown
}

export interface CurrencyTable {
  id: Generated<number>
  tenant_id: number
  name: string
  description: Generated<string>
  rate: Numeric
  base: Generated<boolean>
  active: Generated<boolean>
  /** When it last changed (migration 0021; kept by a trigger). */
  updated_at: Timestamp
}

export interface LegalEntityTable {
  id: Generated<number>
  tenant_id: number
  uuid: Generated<string>
  name: string
  active: Generated<boolean>
  /** When it last changed (migration 0021; kept by a trigger). */
  updated_at: Timestamp
}

export interface LocationTable {
  id: Generated<number>
  tenant_id: number
  name: string
  url: Generated<string>
  logo: Generated<string>
  currency_id: number
  phone_one: string
  fax: Generated<string>
  email: Generated<string>
  language: Generated<number>
  timezone: Generated<string>
  active: Generated<boolean>
  external_id: Generated<string>
  legal_entity_id: number | null
  version: Generated<number>
  created_at: Timestamp
  updated_at: Timestamp
}

export type AddressKind = 'billing' | 'shipping' | 'alternate'

export interface AddressTable {
  id: Generated<number>
  tenant_id: number
  location_id: number
  kind: AddressKind
  name: string
  address_line_one: string
  city: string
  postal_code: string
  state_province: Generated<string>
  country: string
  active: Generated<boolean>
  created_at: Timestamp
}

export interface DepartmentTable {
  id: Generated<number>
  tenant_id: number
  location_id: number
  name: string
  external_id: Generated<string>
  active: Generated<boolean>
  punchout_email: Generated<string>
  /** When it last changed (migration 0021; kept by a trigger). */
  updated_at: Timestamp
}

export const PERMISSION_KEYS = [
  'superuser',
  'accounts_payable',
  'nav_request',
  'nav_approval',
  'nav_purchase',
  'nav_receive',
  'nav_manage',
  'nav_setting',
  'nav_report',
] as const
export type PermissionKey = (typeof PERMISSION_KEYS)[number]

export interface PermissionTable {
  id: number
  key: PermissionKey
  name: string
  description: string
}

export interface RoleTable {
  id: Generated<number>
  tenant_id: number
  name: string
  type: Generated<number>
  tier: Generated<'Basic' | 'Pro'>
  /** When it last changed (migration 0021; kept by a trigger). */
  updated_at: Timestamp
}

export interface RolePermissionTable {
  tenant_id: number
  role_id: number
  permission_id: number
}

export interface UserTable {
  id: Generated<number>
  tenant_id: number
  email: string
  is_active: Generated<boolean>
  pending_invite: Generated<boolean>
  created_at: Timestamp
  updated_at: Timestamp
  /** scrypt hash of the console password (see core/passwords.ts); null until one is set. */
  password_hash: string | null
  password_changed_at: Date | null
  /** Whether approval e-mail reaches them (migration 0014; off on My account). */
  approval_emails: Generated<boolean>
}

export interface UserProfileTable {
  id: Generated<number>
  tenant_id: number
  user_id: number
  first_name: Generated<string>
  last_name: Generated<string>
  phone: Generated<string>
  position: Generated<string>
  address: Generated<string>
  profile_image: Generated<string>
  notifications: Generated<boolean>
  mobile: Generated<boolean>
  chat_user_id: Generated<string>
  is_sso_enabled: Generated<boolean>
  role_id: number
  location_id: number | null
  department_id: number | null
  all_locations: Generated<boolean>
  last_changed_by: number | null
  created_at: Timestamp
  updated_at: Timestamp
}

export interface RoleGrantTable {
  id: Generated<number>
  tenant_id: number
  user_id: number
  /** null: the grant holds system-wide. */
  location_id: number | null
  role_id: number
}

export interface UserLocationTable {
  tenant_id: number
  user_id: number
  location_id: number
  all_departments: Generated<boolean>
}

export interface UserLocationDepartmentTable {
  tenant_id: number
  user_id: number
  location_id: number
  department_id: number
}

export interface UserLegalEntityTable {
  tenant_id: number
  user_id: number
  legal_entity_id: number
}

export const APPROVAL_KINDS = ['order', 'expense', 'travel', 'bill', 'payment'] as const
export type ApprovalKind = (typeof APPROVAL_KINDS)[number]

export type RequestStatus = 'draft' | 'pending' | 'approved' | 'rejected' | 'cancelled'
export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'cancelled'

export interface PlannedStep {
  step: number
  candidates: number[]
  /**
   * The permission its candidates were chosen for, and that deciding it needs at the document's location
   * (access/decision.ts): `nav_approval` when absent (rule steps); a bill's exceptions step: `accounts_payable`.
   */
  permission?: PermissionKey
}

export interface PurchaseRequestTable {
  id: Generated<number>
  tenant_id: number
  uuid: Generated<string>
  status: Generated<RequestStatus>
  requester_id: number
  location_id: number
  department_id: number | null
  currency_id: number
  description: Generated<string>
  needed_by: ColumnType<string | null, string | null | undefined, string | null>
  total: Numeric
  /** The approval steps planned at submit: each step's candidates (user ids), in order. */
  chain: ColumnType<PlannedStep[], string | undefined, string>
  submitted_at: Date | null
  created_at: Timestamp
  updated_at: Timestamp
}

export interface RequestLineTable {
  id: Generated<number>
  tenant_id: number
  request_id: number
  position: number
  description: Generated<string>
  vendor_id: number | null
  quantity: Numeric
  unit_price: Numeric
}

export interface ApprovalRuleTable {
  id: Generated<number>
  tenant_id: number
  location_id: number | null
  min_total: Numeric
  step: number
  approvers: number[]
  active: Generated<boolean>
  created_at: Timestamp
  updated_at: Timestamp
  document: Generated<DocumentType>
}

/** What an approval approves (DECISIONS, "Approval of orders"). */
export type DocumentType =
  'request' | 'purchase_order' | 'bill' | 'expense_report' | 'travel_request' | 'payment_request' | 'payment_run'

export interface RequestApprovalTable {
  id: Generated<number>
  tenant_id: number
  request_id: number | null
  step: number
  kind: Generated<ApprovalKind>
  status: Generated<ApprovalStatus>
  candidates: number[]
  acted_by: number | null
  on_behalf_of: number | null
  comment: Generated<string>
  created_at: Timestamp
  acted_at: Date | null
  document_type: Generated<DocumentType>
  document_id: number
  location_id: number
  submitter_id: number
  /** The whole chain planned for this document's approval: each step's candidates. */
  plan: ColumnType<PlannedStep[], string | undefined, string>
}

export interface DelegationTable {
  id: Generated<number>
  tenant_id: number
  user_id: number
  delegatee_id: number
  expected_return_date: ColumnType<string | null, string | null | undefined, string | null>
  active: Generated<boolean>
  created_at: Timestamp
}

/** Kept per-slot counts of pending approvals naming the user as a candidate (not the requester): migration 0009. */
export interface PendingCountTable {
  tenant_id: number
  user_id: number
  kind: string
  slot: number
  n: number
}

/** Kept per-slot counts of pending approvals (every kind) by their request's location: migration 0009. */
export interface PendingLocationCountTable {
  tenant_id: number
  location_id: number
  slot: number
  n: number
}

/** Payment terms, shipping terms, payment methods and shipping methods share this shape. */
export interface VendorLookupTable {
  id: Generated<number>
  tenant_id: number
  name: string
  description: Generated<string>
  active: Generated<boolean>
  /** When it last changed (migration 0021; kept by a trigger). */
  updated_at: Timestamp
}

export interface VendorTable {
  id: Generated<number>
  tenant_id: number
  name: string
  active: Generated<boolean>
  type: Generated<number>
  address_line_one: Generated<string>
  address_line_two: Generated<string>
  postal_code: Generated<string>
  city: Generated<string>
  state_province: Generated<string>
  country: Generated<string>
  phone_one: Generated<string>
  phone_two: Generated<string>
  fax: Generated<string>
  emails: ColumnType<string[], string[] | undefined, string[]>
  comments: Generated<string>
  contact: Generated<string>
  url: Generated<string>
  external_id: Generated<string>
  currency_id: number | null
  payment_term_id: number | null
  shipping_term_id: number | null
  payment_method_id: number | null
  shipping_method_id: number | null
  tax: number | null
  default_payment_method: number | null
  is_1099_eligible: boolean | null
  overall_score: ColumnType<string | null, string | number | null | undefined, string | number | null>
  is_auto_email_po_enabled: Generated<boolean>
  po_pdf_labels: Generated<string>
  email_configurations: ColumnType<unknown, string | undefined, string>
  created_at: Timestamp
  date_modified: Timestamp
}

/** Per tenant and counted table, a row per writing session (slot: its backend pid; 0: folded), summed (migrations 0003, 0010). */
export interface RowCountTable {
  tenant_id: number
  table_name: string
  slot: number
  n: ColumnType<string, never, never>
}

export interface ApplicationTable {
  id: Generated<number>
  tenant_id: number
  user_id: number
  client_id: string
  secret_hash: Buffer
  description: Generated<string>
  created_at: Timestamp
  secret_version: Generated<number>
  revoked_at: Date | null
  last_used_at: Date | null
}

export interface TokenRevocationTable {
  jti: string
  tenant_id: number
  application_id: number
  expires_at: Date
  revoked_at: Timestamp
}

export interface RateLimitWindowTable {
  tenant_id: number
  application_id: number
  window_start: Date
  n: ColumnType<string, number, number>
}

export interface IdempotencyKeyTable {
  tenant_id: number
  application_id: number
  key: string
  request_hash: string
  status: Generated<'running' | 'done'>
  response_status: number | null
  response_type: string | null
  response_headers: ColumnType<Record<string, string> | null, string | null, string | null>
  response_body: string | null
  created_at: Timestamp
  expires_at: Date
}

export interface AuditLogTable {
  id: Generated<string>
  tenant_id: number
  actor_user_id: number | null
  application_id: number | null
  action: string
  resource_type: string
  resource_id: string
  changes: ColumnType<unknown, string | undefined, never>
  request_id: string | null
  created_at: Timestamp
}

export interface EventTable {
  tenant_id: number
  /** The writing transaction's id (xid8, as text); with `seq`, the event's place in the feed. */
  xid: Generated<string>
  seq: Generated<number>
  type: string
  object: ColumnType<unknown, string, never>
  created_at: Timestamp
  /** The event's number within its tenant (its id spells it), given in feed order below the horizon (0012). */
  n: ColumnType<string | null, never, never>
}

export interface WebhookEndpointTable {
  id: GeneratedAlways<number>
  tenant_id: number
  url: string
  event_types: string[]
  description: Generated<string>
  enabled: Generated<boolean>
  secret: string
  previous_secret: string | null
  previous_secret_until: Date | null
  disabled_reason: string | null
  disabled_at: Date | null
  failing_since: Date | null
  created_at: Timestamp
}

export interface WebhookAttempt {
  at: string
  response_status: number | null
  duration_ms: number
  response_body: string
  error: string | null
}

export interface WebhookDeliveryTable {
  id: GeneratedAlways<number>
  tenant_id: number
  endpoint_id: number
  event_xid: string
  event_seq: number
  event_type: string
  status: Generated<'pending' | 'succeeded' | 'failed'>
  next_attempt_at: Date | null
  scheduled_attempts: Generated<number>
  claim: Generated<number>
  attempts: ColumnType<WebhookAttempt[], string | undefined, string>
  created_at: Timestamp
  /** The event's tenant-local number, once it has one (migration 0012). */
  event_n: ColumnType<string | null, never, never>
}

export interface InvitationTable {
  id: Generated<number>
  tenant_id: number
  user_id: number
  token_hash: Buffer
  expires_at: Date
  accepted_at: Date | null
  created_at: Timestamp
  purpose: Generated<LinkPurpose>
}

/** What a one-time link is for: every kind sets the user's password when used. */
export type LinkPurpose = 'invitation' | 'setup' | 'reset'

export interface SessionTable {
  id: Generated<number>
  tenant_id: number
  user_id: number
  token_hash: Buffer
  created_at: Timestamp
  last_seen_at: Timestamp
  expires_at: Date
  revoked_at: Date | null
  user_agent: Generated<string>
  address: Generated<string>
}

export interface EmailOutboxTable {
  id: Generated<number>
  tenant_id: number
  to_address: string
  subject: string
  body_text: string
  status: Generated<'queued' | 'sent' | 'failed'>
  attempts: Generated<number>
  last_error: string | null
  next_attempt_at: Timestamp
  created_at: Timestamp
  sent_at: Date | null
  attachments: ColumnType<MailAttachment[], string | undefined, string>
}

/** An e-mail attachment as the outbox keeps it. */
export interface MailAttachment {
  filename: string
  content_type: string
  /** base64 */
  content: string
}

export type OrderStatus = 'draft' | 'pending_approval' | 'issued' | 'closed' | 'cancelled'

export interface DocumentNumberTable {
  tenant_id: number
  kind: string
  last: ColumnType<string, string | number, string | number>
}

export interface ProcurementSettingsTable {
  tenant_id: number
  over_receipt_tolerance_percent: Numeric
  po_approval_tolerance_percent: Numeric
  price_tolerance_percent: Numeric
  match_mode: 'two_way' | 'three_way'
  /** Lines of an expense report above this (in the report's currency) need a receipt (migration 0035). */
  receipt_required_over: Numeric
  updated_at: Timestamp
}

type Json<T> = ColumnType<T, string | undefined, string>

export interface PurchaseOrderTable {
  id: Generated<number>
  tenant_id: number
  number: string
  status: Generated<OrderStatus>
  version: Generated<number>
  receipt_status: Generated<'none' | 'partial' | 'full' | 'over'>
  billing_status: Generated<'none' | 'partial' | 'full'>
  vendor_id: number
  location_id: number
  department_id: number | null
  request_id: number | null
  currency_id: number
  ship_to: Json<unknown>
  bill_to: Json<unknown>
  promise_date: ColumnType<string | null, string | null | undefined, string | null>
  notes: Generated<string>
  subtotal: Numeric
  tax: Numeric
  total: Numeric
  approved_total: ColumnType<string | null, string | null | undefined, string | null>
  pending_revision: ColumnType<unknown, string | null | undefined, string | null>
  created_by: number
  issued_at: Date | null
  sent_at: Date | null
  closed_at: Date | null
  created_at: Timestamp
  updated_at: Timestamp
}

export interface PurchaseOrderLineTable {
  id: Generated<number>
  tenant_id: number
  order_id: number
  position: number
  request_line_id: number | null
  description: Generated<string>
  quantity: Numeric
  unit_price: Numeric
  tax_rate: Numeric
  amount: Numeric
  tax: Numeric
  received_quantity: Numeric
  rejected_quantity: Numeric
  billed_quantity: Numeric
  closed: Generated<boolean>
}

export interface PurchaseOrderRevisionTable {
  id: Generated<number>
  tenant_id: number
  order_id: number
  version: number
  changed_by: number
  changes: Json<unknown>
  changed_at: Timestamp
}

export interface ReceiptTable {
  id: Generated<number>
  tenant_id: number
  number: string
  type: 'receipt' | 'return'
  status: Generated<'posted' | 'voided'>
  order_id: number
  location_id: number
  received_at: Timestamp
  packing_slip: Generated<string>
  notes: Generated<string>
  created_by: number
  created_at: Timestamp
  updated_at: Timestamp
  voided_at: Date | null
}

export interface ReceiptLineTable {
  id: Generated<number>
  tenant_id: number
  receipt_id: number
  position: number
  po_line_id: number
  accepted_quantity: Numeric
  rejected_quantity: Numeric
}

/** Where people may sign in with a password while single sign-on is configured. */
export type PasswordLogin = 'allowed' | 'superusers_only' | 'disabled'

export interface SsoConfigTable {
  tenant_id: number
  issuer: string
  client_id: string
  /** The client secret, sealed (sso/seal.ts): the service sends it to the provider, so it is not a hash. */
  client_secret_sealed: string
  scopes: string
  allowed_domains: string[]
  jit_provisioning: boolean
  default_role_id: number | null
  groups_claim: string
  group_roles: ColumnType<{ group: string; role: number; location: number | null }[], string, string>
  password_login: PasswordLogin
  created_at: Timestamp
  updated_at: Timestamp
}

export interface SsoIdentityTable {
  tenant_id: number
  issuer: string
  subject: string
  user_id: number
  created_at: Timestamp
  last_sign_in_at: Date | null
  claim_groups: Generated<string[]>
}

export interface SsoManagedGrantTable {
  tenant_id: number
  user_id: number
  /** 0: tenant-wide (a primary key column cannot be null). */
  location_id: number
  role_id: number
}

export interface ScimTokenTable {
  id: Generated<number>
  tenant_id: number
  token_hash: Buffer
  description: Generated<string>
  created_by: number | null
  created_at: Timestamp
  last_used_at: Date | null
}

export interface ScimUserTable {
  tenant_id: number
  user_id: number
  external_id: string | null
}

export interface ScimGroupTable {
  id: Generated<number>
  tenant_id: number
  display_name: string
  external_id: string | null
  created_at: Timestamp
  updated_at: Timestamp
}

export interface ScimGroupMemberTable {
  tenant_id: number
  group_id: number
  user_id: number
}

export interface BillTable {
  id: Generated<number>
  tenant_id: number
  number: string
  /** The number's key, unique per vendor (migration 0030; bills/number-key.ts). */
  number_key: string
  vendor_id: number
  location_id: number
  currency_id: number
  order_id: number | null
  status: Generated<'draft' | 'pending_approval' | 'approved' | 'paid' | 'cancelled'>
  match_status: Generated<'not_required' | 'matched' | 'exception'>
  exceptions: ColumnType<unknown, string | undefined, string>
  invoice_date: ColumnType<string | null, string | null | undefined, string | null>
  due_date: ColumnType<string | null, string | null | undefined, string | null>
  subtotal: Numeric
  tax: Numeric
  total: Numeric
  paid_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
  payment_reference: string | null
  /** What payment runs have paid of it (migration 0036); the rest of its total is open. */
  amount_paid: Numeric
  created_by: number
  created_at: Timestamp
  updated_at: Timestamp
}

export interface BillLineTable {
  id: Generated<number>
  tenant_id: number
  bill_id: number
  position: number
  po_line_id: number | null
  description: Generated<string>
  quantity: Numeric
  unit_price: Numeric
  tax_rate: Numeric
  amount: Numeric
  tax: Numeric
}

/** A vendor's bank account (migration 0036): one per vendor, unverified after every change. */
export interface VendorBankAccountTable {
  tenant_id: number
  vendor_id: number
  account_holder: string
  iban: string | null
  bic: string | null
  account_number: string | null
  routing_number: string | null
  country: string
  status: 'unverified' | 'verified'
  changed_by: number
  changed_at: ColumnType<Date, Date | string | undefined, Date | string>
  verified_by: number | null
  verified_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
}

/** An account of the company's that payment runs pay from (migration 0036). */
export interface CompanyBankAccountTable {
  id: Generated<number>
  tenant_id: number
  name: string
  account_holder: string
  iban: string
  bic: string
  currency_id: number
  active: Generated<boolean>
  created_at: Timestamp
  updated_at: Timestamp
}

export type PaymentRequestStatus = 'draft' | 'pending_approval' | 'approved' | 'rejected' | 'cancelled' | 'paid'
export interface PaymentRequestTable {
  id: Generated<number>
  tenant_id: number
  number: string
  status: Generated<PaymentRequestStatus>
  requester_id: number
  location_id: number
  department_id: number | null
  vendor_id: number
  currency_id: number
  amount: Numeric
  amount_paid: Numeric
  account_id: number | null
  due_date: ColumnType<string | null, string | null | undefined, string | null>
  invoice_number: Generated<string>
  reason: Generated<string>
  budget_warnings: ColumnType<unknown, string | undefined, string>
  submitted_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
  paid_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
  payment_reference: string | null
  created_at: Timestamp
  updated_at: Timestamp
}

export type PaymentRunStatus = 'draft' | 'pending_approval' | 'approved' | 'confirmed' | 'cancelled'
export interface PaymentRunTable {
  id: Generated<number>
  tenant_id: number
  number: string
  status: Generated<PaymentRunStatus>
  bank_account_id: number
  currency_id: number
  execution_date: ColumnType<string, string, string>
  total: Numeric
  submitted_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
  confirmed_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
  created_by: number
  created_at: Timestamp
  updated_at: Timestamp
}

export interface PaymentRunItemTable {
  id: Generated<number>
  tenant_id: number
  run_id: number
  position: number
  bill_id: number | null
  payment_request_id: number | null
  amount: Numeric
  reference: Generated<string>
}

export interface DB {
  tenants: TenantTable
  system_state: SystemStateTable
  currencies: CurrencyTable
  legal_entities: LegalEntityTable
  locations: LocationTable
  addresses: AddressTable
  departments: DepartmentTable
  permissions: PermissionTable
  roles: RoleTable
  role_permissions: RolePermissionTable
  users: UserTable
  user_profiles: UserProfileTable
  role_grants: RoleGrantTable
  user_locations: UserLocationTable
  user_location_departments: UserLocationDepartmentTable
  user_legal_entities: UserLegalEntityTable
  purchase_requests: PurchaseRequestTable
  request_lines: RequestLineTable
  approval_rules: ApprovalRuleTable
  request_approvals: RequestApprovalTable
  delegations: DelegationTable
  pending_counts: PendingCountTable
  pending_location_counts: PendingLocationCountTable
  payment_terms: VendorLookupTable
  shipping_terms: VendorLookupTable
  payment_methods: VendorLookupTable
  shipping_methods: VendorLookupTable
  vendors: VendorTable
  row_counts: RowCountTable
  applications: ApplicationTable
  token_revocations: TokenRevocationTable
  idempotency_keys: IdempotencyKeyTable
  rate_limit_windows: RateLimitWindowTable
  audit_log: AuditLogTable
  invitations: InvitationTable
  sessions: SessionTable
  email_outbox: EmailOutboxTable
  events: EventTable
  webhook_endpoints: WebhookEndpointTable
  webhook_deliveries: WebhookDeliveryTable
  sso_configs: SsoConfigTable
  sso_identities: SsoIdentityTable
  sso_managed_grants: SsoManagedGrantTable
  scim_tokens: ScimTokenTable
  scim_users: ScimUserTable
  scim_groups: ScimGroupTable
  scim_group_members: ScimGroupMemberTable
  document_numbers: DocumentNumberTable
  procurement_settings: ProcurementSettingsTable
  purchase_orders: PurchaseOrderTable
  purchase_order_lines: PurchaseOrderLineTable
  purchase_order_revisions: PurchaseOrderRevisionTable
  receipts: ReceiptTable
  receipt_lines: ReceiptLineTable
  bills: BillTable
  bill_lines: BillLineTable
  vendor_bank_accounts: VendorBankAccountTable
  company_bank_accounts: CompanyBankAccountTable
  payment_requests: PaymentRequestTable
  payment_runs: PaymentRunTable
  payment_run_items: PaymentRunItemTable
}

export type Tenant = Selectable<TenantTable>
export type Application = Selectable<ApplicationTable>
export type NewVendor = Insertable<VendorTable>
export type VendorUpdate = Updateable<VendorTable>
