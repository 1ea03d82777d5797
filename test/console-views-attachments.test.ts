/**
 * The Attachments box, the Comments thread and the expense report's receipt uploads, fed hostile strings
 * wherever people's text goes (file names, descriptions, comments, names, the CSRF token; helpers/hostile-views.ts),
 * write them as text. console-views-basics.test.ts checks that every function a view module exports has a case
 * in one of the console-views-*.test.ts files.
 */
import * as attachments from '../src/console/views/attachments.ts'
import * as expenses from '../src/console/views/expenses.ts'
import { html } from '../src/console/views/html.ts'
import { approval, frame, HOSTILE, hostileCases, person } from './helpers/hostile-views.ts'

const file = {
  id: 5,
  document: { type: 'request', id: 9 },
  filename: HOSTILE,
  content_type: HOSTILE,
  size: 48213,
  sha256: 'a'.repeat(64),
  scan_status: 'clean',
  description: HOSTILE,
  vendor_visible: true,
  uploaded_by: person,
  created_at: '2026-11-25T10:00:00.000Z',
} as unknown as attachments.BoxView['attachments'][number]
const comment = {
  id: 7,
  document: { type: 'request', id: 9 },
  author: person,
  body: `${HOSTILE}\n@${HOSTILE}`,
  mentions: [person],
  created_at: '2026-11-25T10:00:00.000Z',
} as unknown as attachments.BoxView['comments'][number]
const box: attachments.BoxView = {
  type: 'purchase_order',
  id: 9,
  path: `/console/orders/${HOSTILE}`,
  noun: HOSTILE,
  attachments: [file, { ...file, id: 6, document: { type: 'purchase_order', id: 9 }, uploaded_by: null }],
  comments: [comment, { ...comment, id: 8, author: null, mentions: [] }],
  canAct: true,
  deletableAttachments: new Set([5, 6]),
  deletableComments: new Set([7]),
  maxBytes: 26214400,
}
const empty: attachments.BoxView = { ...box, attachments: [], comments: [], canAct: false }
const report = {
  id: 5,
  number: HOSTILE,
  status: 'draft',
  employee: person,
  location: { id: 1, name: HOSTILE },
  department: null,
  currency: HOSTILE,
  travel_request: null,
  title: HOSTILE,
  lines: [88, null].map((receipt, i) => ({
    id: 12 + i,
    date: HOSTILE,
    merchant: i === 0 ? HOSTILE : '',
    description: HOSTILE,
    account: null,
    amount: HOSTILE,
    currency: HOSTILE,
    converted_amount: HOSTILE,
    receipt,
  })),
  total: HOSTILE,
  budget_warnings: [],
  approvals: [approval],
  reimbursed_at: null,
  payment_reference: null,
  submitted_at: null,
  created_at: '2026-11-25T10:00:00.000Z',
  updated_at: HOSTILE,
} as unknown as Parameters<typeof expenses.expenseView>[0]

hostileCases({
  'attachments.typeInWords': () => html`${attachments.typeInWords(HOSTILE)}${attachments.typeInWords('image/png')}`,
  'attachments.sizeInWords': () =>
    html`${[0, 1, 1023, 1024, 48213, 26214400, 5e12].map((n) => attachments.sizeInWords(n)).join(' ')}`,
  'attachments.attachmentsBox': () => attachments.attachmentsBox(box, frame),
  'attachments.attachmentsBox (empty, no right to act)': () => attachments.attachmentsBox(empty, frame),
  'attachments.commentForm': () => attachments.commentForm(HOSTILE, HOSTILE, HOSTILE),
  'attachments.commentsThread': () => attachments.commentsThread(box, frame),
  'attachments.commentsThread (empty, no right to act)': () => attachments.commentsThread(empty, frame),
  'attachments.documentBoxes': () => attachments.documentBoxes(box, frame),
  'attachments.attachmentProblemView': () =>
    attachments.attachmentProblemView(HOSTILE, HOSTILE, { path: HOSTILE, label: HOSTILE, comment: HOSTILE }, frame),
  'attachments.attachmentProblemView (a file)': () =>
    attachments.attachmentProblemView(HOSTILE, HOSTILE, { path: HOSTILE, label: HOSTILE }, frame),
  'expenses.expenseView (receipt uploads)': () =>
    expenses.expenseView(
      report,
      { mine: true, payable: false, decidable: new Set(), images: new Set(), receipts: true },
      frame,
      { flash: HOSTILE, boxes: attachments.documentBoxes(box, frame) },
    ),
})
