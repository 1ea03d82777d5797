/**
 * Money going out (expense reports and travel requests, payment requests, payments, payment runs and vendors' bank
 * details) and goods
 * coming in (a receipt), and how amounts are written (format's money, decimal, unit price and quantity, the lines
editor's running total), fed hostile strings wherever people's text goes (helpers/hostile-views.ts), write them as
 * text. console-views-basics.test.ts checks that every function a view module exports has a case in one of the
 * console-views-*.test.ts files.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import * as expenses from '../src/console/views/expenses.ts'
import * as format from '../src/console/views/format.ts'
import * as forms from '../src/console/views/forms.ts'
import { html } from '../src/console/views/html.ts'
import * as approvalDocuments from '../src/console/views/approval-documents.ts'
import * as paymentRequests from '../src/console/views/payment-requests.ts'
import * as payments from '../src/console/views/payments.ts'
import * as receipt from '../src/console/views/receipt.ts'
import {
  approval,
  bill,
  form,
  frame,
  HOSTILE,
  hostileCases,
  options,
  order,
  pageOf,
  person,
} from './helpers/hostile-views.ts'

/** An expense report with two lines with a receipt (88, 89) and one without. */
const report = {
  id: 5,
  number: HOSTILE,
  status: 'approved',
  employee: person,
  location: { id: 1, name: HOSTILE },
  department: { id: 3, name: HOSTILE },
  currency: HOSTILE,
  travel_request: 3,
  title: HOSTILE,
  lines: [88, 89, null].map((receipt, i) => ({
    id: 12 + i,
    date: HOSTILE,
    merchant: HOSTILE,
    description: HOSTILE,
    account: { id: 1, code: HOSTILE, name: HOSTILE },
    amount: HOSTILE,
    currency: HOSTILE,
    converted_amount: HOSTILE,
    receipt,
  })),
  total: HOSTILE,
  budget_warnings: [{ budget: { id: 1, name: HOSTILE }, available: HOSTILE, requested: HOSTILE, over_by: HOSTILE }],
  approvals: [approval, { ...approval, status: 'pending', acted_by: null, on_behalf_of: null }],
  reimbursed_at: '2026-11-27T09:30:00.000Z',
  payment_reference: HOSTILE,
  submitted_at: '2026-11-25T11:00:00.000Z',
  created_at: '2026-11-25T10:00:00.000Z',
  updated_at: HOSTILE,
} as unknown as Parameters<typeof expenses.expenseView>[0]
/** The report at another status, without a department or a trip, its merchants empty (the description shows). */
const reportAt = (status: string) =>
  ({
    ...report,
    status,
    department: null,
    travel_request: null,
    title: '',
    reimbursed_at: null,
    payment_reference: null,
    lines: report.lines.map((l) => ({ ...l, merchant: '' })),
  }) as unknown as typeof report
/**
 * No receipt is an image in the hostile cases: the inline image's own `"><img` would read as an injected element
 * there. The test at the end shows an image receipt inline, and nothing else as an element.
 */
const images = new Set<number>()
const trip = {
  id: 3,
  number: HOSTILE,
  status: 'pending_approval',
  traveller: person,
  location: { id: 1, name: HOSTILE },
  department: { id: 3, name: HOSTILE },
  purpose: HOSTILE,
  destination: HOSTILE,
  departure_date: HOSTILE,
  return_date: HOSTILE,
  currency: HOSTILE,
  estimates: [
    { category: HOSTILE, amount: HOSTILE, account: null },
    { category: 'lodging', amount: '420', account: { id: 1, code: HOSTILE, name: HOSTILE } },
  ],
  total: HOSTILE,
  expensed_total: HOSTILE,
  budget_warnings: [],
  approvals: [approval],
  submitted_at: '2026-11-25T11:00:00.000Z',
  created_at: '2026-11-25T10:00:00.000Z',
  updated_at: HOSTILE,
} as unknown as Parameters<typeof expenses.travelView>[0]
const placeChoices = { location: options, currency: options }
/** Every field of both forms (their lines and estimates too) holds HOSTILE, and every one has an error. */
const expenseForm = {
  values: { ...form.values, ...Object.fromEntries(Object.keys(expenses.EXPENSE_LABELS).map((k) => [k, HOSTILE])) },
  errors: { ...form.errors, ...Object.fromEntries(Object.keys(expenses.EXPENSE_LABELS).map((k) => [k, [HOSTILE]])) },
}
const travelForm = {
  values: { ...form.values, ...Object.fromEntries(Object.keys(expenses.TRAVEL_LABELS).map((k) => [k, HOSTILE])) },
  errors: { ...form.errors, ...Object.fromEntries(Object.keys(expenses.TRAVEL_LABELS).map((k) => [k, [HOSTILE]])) },
}

type PaymentsPage = Parameters<typeof payments.paymentsView>[0]
/** Two approved bills of one vendor (verified bank details) and one of another (unverified). */
const payable = [
  { ...bill, open: HOSTILE, due_date: HOSTILE },
  { ...bill, id: 12, open: '1200.5', due_date: null },
  { ...bill, id: 13, vendor: { id: 4, name: HOSTILE }, open: HOSTILE },
] as unknown as PaymentsPage['bills']
const bankAccount = {
  vendor: { id: 3, name: HOSTILE },
  account_holder: HOSTILE,
  iban: HOSTILE,
  bic: HOSTILE,
  account_number: HOSTILE,
  routing_number: HOSTILE,
  country: HOSTILE,
  status: 'verified',
  masked: false,
  changed_by: person,
  changed_at: '2026-11-20T08:00:00.000Z',
  verified_by: person,
  verified_at: '2026-11-21T08:00:00.000Z',
} as unknown as NonNullable<Parameters<typeof payments.bankAccountView>[0]['account']>
const unverified = {
  ...bankAccount,
  vendor: { id: 4, name: HOSTILE },
  status: 'unverified',
  iban: null,
  bic: null,
  routing_number: null,
  country: '',
  verified_by: null,
  verified_at: null,
} as unknown as typeof bankAccount
const companyAccount: PaymentsPage['bankAccounts'][number] = {
  id: 1,
  name: HOSTILE,
  account_holder: HOSTILE,
  iban: HOSTILE,
  bic: HOSTILE,
  currency: HOSTILE,
  active: true,
  created_at: '2026-11-01T08:00:00.000Z',
  updated_at: HOSTILE,
}
const run = {
  id: 2,
  number: HOSTILE,
  status: 'approved',
  bank_account: { id: 1, name: HOSTILE },
  currency: HOSTILE,
  execution_date: HOSTILE,
  items: [
    {
      id: 11,
      document: { type: 'bill', id: 11, number: HOSTILE },
      vendor: { id: 3, name: HOSTILE },
      location: { id: 1, name: HOSTILE },
      amount: HOSTILE,
      reference: HOSTILE,
    },
    {
      id: 12,
      document: { type: 'payment_request', id: 7, number: HOSTILE },
      vendor: { id: 4, name: HOSTILE },
      location: { id: 1, name: HOSTILE },
      amount: '2597.88',
      reference: HOSTILE,
    },
  ],
  total: HOSTILE,
  approvals: [approval, { ...approval, status: 'pending', acted_by: null, on_behalf_of: null }],
  submitted_at: '2026-11-25T11:00:00.000Z',
  confirmed_at: '2026-11-28T11:00:00.000Z',
  created_by: person,
  created_at: '2026-11-25T10:00:00.000Z',
  updated_at: HOSTILE,
} as unknown as PaymentsPage['runs'][number]
const runAt = (status: string) => ({ ...run, status, confirmed_at: null }) as unknown as typeof run
const bankFields = ['account_holder', 'iban', 'bic', 'account_number', 'routing_number', 'country']

/** A payment request with every text hostile, paid by a run; `paymentRequestAt` the same at another status. */
const paymentRequest = {
  id: 7,
  number: HOSTILE,
  status: 'paid',
  requester: person,
  location: { id: 1, name: HOSTILE },
  department: { id: 3, name: HOSTILE },
  vendor: { id: 4, name: HOSTILE },
  currency: HOSTILE,
  amount: HOSTILE,
  amount_paid: HOSTILE,
  account: 12,
  due_date: HOSTILE,
  invoice_number: HOSTILE,
  reason: HOSTILE,
  budget_warnings: [],
  approvals: [approval, { ...approval, status: 'pending', acted_by: null, on_behalf_of: null }],
  submitted_at: '2026-11-25T11:00:00.000Z',
  paid_at: '2026-11-28T11:00:00.000Z',
  payment_reference: HOSTILE,
  created_at: '2026-11-25T10:00:00.000Z',
  updated_at: HOSTILE,
} as unknown as Parameters<typeof paymentRequests.paymentRequestView>[0]['request']
const paymentRequestAt = (status: string) =>
  ({
    ...paymentRequest,
    status,
    department: null,
    due_date: null,
    invoice_number: '',
    reason: '',
    submitted_at: null,
    paid_at: null,
    payment_reference: null,
  }) as unknown as typeof paymentRequest
const paymentRequestChoices = {
  location: options,
  department: [{ location: HOSTILE, locationId: HOSTILE, options }],
  vendor: options,
  currency: options,
}
/** Every field of the form holds HOSTILE, and every one has an error. */
const paymentRequestForm = {
  values: Object.fromEntries(Object.keys(paymentRequests.PAYMENT_REQUEST_LABELS).map((k) => [k, HOSTILE])),
  errors: Object.fromEntries(Object.keys(paymentRequests.PAYMENT_REQUEST_LABELS).map((k) => [k, [HOSTILE]])),
}

const goods = {
  id: 9,
  number: HOSTILE,
  type: 'receipt',
  status: 'posted',
  purchase_order: 42,
  location: { id: 1, name: HOSTILE },
  received_at: '2026-11-26T14:00:00.000Z',
  packing_slip: HOSTILE,
  notes: HOSTILE,
  // Line 5 is the order's (its description shows); line 77 is not (shown by its number).
  lines: [
    { po_line: 5, accepted_quantity: HOSTILE, rejected_quantity: HOSTILE },
    { po_line: 77, accepted_quantity: '1200', rejected_quantity: '0' },
  ],
  created_by: person,
  created_at: '2026-11-26T14:05:00.000Z',
  voided_at: null,
} as unknown as Parameters<typeof receipt.receiptView>[0]['receipt']

hostileCases({
  'approval-documents.paymentRequestSummary': () => approvalDocuments.paymentRequestSummary(paymentRequest),
  'approval-documents.paymentRequestSummary (no date, no reason)': () =>
    approvalDocuments.paymentRequestSummary(paymentRequestAt('pending_approval')),
  'approval-documents.paymentRunSummary': () => approvalDocuments.paymentRunSummary(run),
  'approval-documents.documentOf (payments)': () =>
    html`${[
      {
        approval: { ...approval, document: { type: 'payment_request', id: 7 } },
        request: undefined,
        payment: paymentRequest,
      },
      { approval: { ...approval, document: { type: 'payment_run', id: 2 } }, request: undefined, run },
      { approval: { ...approval, document: { type: 'payment_run', id: 2 } }, request: undefined },
    ].flatMap((row) =>
      Object.values(approvalDocuments.documentOf(row as never)).map(
        (v) => html`<p>${typeof v === 'object' ? JSON.stringify(v) : String(v)}</p>`,
      ),
    )}`,
  'format.money': () =>
    html`${[format.money(HOSTILE, HOSTILE), format.money('1234567.5', HOSTILE), format.money(null, HOSTILE)]}`,
  'format.decimal': () => html`${[format.decimal(HOSTILE), format.decimal('-1234.5000'), format.decimal(undefined)]}`,
  'format.unitPrice': () => html`${[format.unitPrice(HOSTILE), format.unitPrice('1299')]}`,
  'format.quantity': () => html`${[format.quantity(HOSTILE), format.quantity('1200.50')]}`,
  'forms.runningTotal': () =>
    html`${[
      forms.runningTotal(
        {
          values: {
            currency: HOSTILE,
            'lines.0.quantity': '2',
            'lines.0.unit_price': '1.5',
            'lines.1.quantity': HOSTILE,
            'lines.1.unit_price': HOSTILE,
          },
          errors: {},
        },
        3,
      ),
      forms.runningTotal({ values: {}, errors: {} }, 1),
    ]}`,
  'expenses.expensesView': () => expenses.expensesView(pageOf([report, reportAt('draft')]), frame, HOSTILE),
  'expenses.expensesView (empty)': () => expenses.expensesView({ ...pageOf([]), count: 0 }, frame),
  'expenses.expenseView': () =>
    expenses.expenseView(report, { mine: true, payable: true, decidable: new Set([8]), images }, frame, {
      flash: HOSTILE,
      problem: HOSTILE,
    }),
  'expenses.expenseView (draft, pending, reimbursed)': () =>
    ['draft', 'pending_approval', 'rejected', 'reimbursed']
      .map((status) =>
        expenses.expenseView(reportAt(status), { mine: true, payable: false, decidable: new Set(), images }, frame, {}),
      )
      .join(''),
  'expenses.expenseFormView': () => expenses.expenseFormView(expenseForm, placeChoices, frame, HOSTILE),
  'expenses.travelListView': () => expenses.travelListView(pageOf([trip]), frame, HOSTILE),
  'expenses.travelListView (empty)': () => expenses.travelListView({ ...pageOf([]), count: 0 }, frame),
  'expenses.travelView': () =>
    expenses.travelView(trip, { mine: true, decidable: new Set([8]) }, frame, { flash: HOSTILE, problem: HOSTILE }),
  'expenses.travelFormView': () => expenses.travelFormView(travelForm, placeChoices, frame, HOSTILE),
  'expenses.expenseSummary': () =>
    html`${[expenses.expenseSummary(report, images), expenses.expenseSummary(reportAt('pending_approval'), images)]}`,
  'expenses.travelSummary': () => expenses.travelSummary(trip),
  'payments.paymentsView': () =>
    payments.paymentsView(
      {
        bills: payable,
        accounts: new Map([
          [3, bankAccount],
          [4, unverified],
        ]),
        bankAccounts: [companyAccount, { ...companyAccount, id: 2, active: false }],
        runs: [run, runAt('draft')],
        today: HOSTILE,
        flash: HOSTILE,
        problem: HOSTILE,
      },
      frame,
    ),
  'payments.paymentsView (payment requests beside the bills)': () =>
    payments.paymentsView(
      {
        bills: [],
        requests: [{ ...paymentRequestAt('approved'), open: HOSTILE, due_date: HOSTILE }],
        accounts: new Map([[4, unverified]]),
        bankAccounts: [companyAccount],
        runs: [],
        today: HOSTILE,
      },
      frame,
    ),
  'payments.paymentsView (nothing yet)': () =>
    payments.paymentsView(
      { bills: [payable[0]!], accounts: new Map(), bankAccounts: [], runs: [], today: HOSTILE },
      frame,
    ),
  'payments.paymentRunView': () =>
    payments.paymentRunView({ run, decidable: new Set([8]), flash: HOSTILE, problem: HOSTILE }, frame),
  'payments.paymentRunView (each status)': () =>
    ['draft', 'pending_approval', 'approved', 'confirmed', 'cancelled', HOSTILE]
      .map((status) => payments.paymentRunView({ run: runAt(status), decidable: new Set() }, frame))
      .join(''),
  'payments.bankAccountView': () =>
    payments.bankAccountView(
      {
        vendor: { id: 4, name: HOSTILE },
        account: unverified,
        payable: true,
        values: Object.fromEntries(bankFields.map((k) => [k, HOSTILE])),
        errors: Object.fromEntries(bankFields.map((k) => [k, [HOSTILE]])),
        flash: HOSTILE,
        problem: HOSTILE,
      },
      frame,
    ),
  'payments.bankAccountView (verified, read only)': () =>
    payments.bankAccountView(
      { vendor: { id: 3, name: HOSTILE }, account: bankAccount, payable: false, values: {} },
      frame,
    ),
  'payments.bankAccountView (none yet)': () =>
    payments.bankAccountView(
      { vendor: { id: 3, name: HOSTILE }, account: undefined, payable: true, values: { iban: HOSTILE } },
      frame,
    ),
  'payment-requests.paymentRequestsView': () =>
    paymentRequests.paymentRequestsView(
      pageOf([paymentRequest, paymentRequestAt(HOSTILE)]),
      { create: true },
      frame,
      HOSTILE,
    ),
  'payment-requests.paymentRequestsView (none, may not make one)': () =>
    paymentRequests.paymentRequestsView({ ...pageOf([]), count: 0 }, { create: false }, frame),
  'payment-requests.paymentRequestView': () =>
    paymentRequests.paymentRequestView(
      {
        request: paymentRequest,
        can: { submit: true, cancel: true },
        decidable: new Set([8]),
        ledTo: html`<p>${HOSTILE}</p>`,
        history: html`<p>${HOSTILE}</p>`,
        flash: HOSTILE,
        problem: HOSTILE,
      },
      frame,
    ),
  'payment-requests.paymentRequestView (each status)': () =>
    ['draft', 'pending_approval', 'approved', 'rejected', 'cancelled', HOSTILE]
      .map((status) =>
        paymentRequests.paymentRequestView(
          { request: paymentRequestAt(status), can: { submit: false, cancel: false }, decidable: new Set() },
          frame,
        ),
      )
      .join(''),
  'payment-requests.paymentRequestFormView': () =>
    paymentRequests.paymentRequestFormView(paymentRequestForm, paymentRequestChoices, frame, HOSTILE),
  'receipt.receiptView': () => receipt.receiptView({ receipt: goods, order, history: html`<p>${HOSTILE}</p>` }, frame),
  'receipt.receiptView (voided return, order hidden)': () =>
    receipt.receiptView(
      {
        receipt: {
          ...goods,
          type: 'return',
          status: 'voided',
          voided_at: '2026-11-27T08:00:00.000Z',
          packing_slip: '',
          notes: '',
        },
        order: undefined,
      },
      frame,
    ),
})

test('an image receipt is shown inline, the one <img> of the page, and the others are links', () => {
  const shown = new Set([88])
  for (const out of [
    expenses.expenseView(report, { mine: true, payable: true, decidable: new Set([8]), images: shown }, frame, {}),
    String(expenses.expenseSummary(report, shown)),
  ]) {
    const image =
      '<a href="/console/expenses/5/receipts/88"><img class="receipt" src="/console/expenses/5/receipts/88" alt="Receipt for line 1" width="160" /></a>'
    assert.equal(out.split(image).length, 2, 'the image receipt is shown inline once')
    assert.doesNotMatch(out.replace(image, ''), /<img\b/i, 'no other element is an image')
    assert.ok(out.includes('<a href="/console/expenses/5/receipts/89">Open the receipt of line 2</a>'), out)
    assert.ok(out.includes('<span class="muted">No receipt</span>'), 'the line without a receipt says so')
  }
})
