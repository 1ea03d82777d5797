/**
 * What a person reads first and around every document (home, the History, What it led to and approval-steps boxes,
 * reports with their chart, the menu, and the dates and addresses every page writes), fed hostile strings wherever
 * people's text goes (helpers/hostile-views.ts), write them as text. console-views-basics.test.ts checks that every function a view module exports has a case in one of
 * the console-views-*.test.ts files.
 */
import { reportSvg } from '../src/reports/chart.ts'
import { REPORTS } from '../src/reports/definitions.ts'
import * as format from '../src/console/views/format.ts'
import * as history from '../src/console/views/history.ts'
import { html } from '../src/console/views/html.ts'
import * as home from '../src/console/views/home.ts'
import * as layout from '../src/console/views/layout.ts'
import * as reports from '../src/console/views/reports.ts'
import { actor, frame, HOSTILE, hostileCases } from './helpers/hostile-views.ts'

type HistoryRow = Parameters<typeof history.actorName>[0]
const entry = (row: Partial<HistoryRow>): HistoryRow => ({
  id: '1',
  created_at: new Date('2026-11-25T10:00:00.000Z'),
  action: 'request.submit',
  resource_type: HOSTILE,
  changes: { comment: HOSTILE, via: 'console' },
  actor_email: HOSTILE,
  actor_first_name: HOSTILE,
  actor_last_name: HOSTILE,
  client_id: null,
  ...row,
})
/** A person, a nameless person, an application and the operator, through each channel. */
const entries = [
  entry({}),
  entry({ action: HOSTILE, actor_first_name: null, actor_last_name: null, changes: { via: 'cli', comment: '' } }),
  entry({ action: 'order.close_line', actor_email: null, client_id: HOSTILE, changes: { via: 'sso' } }),
  entry({ action: `bill.${HOSTILE}`, actor_email: null, changes: { via: 'scim', comment: HOSTILE } }),
  entry({ action: 'bill.pay', actor_email: null, changes: null }),
]
const ledTo = [
  {
    kind: HOSTILE,
    href: `/console/orders/${HOSTILE}`,
    label: HOSTILE,
    status: HOSTILE,
    amount: HOSTILE,
    currency: HOSTILE,
    date: HOSTILE,
  },
  {
    kind: HOSTILE,
    href: '/console/bills/11',
    label: HOSTILE,
    status: HOSTILE,
    amount: '1200.5',
    currency: null,
    date: new Date('2026-11-25T10:00:00.000Z'),
  },
  {
    kind: HOSTILE,
    href: '/console/receipts/9',
    label: HOSTILE,
    status: HOSTILE,
    amount: null,
    currency: null,
    date: null,
  },
]
const candidate = { first_name: HOSTILE, last_name: HOSTILE, email: HOSTILE }
const preview = {
  total: HOSTILE,
  base_total: HOSTILE,
  steps: [
    { step: 1, candidates: [candidate, { first_name: '', last_name: '', email: HOSTILE }], problem: null },
    { step: 2, candidates: [], problem: HOSTILE },
  ],
  submittable: false,
}

const spend = REPORTS.find((r) => r.name === 'spend')!
/** What the report form offers: every name is one a person typed (a location, a department, a vendor, an account). */
const filterOptions = {
  locations: [{ id: 1, name: HOSTILE }],
  departments: [{ id: 2, name: HOSTILE }],
  vendors: [{ id: 3, name: HOSTILE }],
  accounts: [{ id: 4, name: HOSTILE }],
}
const spendRows = [
  { key: { id: 3, name: HOSTILE }, documents: 2, amount: '1200.50' },
  { key: null, documents: 1, amount: '10.00' },
]
const reportPage = (
  report: (typeof REPORTS)[number],
  rows: Record<string, unknown>[],
): Parameters<typeof reports.reportsView>[0] => ({
  reports: REPORTS,
  report,
  filters: {
    from: HOSTILE,
    to: HOSTILE,
    location: 1,
    department: 2,
    vendor: 3,
    account: 4,
    group_by: report.groupBy?.default ?? null,
    as_of: HOSTILE,
  },
  options: filterOptions,
  rows,
  totals: report.totals(rows),
  currency: HOSTILE,
  // The chart is drawn as the page draws it, from the same rows, its caption naming the currency.
  svg: reportSvg(report, rows, `${report.title}, ${HOSTILE}`, 'report-chart'),
  query: new URLSearchParams({ report: report.name, from: HOSTILE }).toString(),
})

/** An address of every part, in each country order addressLines knows (and a hostile country). */
const addresses = ['United States', 'United Kingdom', 'Germany', HOSTILE].map((country) => ({
  name: HOSTILE,
  addressLineOne: HOSTILE,
  addressLineTwo: HOSTILE,
  city: HOSTILE,
  postalCode: HOSTILE,
  state_province: HOSTILE,
  country,
}))

hostileCases({
  'layout.menuFor': () => html`${layout.menuFor(actor).map((n) => html`<a href="${n.href}">${n.label}</a>`)}`,
  'format.day': () => html`${[format.day(HOSTILE), format.day('2026-11-30'), format.day(null, HOSTILE)]}`,
  'format.addressLines': () => html`${addresses.flatMap(format.addressLines).map((line) => html`<p>${line}</p>`)}`,
  'format.address': () => html`${[...addresses.map((a) => format.address(a)), format.address(null, HOSTILE)]}`,
  'format.addressText': () => html`${addresses.map(format.addressText)}`,
  'home.homeView': () =>
    home.homeView(
      {
        sections: [
          {
            title: HOSTILE,
            none: HOSTILE,
            items: [
              { count: 1, label: HOSTILE, one: HOSTILE, href: `/console/${HOSTILE}` },
              { count: 12345, label: HOSTILE, one: HOSTILE, href: '/console/approvals' },
              { count: 0, label: HOSTILE, href: '/console/bills' },
            ],
          },
          { title: HOSTILE, none: HOSTILE, items: [{ count: 0, label: HOSTILE, href: '/console/orders' }] },
        ],
        spend: {
          month: HOSTILE,
          spent: '1,250.00',
          currency: HOSTILE,
          budgets: [
            {
              id: 1,
              name: HOSTILE,
              amount: '1000.00',
              committed: '0.00',
              spent: '1250.00',
              used_percent: '125.0',
              available: '-250.00',
            },
          ],
        },
        welcome: true,
      },
      frame,
    ),
  'home.homeView (nothing assigned)': () => home.homeView({ sections: [] }, frame),
  'history.actionName': () => html`${['request.submit', 'order.close_line', HOSTILE].map(history.actionName)}`,
  'history.actorName': () => html`${entries.map(history.actorName)}`,
  'history.historyBox': () => history.historyBox(entries),
  'history.historyBox (empty)': () => history.historyBox([]),
  'history.ledToBox': () => history.ledToBox(ledTo, HOSTILE, history.spendLine(2026, new Map([[HOSTILE, HOSTILE]]))),
  'history.ledToBox (empty)': () => history.ledToBox([], HOSTILE),
  'history.spendLine': () =>
    html`${[
      history.spendLine(
        2026,
        new Map([
          [HOSTILE, HOSTILE],
          ['EUR', '1234.5'],
        ]),
      ),
      history.spendLine(2026, new Map()),
    ]}`,
  'history.chainPreviewBox': () => history.chainPreviewBox(preview, HOSTILE),
  'history.chainPreviewBox (one step, none)': () =>
    html`${[
      history.chainPreviewBox({ ...preview, steps: [preview.steps[0]!], submittable: true }, HOSTILE),
      history.chainPreviewBox({ ...preview, steps: [], submittable: true }, HOSTILE),
    ]}`,
  'reports.reportsView': () => reports.reportsView(reportPage(spend, spendRows), frame),
  'reports.reportsView (every report, no rows)': () =>
    REPORTS.map((report) => reports.reportsView(reportPage(report, []), frame)).join(''),
  'reports.spendThisMonthCard': () =>
    html`${[
      reports.spendThisMonthCard({
        month: HOSTILE,
        spent: HOSTILE,
        currency: HOSTILE,
        budgets: [
          {
            id: 1,
            name: HOSTILE,
            amount: HOSTILE,
            committed: HOSTILE,
            spent: HOSTILE,
            used_percent: HOSTILE,
            available: HOSTILE,
          },
          {
            id: 2,
            name: HOSTILE,
            amount: HOSTILE,
            committed: HOSTILE,
            spent: HOSTILE,
            used_percent: null,
            available: `-${HOSTILE}`,
          },
        ],
      }),
      reports.spendThisMonthCard({ month: HOSTILE, spent: HOSTILE, currency: HOSTILE, budgets: [] }),
    ]}`,
})
