/**
 * Bills (the bills list, a bill, its lines and the bill form), fed hostile strings wherever people's text goes
 * (helpers/hostile-views.ts), write them as text. console-views-basics.test.ts checks that every function a view
 * module exports has a case in one of the console-views-*.test.ts files.
 */
import * as billForm from '../src/console/views/bill-form.ts'
import * as billLines from '../src/console/views/bill-lines.ts'
import * as bills from '../src/console/views/bills.ts'
import { html } from '../src/console/views/html.ts'
import * as lineTable from '../src/console/views/line-table.ts'
import { bill, billAt, frame, HOSTILE, hostileCases, pageOf } from './helpers/hostile-views.ts'

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

hostileCases({
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
})
