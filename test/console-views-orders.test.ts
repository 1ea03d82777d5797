/**
 * Purchase orders (the orders list, an order and its sections, the order form and receiving), fed hostile strings
 * wherever people's text goes (helpers/hostile-views.ts), write them as text. console-views-basics.test.ts checks
 * that every function a view module exports has a case in one of the console-views-*.test.ts files.
 */
import { html } from '../src/console/views/html.ts'
import * as orderForm from '../src/console/views/order-form.ts'
import * as orderSections from '../src/console/views/order-sections.ts'
import * as orderView from '../src/console/views/order.ts'
import * as orders from '../src/console/views/orders.ts'
import * as receiving from '../src/console/views/receiving.ts'
import {
  frame,
  HOSTILE,
  hostileCases,
  lineForm,
  options,
  order,
  pageOf,
  person,
  requestChoices,
} from './helpers/hostile-views.ts'

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

hostileCases({
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
})
