/**
 * Every console view, fed hostile strings where people's text goes — markup, quotes that would end an
 * attribute, `javascript:` URLs, bidirectional overrides and control characters — writes them as text:
 * nothing becomes markup, no attribute is broken out of, no override reaches the page. A view added without
 * a case here fails the first test, so the list stays complete.
 */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { test } from 'node:test'
import type { Actor } from '../src/access/actor.ts'
import type { Page } from '../src/core/list-query.ts'
import * as account from '../src/console/views/account.ts'
import * as applications from '../src/console/views/applications.ts'
import * as approvalDocuments from '../src/console/views/approval-documents.ts'
import * as approvals from '../src/console/views/approvals.ts'
import * as auth from '../src/console/views/auth.ts'
import * as billForm from '../src/console/views/bill-form.ts'
import * as billLines from '../src/console/views/bill-lines.ts'
import * as bills from '../src/console/views/bills.ts'
import * as format from '../src/console/views/format.ts'
import * as forms from '../src/console/views/forms.ts'
import * as errors from '../src/console/views/errors.ts'
import * as htmlModule from '../src/console/views/html.ts'
import * as layout from '../src/console/views/layout.ts'
import * as lineTable from '../src/console/views/line-table.ts'
import * as locations from '../src/console/views/locations.ts'
import * as lists from '../src/console/views/lists.ts'
import * as orderView from '../src/console/views/order.ts'
import * as orderForm from '../src/console/views/order-form.ts'
import * as orderSections from '../src/console/views/order-sections.ts'
import * as orders from '../src/console/views/orders.ts'
import * as outbox from '../src/console/views/outbox.ts'
import * as receiving from '../src/console/views/receiving.ts'
import * as requestForm from '../src/console/views/request-form.ts'
import * as requests from '../src/console/views/requests.ts'
import * as setup from '../src/console/views/setup.ts'
import * as sso from '../src/console/views/sso.ts'
import * as userForms from '../src/console/views/user-forms.ts'
import * as users from '../src/console/views/users.ts'
import * as vendorImport from '../src/console/views/vendor-import.ts'
import * as vendors from '../src/console/views/vendors.ts'
import * as webhooks from '../src/console/views/webhooks.ts'

const { html, safeHref } = htmlModule

/** Each is put wherever a person's text can go. */
const HOSTILE = [
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  "' onmouseover='alert(1)",
  'javascript:alert(1)',
  'gpj\u202Eexe.jpg',
  'isolate\u2066x\u2069 mark\u200F',
  'nul\u0000 bell\u0007 esc\u001b',
].join(' | ')

const actor: Actor = {
  tenantId: 1,
  domain: HOSTILE,
  userId: 1,
  email: HOSTILE,
  applicationId: null,
  clientId: null,
  permissions: new Set(['superuser', 'nav_setting']),
  channel: 'console',
  requestId: null,
}
const frame = { actor, csrf: HOSTILE }
const pageOf = <T>(rows: T[]): Page<T> => ({
  rows,
  count: rows.length + 40,
  page: { page: 2, pageSize: 10, offset: 10, orderBy: { field: 'id', direction: 'asc' }, search: HOSTILE },
})
const profile = {
  id: 7,
  user: 2,
  email: HOSTILE,
  firstName: HOSTILE,
  lastName: HOSTILE,
  is_active: true,
  pending_invite: true,
  phone: HOSTILE,
  position: HOSTILE,
  role: { id: 1, name: HOSTILE },
  location: { id: 1, name: HOSTILE },
  department: { id: 1, name: HOSTILE, location: { id: 1, name: HOSTILE } },
  approval_delegatee: { id: 9, firstName: HOSTILE, lastName: HOSTILE, email: HOSTILE },
  expected_return_date: HOSTILE,
  pending_approvals_count: { order: 1 },
} as unknown as Parameters<typeof users.userView>[0]['user']
const me = {
  firstName: HOSTILE,
  lastName: HOSTILE,
  email: HOSTILE,
  position: HOSTILE,
  department: { id: 1, name: HOSTILE, branch: { id: 1, name: HOSTILE } },
  domains: { service_domains: [{ name: HOSTILE, subdomain: HOSTILE }] },
  systemaccess_cache: { structured: { [HOSTILE]: { flattened: [HOSTILE], roles: [{ id: 1, name: HOSTILE }] } } },
  pending_approvals_count: { [HOSTILE]: 1 },
} as unknown as Parameters<typeof account.accountView>[0]['account']
const session = { id: 3, created_at: new Date(), last_seen_at: new Date(), user_agent: HOSTILE, address: HOSTILE }
const address = {
  id: 5,
  name: HOSTILE,
  addressLineOne: HOSTILE,
  city: HOSTILE,
  postalCode: HOSTILE,
  state_province: HOSTILE,
  country: HOSTILE,
}
const location = {
  id: 1,
  name: HOSTILE,
  headquarter: true,
  currency: { name: HOSTILE, description: HOSTILE },
  primary_billing_address: address,
  primary_shipping_address: address,
  shipping_addresses: [address],
  department_count: 1,
  active: true,
  external_id: HOSTILE,
  phoneOne: HOSTILE,
  email: HOSTILE,
  url: HOSTILE,
  locationTimezone: HOSTILE,
  legal_entity: { id: 1, name: HOSTILE },
} as unknown as Parameters<typeof locations.locationView>[0]
const vendor = {
  id: 1,
  name: HOSTILE,
  type: 3,
  city: HOSTILE,
  country: HOSTILE,
  contact: HOSTILE,
  active: true,
  external_id: HOSTILE,
  email: [HOSTILE],
  phoneOne: HOSTILE,
  phoneTwo: '',
  url: HOSTILE,
  addressLineOne: HOSTILE,
  addressLineTwo: '',
  state_province: HOSTILE,
  postalCode: HOSTILE,
  comments: HOSTILE,
  dateModified: '2026-11-25T10:00:00.000Z',
  payment_term_ref: { id: 1, name: HOSTILE },
  shipping_term_ref: null,
  payment_method_ref: null,
  shipping_method_ref: null,
} as unknown as Parameters<typeof vendors.vendorView>[0]
const form = { values: { name: HOSTILE, [HOSTILE]: HOSTILE }, errors: { name: [HOSTILE], [HOSTILE]: [HOSTILE] } }
const options = [{ value: HOSTILE, label: HOSTILE }]
/** A roles-at-locations editor with hostile names, values and errors, and two roles at one location. */
const grantsEditorOf = () => ({
  locations: [
    { id: 1, name: HOSTILE },
    { id: 2, name: HOSTILE },
  ],
  roles: options,
  form: {
    values: { 'grant.1.0': HOSTILE, 'grant.1.1': HOSTILE, [HOSTILE]: HOSTILE },
    errors: { 'grant.1.0': [HOSTILE], [HOSTILE]: [HOSTILE] },
  },
  general: HOSTILE,
})
const choices = {
  currency: options,
  payment_term_ref: options,
  shipping_term_ref: options,
  payment_method_ref: options,
  shipping_method_ref: options,
}
const application = {
  client_id: HOSTILE,
  description: HOSTILE,
  owner_email: HOSTILE,
  created_at: '2026-11-25T10:00:00.000Z',
  last_used_at: null,
  revoked_at: null,
}

const endpoint = {
  id: 3,
  url: HOSTILE,
  event_types: [HOSTILE],
  description: HOSTILE,
  enabled: false,
  created_at: '2026-11-25T10:00:00.000Z',
  disabled_reason: HOSTILE,
  disabled_at: '2026-11-25T10:00:00.000Z',
}
const delivery = {
  id: 4,
  event: HOSTILE,
  event_type: HOSTILE,
  status: 'failed' as const,
  attempts: [{ at: HOSTILE, response_status: null, duration_ms: 5, response_body: HOSTILE, error: HOSTILE }],
  next_attempt_at: null,
  created_at: HOSTILE,
}

const person = { id: 4, first_name: HOSTILE, last_name: HOSTILE, email: HOSTILE }
const approval = {
  id: 8,
  request: 9,
  document: { type: 'request', id: 9 },
  kind: 'order',
  step: 1,
  status: 'approved',
  candidates: [person],
  approver: person,
  acted_by: person,
  on_behalf_of: person,
  comment: HOSTILE,
  created_at: '2026-11-25T10:00:00.000Z',
  acted_at: HOSTILE,
} as unknown as Parameters<typeof requests.decidedBy>[0]
const purchase = {
  id: 9,
  uuid: HOSTILE,
  status: HOSTILE,
  requester: person,
  location: { id: 1, name: HOSTILE },
  department: { id: 2, name: HOSTILE },
  currency: HOSTILE,
  description: HOSTILE,
  needed_by: HOSTILE,
  lines: [{ id: 1, description: HOSTILE, vendor: 3, quantity: '2', unit_price: '1.5' }],
  total: HOSTILE,
  approvals: [approval, { ...approval, status: 'pending', acted_by: null, on_behalf_of: null }],
  submitted_at: HOSTILE,
  created_at: '2026-11-25T10:00:00.000Z',
  updated_at: HOSTILE,
} as unknown as Parameters<typeof requests.requestSummary>[0]
const vendorNames = new Map([[3, HOSTILE]])
const orderAddress = {
  name: HOSTILE,
  addressLineOne: HOSTILE,
  city: HOSTILE,
  postalCode: HOSTILE,
  state_province: HOSTILE,
  country: HOSTILE,
}
const order = {
  id: 42,
  number: HOSTILE,
  status: 'issued',
  receipt_status: 'partial',
  billing_status: 'none',
  version: 2,
  vendor: { id: 3, name: HOSTILE },
  location: { id: 1, name: HOSTILE },
  department: null,
  request: 9,
  currency: HOSTILE,
  ship_to: orderAddress,
  bill_to: orderAddress,
  promise_date: HOSTILE,
  notes: HOSTILE,
  lines: [
    {
      id: 5,
      request_line: null,
      description: HOSTILE,
      quantity: HOSTILE,
      unit_price: HOSTILE,
      tax_rate: HOSTILE,
      amount: HOSTILE,
      received_quantity: HOSTILE,
      rejected_quantity: HOSTILE,
      billed_quantity: HOSTILE,
      closed: false,
    },
  ],
  subtotal: HOSTILE,
  tax: HOSTILE,
  total: HOSTILE,
  approvals: [approval],
  pending_revision: { body: HOSTILE, total: HOSTILE, proposed_by: 1, proposed_at: HOSTILE, approvals: [] },
  created_by: person,
  issued_at: HOSTILE,
  sent_at: HOSTILE,
  closed_at: null,
  created_at: '2026-11-25T10:00:00.000Z',
  updated_at: HOSTILE,
} as unknown as Parameters<typeof receiving.receivingView>[0]
const receipt = {
  id: 7,
  number: HOSTILE,
  type: 'receipt',
  status: 'posted',
  purchase_order: 42,
  location: { id: 1, name: HOSTILE },
  received_at: HOSTILE,
  packing_slip: HOSTILE,
  notes: HOSTILE,
  lines: [{ po_line: 5, accepted_quantity: HOSTILE, rejected_quantity: HOSTILE }],
  created_by: person,
  created_at: HOSTILE,
  voided_at: null,
} as unknown as Parameters<typeof receiving.receivingView>[1][0]
const orderRevision = {
  version: 2,
  changed_at: HOSTILE,
  changed_by: person,
  changes: [{ path: HOSTILE, from: HOSTILE, to: HOSTILE }],
}
const orderBill = {
  id: 5,
  number: HOSTILE,
  vendor: { id: 3, name: HOSTILE },
  location: { id: 1, name: HOSTILE },
  currency: HOSTILE,
  purchase_order: 42,
  status: 'draft',
  match_status: 'exception',
  exceptions: [{ line: 1, code: 'line_closed', message: HOSTILE }],
  invoice_date: HOSTILE,
  due_date: null,
  lines: [],
  subtotal: HOSTILE,
  tax: HOSTILE,
  total: HOSTILE,
  paid_at: null,
  payment_reference: HOSTILE,
  approvals: [],
  created_by: person,
  created_at: HOSTILE,
  updated_at: HOSTILE,
} as unknown as Parameters<typeof orderSections.billsSection>[1][0]
/** A bill with a hostile line, exceptions (one hostile, one on another line) and a pending approval. */
const bill = {
  id: 11,
  number: HOSTILE,
  vendor: { id: 3, name: HOSTILE },
  location: { id: 1, name: HOSTILE },
  currency: HOSTILE,
  purchase_order: 42,
  status: 'approved',
  match_status: 'exception',
  exceptions: [
    { line: 6, code: 'quantity_over_received', message: HOSTILE },
    { line: 99, code: 'line_closed', message: HOSTILE },
  ],
  invoice_date: HOSTILE,
  due_date: HOSTILE,
  lines: [
    {
      id: 6,
      po_line: 5,
      description: HOSTILE,
      quantity: HOSTILE,
      unit_price: HOSTILE,
      tax_rate: HOSTILE,
      amount: HOSTILE,
    },
    { id: 7, po_line: null, description: HOSTILE, quantity: '1', unit_price: '2', tax_rate: '0', amount: '2.00' },
  ],
  subtotal: HOSTILE,
  tax: HOSTILE,
  total: HOSTILE,
  paid_at: HOSTILE,
  payment_reference: HOSTILE,
  approvals: [approval, { ...approval, status: 'pending', acted_by: null, on_behalf_of: null }],
  created_by: person,
  created_at: '2026-11-25T10:00:00.000Z',
  updated_at: HOSTILE,
} as unknown as Parameters<typeof bills.billView>[0]['bill']
const billAt = (status: string, match_status = 'exception') =>
  ({ ...bill, status, match_status }) as unknown as typeof bill
const billRows = [
  { po_line: 5, description: HOSTILE, ordered: HOSTILE, received: HOSTILE, billed: HOSTILE },
  { po_line: null, description: HOSTILE },
]
const billForm_ = {
  values: Object.fromEntries(
    [
      'number',
      'invoice_date',
      'due_date',
      ...[0, 1].flatMap((i) => billForm.ROW_FIELDS.map((f) => `lines.${i}.${f}`)),
    ].map((k) => [k, HOSTILE]),
  ),
  errors: { number: [HOSTILE], 'lines.0.quantity': [HOSTILE], 'lines.1.description': [HOSTILE], [HOSTILE]: [HOSTILE] },
}
const requestChoices = {
  location: options,
  department: [{ location: HOSTILE, options }],
  currency: options,
  vendor: options,
}
const lineForm = {
  values: { ...form.values, department: HOSTILE, 'lines.0.quantity': HOSTILE, 'lines.1.vendor': HOSTILE },
  errors: { ...form.errors, department: [HOSTILE], lines: [HOSTILE], 'lines.0.quantity': [HOSTILE] },
}

/** What each view writes with hostile input everywhere it takes text. */
const setupSpec: setup.FormSpec = {
  action: HOSTILE,
  submit: HOSTILE,
  problem: HOSTILE,
  state: form,
  fields: [
    { kind: 'text', name: 'name', label: HOSTILE, hint: HOSTILE, required: true },
    { kind: 'textarea', name: HOSTILE, label: HOSTILE },
    { kind: 'select', name: 'location', label: HOSTILE, options: [{ value: HOSTILE, label: HOSTILE }], empty: HOSTILE },
    { kind: 'checkbox', name: 'active', label: HOSTILE },
    { kind: 'checkboxes', name: HOSTILE, label: HOSTILE, hint: HOSTILE, options: [{ value: HOSTILE, label: HOSTILE }] },
  ],
}

const CASES: Record<string, () => string | htmlModule.Html> = {
  'account.accountView': () =>
    account.accountView(
      {
        account: me,
        sessions: [session],
        current: 9,
        welcome: true,
        revoked: true,
        locationNames: new Map([[HOSTILE, HOSTILE]]),
        delegation: {
          current: { delegatee: person, expected_return_date: HOSTILE },
          users: options,
          form,
          flash: HOSTILE,
        },
      },
      frame,
    ),
  'requests.personName': () => html`${requests.personName(person)}`,
  'orders.statusName': () => html`${orders.statusName(HOSTILE)}`,
  'orders.ordersView': () =>
    orders.ordersView(pageOf([order]), { search: HOSTILE, status: HOSTILE }, frame, {
      path: '/console/orders',
      title: HOSTILE,
      current: 'orders',
    }),
  'orders.money': () => html`${orders.money(HOSTILE, HOSTILE)}`,
  'order.orderView': () =>
    orderView.orderView(
      {
        order,
        revisions: [orderRevision],
        bills: [orderBill],
        can: { purchase: true, receive: true, bill: true },
        decidable: new Set([8]),
        send: { values: { to: HOSTILE, message: HOSTILE }, errors: { to: [HOSTILE], message: [HOSTILE] } },
        sendProblem: HOSTILE,
        flash: HOSTILE,
        problem: HOSTILE,
      },
      frame,
    ),
  'order-sections.linesSection': () => orderSections.linesSection(order, true, HOSTILE),
  'order-sections.revisionsSection': () => orderSections.revisionsSection([orderRevision]),
  'order-sections.billsSection': () =>
    orderSections.billsSection(
      order,
      [orderBill, { ...orderBill, status: HOSTILE, match_status: HOSTILE } as unknown as typeof orderBill],
      true,
    ),
  'order-sections.sendSection': () =>
    orderSections.sendSection(order, { values: { to: HOSTILE }, errors: { to: [HOSTILE] } }, HOSTILE, HOSTILE),
  'order-form.orderFormView': () =>
    orderForm.orderFormView(
      {
        values: {
          ...lineForm.values,
          vendor: HOSTILE,
          version: HOSTILE,
          'lines.0.id': HOSTILE,
          'lines.1.tax_rate': HOSTILE,
        },
        errors: { ...lineForm.errors, vendor: [HOSTILE], 'lines.1.tax_rate': [HOSTILE] },
      },
      2,
      { ...requestChoices, department: [{ location: HOSTILE, options }] },
      { action: HOSTILE, title: HOSTILE, cancel: HOSTILE, submit: HOSTILE },
      frame,
      HOSTILE,
    ),
  'order-form.orderFormView (a revision)': () =>
    orderForm.orderFormView(
      { values: { vendor: HOSTILE, location: HOSTILE, version: HOSTILE }, errors: { department: [HOSTILE] } },
      1,
      requestChoices,
      {
        action: HOSTILE,
        title: HOSTILE,
        cancel: HOSTILE,
        submit: HOSTILE,
        revision: { vendor: HOSTILE, location: HOSTILE },
      },
      frame,
    ),
  'receiving.receivingView': () =>
    receiving.receivingView(
      order,
      [receipt],
      { values: { packing_slip: HOSTILE, 'accepted.5': HOSTILE }, problem: HOSTILE, flash: HOSTILE },
      frame,
    ),
  'approvals.orderDecision': () =>
    approvals.decisionView(
      {
        approval: { ...approval, status: 'pending', document: { type: 'purchase_order', id: 42 } },
        order,
        vendors: vendorNames,
        onBehalfOf: person,
        form,
        problem: HOSTILE,
      } as unknown as Parameters<typeof approvals.decisionView>[0],
      frame,
    ),
  'requests.decidedBy': () => requests.decidedBy(approval),
  'requests.requestSummary': () => requests.requestSummary(purchase, vendorNames),
  'requests.approvalChain': () => requests.approvalChain(purchase.approvals, new Set([8])),
  'requests.requestsView': () =>
    requests.requestsView(pageOf([purchase]), { search: HOSTILE, status: HOSTILE }, frame, true),
  'requests.requestView': () =>
    requests.requestView(
      {
        request: purchase,
        vendors: vendorNames,
        can: { edit: true, submit: true, cancel: true },
        decidable: new Set([8]),
        flash: HOSTILE,
        problem: HOSTILE,
      },
      frame,
    ),
  'request-form.requestFormView': () =>
    requestForm.requestFormView(
      lineForm,
      2,
      requestChoices,
      { action: HOSTILE, title: HOSTILE, cancel: HOSTILE },
      frame,
      HOSTILE,
    ),
  'approvals.approvalsView': () =>
    approvals.approvalsView(
      pageOf([
        { approval, request: purchase, onBehalfOf: person },
        { approval, request: undefined, onBehalfOf: null },
      ]),
      HOSTILE,
      frame,
      HOSTILE,
    ),
  'approvals.decisionView': () =>
    approvals.decisionView(
      {
        approval: { ...approval, status: 'pending' },
        request: purchase,
        vendors: vendorNames,
        onBehalfOf: person,
        form: { values: { comment: HOSTILE }, errors: { comment: [HOSTILE] } },
        problem: HOSTILE,
      },
      frame,
    ),
  'bills.billsView': () =>
    bills.billsView(
      pageOf([bill, billAt('draft', 'not_required')]),
      { search: HOSTILE, status: HOSTILE, match: HOSTILE },
      frame,
      HOSTILE,
    ),
  'bills.billsView (empty)': () =>
    bills.billsView({ ...pageOf([]), count: 0 }, { search: undefined, status: undefined, match: undefined }, frame),
  'bills.billView': () =>
    bills.billView({ bill, payable: true, decidable: new Set([8]), flash: HOSTILE, problem: HOSTILE }, frame),
  'bills.billView (draft, pending, paid)': () =>
    html`${['draft', 'pending_approval', 'paid'].map((status) =>
      bills.billView({ bill: billAt(status), payable: status !== 'paid', decidable: new Set() }, frame),
    )}`,
  'bill-lines.billStatusName': () => html`${billLines.billStatusName(HOSTILE)}`,
  'bill-lines.matchText': () =>
    html`${[billLines.matchText(bill), billLines.matchText(billAt('draft', 'not_required')), billLines.matchText(billAt('paid', HOSTILE))]}`,
  'bill-lines.billLines': () => billLines.billLines(billAt('approved', 'matched')),
  'line-table.lineTable': () =>
    lineTable.lineTable(
      [HOSTILE],
      HOSTILE,
      [
        html`<tr>
          <td>${HOSTILE}</td>
        </tr>`,
      ],
      {
        subtotal: HOSTILE,
        tax: HOSTILE,
        total: HOSTILE,
        currency: HOSTILE,
      },
    ),
  'bill-lines.billSummary': () => billLines.billSummary(bill),
  'bill-form.billFormView': () =>
    billForm.billFormView(
      {
        title: HOSTILE,
        action: HOSTILE,
        back: { href: HOSTILE, label: HOSTILE },
        heading: HOSTILE,
        rows: billRows,
        form: billForm_,
        problem: HOSTILE,
      },
      frame,
    ),
  'approval-documents.documentOf': () =>
    html`${[
      { approval: { ...approval, document: { type: 'bill', id: 11 } }, request: undefined, bill },
      { approval: { ...approval, document: { type: 'bill', id: 11 } }, request: undefined },
      { approval: { ...approval, document: { type: 'purchase_order', id: 42 } }, request: undefined, order },
      { approval: { ...approval, document: { type: 'request', id: 9 } }, request: purchase },
    ].map((row) =>
      Object.values(approvalDocuments.documentOf(row as never)).map((v) =>
        typeof v === 'object' ? JSON.stringify(v) : String(v),
      ),
    )}`,
  'approval-documents.orderSummary': () => approvalDocuments.orderSummary(order),
  'approvals.billDecision': () =>
    approvals.decisionView(
      {
        approval: { ...approval, status: 'pending', document: { type: 'bill', id: 11 } },
        bill,
        vendors: vendorNames,
        onBehalfOf: person,
        form,
        problem: HOSTILE,
      } as unknown as Parameters<typeof approvals.decisionView>[0],
      frame,
    ),
  'approvals.approvalsView (bills and orders)': () =>
    approvals.approvalsView(
      pageOf([
        { approval: { ...approval, document: { type: 'bill', id: 11 } }, request: undefined, bill, onBehalfOf: person },
        { approval: { ...approval, document: { type: 'bill', id: 12 } }, request: undefined, onBehalfOf: null },
        {
          approval: { ...approval, document: { type: 'purchase_order', id: 42 } },
          request: undefined,
          order,
          onBehalfOf: null,
        },
      ] as unknown as Parameters<typeof approvals.approvalsView>[0]['rows']),
      'pending',
      frame,
    ),
  'applications.credentialsView': () =>
    applications.credentialsView({ client_id: HOSTILE, client_secret: HOSTILE }, HOSTILE),
  'applications.applicationsView': () => applications.applicationsView([application], frame, HOSTILE),
  'applications.revokeView': () => applications.revokeView(HOSTILE, frame),
  'auth.signInView': () => auth.signInView(HOSTILE, HOSTILE, layout.notice('alert', HOSTILE)),
  'auth.noCompanyView': () => auth.noCompanyView(),
  'auth.setupView': () => auth.setupView(HOSTILE, HOSTILE, HOSTILE, layout.notice('alert', HOSTILE)),
  'auth.deadLinkView': () => auth.deadLinkView(),
  'locations.locationsView': () => locations.locationsView(pageOf([location]), HOSTILE, frame, HOSTILE),
  'locations.locationView': () => locations.locationView(location, frame, HOSTILE),
  'locations.locationLabels': () => html`${Object.values(locations.locationLabels(2))}`,
  'locations.locationFormView': () =>
    locations.locationFormView(
      form,
      2,
      { currency: options, legal_entity: options },
      { action: HOSTILE, title: HOSTILE, cancel: HOSTILE, etag: HOSTILE },
      frame,
      layout.notice('alert', HOSTILE),
    ),
  'vendors.vendorsView': () => vendors.vendorsView(pageOf([vendor]), HOSTILE, frame, HOSTILE),
  'vendors.vendorView': () => vendors.vendorView(vendor, HOSTILE, frame, HOSTILE),
  'vendors.vendorFormView': () =>
    vendors.vendorFormView(form, choices, { action: HOSTILE, title: HOSTILE, cancel: HOSTILE }, frame),
  'format.when': () => html`${format.when(HOSTILE)}${format.when(new Date())}`,
  'format.browserOf': () => html`${format.browserOf(HOSTILE)}`,
  'format.permissionNames': () => html`${format.permissionNames([HOSTILE, 'nav_setting'])}`,
  'format.userState': () => html`${format.userState({ is_active: true, pending_invite: true })}`,
  'forms.fieldId': () => html`<p id="${forms.fieldId(HOSTILE)}"></p>`,
  'forms.input': () => forms.input({ name: HOSTILE, label: HOSTILE, form, hint: HOSTILE }),
  'forms.textarea': () => forms.textarea({ name: 'name', label: HOSTILE, form }),
  'forms.select': () => forms.select({ name: 'name', label: HOSTILE, form, options, empty: HOSTILE }),
  'forms.checkbox': () => forms.checkbox({ name: HOSTILE, label: HOSTILE, form }),
  'forms.lineEditorLabels': () =>
    html`${Object.values(forms.lineEditorLabels({ name: HOSTILE }, { description: HOSTILE }, 2))}`,
  'forms.departmentSelect': () =>
    forms.departmentSelect(
      { values: { department: HOSTILE }, errors: { department: [HOSTILE] } },
      [{ location: HOSTILE, options: [{ value: HOSTILE, label: HOSTILE }] }],
      HOSTILE,
    ),
  'forms.errorSummary': () => forms.errorSummary(form, { name: HOSTILE }, HOSTILE),
  'lists.emptyState': () => lists.emptyState(HOSTILE),
  'errors.errorView': () => errors.errorView(400, HOSTILE, [{ [HOSTILE]: [HOSTILE] }], frame),
  'html.html': () => html`<p title="${HOSTILE}">${HOSTILE}</p>`,
  'html.escapeHtml': () => `<p title="${htmlModule.escapeHtml(HOSTILE)}">${htmlModule.escapeHtml(HOSTILE)}</p>`,
  'html.safeHref': () => `<a href="${htmlModule.escapeHtml(safeHref(HOSTILE))}">x</a>`,
  'layout.page': () => layout.page({ title: HOSTILE, actor, csrf: HOSTILE, current: HOSTILE }, html`${HOSTILE}`),
  'layout.notice': () => layout.notice('status', HOSTILE),
  'layout.postForm': () => layout.postForm(`/console/${HOSTILE}`, HOSTILE, html`${HOSTILE}`),
  'lists.searchForm': () => lists.searchForm(`/console/${HOSTILE}`, HOSTILE, HOSTILE),
  'lists.pager': () => lists.pager(`/console/${HOSTILE}`, pageOf([1]), HOSTILE),
  'lists.table': () =>
    lists.table(
      [HOSTILE],
      [
        html`<tr>
          <td>${HOSTILE}</td>
        </tr>`,
      ],
    ),
  'users.usersView': () =>
    users.usersView(
      {
        result: pageOf([profile]),
        search: HOSTILE,
        canManage: true,
        roles: [{ id: 1, name: HOSTILE, permissions: [] }],
        locations: [{ id: 2, name: HOSTILE }],
        invited: HOSTILE,
        link: HOSTILE,
        deactivated: true,
      },
      frame,
    ),
  'setup.setupForm': () => setup.setupForm(setupSpec, HOSTILE),
  'setup.setupListView': () =>
    setup.setupListView(
      {
        title: HOSTILE,
        intro: HOSTILE,
        headings: [HOSTILE],
        rows: [
          html`<tr>
            <td>${HOSTILE}</td>
          </tr>`,
        ],
        empty: HOSTILE,
        add: setupSpec,
        flash: HOSTILE,
      },
      frame,
    ),
  'setup.setupEditView': () => setup.setupEditView(HOSTILE, HOSTILE, setupSpec, frame),
  'setup.setupIndexView': () => setup.setupIndexView([{ href: HOSTILE, label: HOSTILE, what: HOSTILE }], frame),
  'setup.activeText': () => setup.activeText(true),
  'sso.ssoView': () =>
    sso.ssoView(
      {
        configured: true,
        redirectUri: HOSTILE,
        scimBaseUrl: HOSTILE,
        roles: [{ value: HOSTILE, label: HOSTILE }],
        tokens: [{ id: 1, description: HOSTILE, created_at: HOSTILE, last_used_at: null }],
      },
      form,
      frame,
      layout.notice('alert', HOSTILE),
      HOSTILE,
    ),
  'sso.ssoRefusedView': () => sso.ssoRefusedView(HOSTILE),
  'outbox.outboxView': () =>
    outbox.outboxView(
      [
        {
          id: 1,
          to_address: HOSTILE,
          subject: HOSTILE,
          body_text: HOSTILE,
          status: 'queued',
          created_at: new Date(),
        },
      ],
      false,
      true,
      frame,
    ),
  'users.deactivateView': () => users.deactivateView(profile, frame),
  'users.sentNotice': () =>
    html`${users.sentNotice('link', HOSTILE, false, HOSTILE)}${users.sentNotice('invitation', HOSTILE, true, undefined)}`,
  'users.userView': () =>
    users.userView(
      {
        user: profile,
        role: { id: 1, name: HOSTILE, permissions: [HOSTILE, 'nav_setting'] },
        canManage: true,
        flash: HOSTILE,
        sent: { what: 'invitation', smtp: false, link: HOSTILE },
        grants: grantsEditorOf(),
      },
      frame,
    ),
  'user-forms.userFormView': () =>
    userForms.userFormView(
      form,
      { roles: options, locations: options, departments: options },
      { id: 7, email: HOSTILE, title: HOSTILE },
      frame,
      HOSTILE,
    ),
  'user-forms.grantFields': () => html`${userForms.grantFields(grantsEditorOf().form, 1)}`,
  'user-forms.grantLabels': () => html`${Object.values(userForms.grantLabels(grantsEditorOf()))}`,
  'user-forms.grantsEditor': () => userForms.grantsEditor(7, grantsEditorOf(), HOSTILE),
  'vendor-import.importView': () => vendorImport.importView(HOSTILE, frame, HOSTILE),
  'vendor-import.previewView': () =>
    vendorImport.previewView(
      [
        { line: 2, values: { name: HOSTILE, email: HOSTILE }, errors: { [HOSTILE]: [HOSTILE] } },
        { line: 3, values: { [HOSTILE]: HOSTILE }, errors: {} },
      ],
      HOSTILE,
      frame,
      HOSTILE,
    ),
  'vendor-import.previewView (ready)': () =>
    vendorImport.previewView([{ line: 2, values: { name: HOSTILE }, errors: {} }], HOSTILE, frame),
  'webhooks.secretView': () => webhooks.secretView(HOSTILE, HOSTILE),
  'webhooks.webhooksView': () => webhooks.webhooksView([endpoint], form, frame, HOSTILE),
  'webhooks.webhookView': () => webhooks.webhookView(endpoint, pageOf([delivery]), frame, HOSTILE),
  'webhooks.deleteWebhookView': () => webhooks.deleteWebhookView(endpoint, frame),
}

const MODULES = {
  account,
  applications,
  'approval-documents': approvalDocuments,
  approvals,
  auth,
  'bill-form': billForm,
  'bill-lines': billLines,
  bills,
  errors,
  format,
  forms,
  html: htmlModule,
  layout,
  'line-table': lineTable,
  lists,
  locations,
  order: orderView,
  'order-form': orderForm,
  'order-sections': orderSections,
  orders,
  outbox,
  receiving,
  'request-form': requestForm,
  requests,
  setup,
  sso,
  users,
  'user-forms': userForms,
  vendors,
  'vendor-import': vendorImport,
  webhooks,
}

test('every view module is listed here, and every function it exports has a hostile case', () => {
  const files = fs.readdirSync(new URL('../src/console/views/', import.meta.url)).map((f) => f.replace(/\.ts$/, ''))
  assert.deepEqual(files.sort(), Object.keys(MODULES).sort(), 'a view module is missing from this test')
  const exported = Object.entries(MODULES).flatMap(([name, module]) =>
    Object.entries(module)
      .filter(([, value]) => typeof value === 'function' && !/^[A-Z]/.test(value.name))
      .map(([key]) => `${name}.${key}`),
  )
  assert.deepEqual(
    exported.filter((key) => !(key in CASES)),
    [],
    'views without a hostile case',
  )
})

for (const [name, render] of Object.entries(CASES)) {
  test(`${name} writes hostile text as text`, () => {
    const out = String(render())
    assert.doesNotMatch(out, /<script>/i, 'a <script> tag came through')
    // Breaking out of an attribute or starting an element needs the raw quote or bracket: both are escaped.
    assert.ok(!out.includes('"><img'), 'a double quote broke out of an attribute')
    assert.ok(!out.includes("' onmouseover='"), 'a single quote broke out of an attribute')
    assert.doesNotMatch(out, /<img\b/i, 'an injected element came through')
    assert.doesNotMatch(out, /href\s*=\s*["']?\s*javascript:/i, 'a javascript: link came through')
    assert.doesNotMatch(out, /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/, 'a bidirectional control came through')
    // eslint-disable-next-line no-control-regex -- finding control characters is the point
    assert.doesNotMatch(out, /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/, 'a control character came through')
  })
}

test('safeHref keeps http(s) and mailto links and turns every other scheme into #', () => {
  assert.equal(safeHref('https://example.com/a?b=1'), 'https://example.com/a?b=1')
  assert.equal(safeHref('mailto:orders@example.com'), 'mailto:orders@example.com')
  for (const bad of [
    'javascript:alert(1)',
    ' JavaScript:alert(1)',
    'data:text/html,<p>',
    'vbscript:x',
    '//evil',
    'no url',
  ])
    assert.equal(safeHref(bad), '#', bad)
})

test('format.when writes an instant as the en-GB medium date and short time in UTC, without Intl', () => {
  const intl = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' })
  for (let month = 0; month < 12; month++)
    for (const [day, hour, minute] of [
      [1, 0, 0],
      [9, 9, 5],
      [28, 23, 59],
    ] as const) {
      const instant = new Date(Date.UTC(2026, month, day, hour, minute, 42))
      const text = format.when(instant).toString()
      assert.match(text, new RegExp(`>${intl.format(instant)} UTC</time>$`), instant.toISOString())
    }
  assert.equal(format.when(null).toString(), '—')
  assert.equal(format.when('not a date', 'never').toString(), 'never')
})
