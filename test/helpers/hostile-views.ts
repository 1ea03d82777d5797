/**
 * What the console-views-*.test.ts files share: the hostile strings they feed every console view, the records
 * more than one of them puts those strings in, and `hostileCases`, the test that a view writes them as text:
 * nothing becomes markup, no attribute is broken out of, no override reaches the page.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Actor } from '../../src/access/actor.ts'
import type { Page } from '../../src/core/list-query.ts'
import type * as bills from '../../src/console/views/bills.ts'
import type { Html } from '../../src/console/views/html.ts'
import type * as receiving from '../../src/console/views/receiving.ts'
import type * as requests from '../../src/console/views/requests.ts'

/** Each is put wherever a person's text can go. */
export const HOSTILE = [
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  "' onmouseover='alert(1)",
  'javascript:alert(1)',
  'gpj\u202Eexe.jpg',
  'isolate\u2066x\u2069 mark\u200F',
  'nul\u0000 bell\u0007 esc\u001b',
].join(' | ')

export const actor: Actor = {
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
export const frame = { actor, csrf: HOSTILE }
export const pageOf = <T>(rows: T[]): Page<T> => ({
  rows,
  count: rows.length + 40,
  page: { page: 2, pageSize: 10, offset: 10, orderBy: { field: 'id', direction: 'asc' }, search: HOSTILE },
})
export const form = { values: { name: HOSTILE, [HOSTILE]: HOSTILE }, errors: { name: [HOSTILE], [HOSTILE]: [HOSTILE] } }
export const options = [{ value: HOSTILE, label: HOSTILE }]
export const person = { id: 4, first_name: HOSTILE, last_name: HOSTILE, email: HOSTILE }
export const approval = {
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
export const purchase = {
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
export const vendorNames = new Map([[3, HOSTILE]])
const orderAddress = {
  name: HOSTILE,
  addressLineOne: HOSTILE,
  city: HOSTILE,
  postalCode: HOSTILE,
  state_province: HOSTILE,
  country: HOSTILE,
}
export const order = {
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
/** A bill with a hostile line, exceptions (one hostile, one on another line) and a pending approval. */
export const bill = {
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
export const billAt = (status: string, match_status = 'exception') =>
  ({ ...bill, status, match_status }) as unknown as typeof bill
export const requestChoices = {
  location: options,
  department: [{ location: HOSTILE, options }],
  currency: options,
  vendor: options,
  account: options,
}
export const lineForm = {
  values: { ...form.values, department: HOSTILE, 'lines.0.quantity': HOSTILE, 'lines.1.vendor': HOSTILE },
  errors: { ...form.errors, department: [HOSTILE], lines: [HOSTILE], 'lines.0.quantity': [HOSTILE] },
}

/**
 * Views (or what views are made of) called with HOSTILE wherever they take text, each named `<module>.<function>`
 * and, for a second call of one function, a variant in brackets: `'bills.billsView (empty)'`.
 */
export type Cases = Record<string, () => string | Html>

/** One test for each case: what it writes holds none of HOSTILE as markup, and none of its controls. */
export function hostileCases(cases: Cases): void {
  for (const [name, render] of Object.entries(cases)) {
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
}
