/**
 * Requests and approvals (requests, the request form, the approvals inbox, and decisions on requests, orders and
 * bills), fed hostile strings wherever people's text goes (helpers/hostile-views.ts), write them as text.
 * console-views-basics.test.ts checks that every function a view module exports has a case in one of the
 * console-views-*.test.ts files.
 */
import * as approvalDocuments from '../src/console/views/approval-documents.ts'
import * as approvals from '../src/console/views/approvals.ts'
import { html } from '../src/console/views/html.ts'
import * as requestForm from '../src/console/views/request-form.ts'
import * as requests from '../src/console/views/requests.ts'
import {
  approval,
  bill,
  form,
  frame,
  HOSTILE,
  hostileCases,
  lineForm,
  order,
  pageOf,
  person,
  purchase,
  requestChoices,
  vendorNames,
} from './helpers/hostile-views.ts'

hostileCases({
  'requests.personName': () => html`${requests.personName(person)}`,
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
})
