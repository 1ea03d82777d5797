/**
 * The console's Reports page heads its table with words a person reads ("Vendor", "Amount spent", "31–60 days
 * overdue"), one label map per report beside the definitions (src/reports/labels.ts), the key column named by
 * the grouping; the CSV and XLSX downloads (and the API) keep the machine names integrations read.
 */
import assert from 'node:assert/strict'
import { before, describe, test } from 'node:test'
import { REPORTS } from '../src/reports/definitions.ts'
import { useTestApp } from './helpers/app.ts'
import { issuedOrder, poLine, setUpOrders } from './helpers/orders.ts'
import { adminBrowser, BASE_DOMAIN, type Api, type Browser } from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' })
let console_: Browser

const post = async (api: Api, url: string, payload?: object) => {
  const r = await api({ method: 'POST', url, ...(payload === undefined ? {} : { payload }) })
  assert.ok(r.statusCode < 300, `${url}: ${r.statusCode} ${r.body}`)
  return r.json().data
}

// Every report has a row (an empty report shows no table): an issued order, half received, its received
// half billed and overdue, and a budget.
before(async () => {
  const s = await setUpOrders(ctx)
  const order = await issuedOrder(s, [poLine('4', '10'), poLine('2', '5')])
  await post(s.buyer.api, '/api/v3/receipts/', {
    purchase_order: order.id,
    lines: [{ po_line: order.lines[0].id, accepted_quantity: '2' }],
  })
  const today = new Date().toISOString().slice(0, 10)
  const bill = await post(s.admin, '/api/v3/bills/', {
    number: 'INV-L1',
    purchase_order: order.id,
    invoice_date: '2026-01-01',
    due_date: '2026-01-31',
    lines: [{ po_line: order.lines[0].id, quantity: '2' }],
  })
  assert.equal((await post(s.admin, `/api/v3/bills/${bill.id}/submit/`)).status, 'approved')
  await post(s.admin, '/api/v3/budgets/', {
    name: 'Branch A',
    location: s.A,
    period_start: `${today.slice(0, 4)}-01-01`,
    period_end: `${today.slice(0, 4)}-12-31`,
    amount: '500.00',
    action: 'warn',
  })
  console_ = await adminBrowser(ctx, s.tenant)
})

/** The table's column headings on the page. */
async function headings(query: string): Promise<string[]> {
  const r = await console_.get(`/console/reports?${query}`)
  assert.equal(r.statusCode, 200, r.body)
  const head = /<thead>([\s\S]*?)<\/thead>/.exec(r.body)?.[1] ?? ''
  return [...head.matchAll(/<th scope="col">([\s\S]*?)<\/th>/g)].map((m) => m[1]!.replace(/\s+/g, ' ').trim())
}

describe('report column headings', () => {
  test('each report’s columns read as words; the key column is named by the grouping', async () => {
    assert.deepEqual(await headings('report=spend&group_by=vendor'), ['Vendor', 'Documents', 'Amount spent'])
    assert.deepEqual(await headings('report=spend&group_by=month'), ['Month', 'Documents', 'Amount spent'])
    assert.deepEqual(await headings('report=orders&group_by=user'), [
      'Person',
      'Orders',
      'Ordered',
      'Received',
      'Billed',
    ])
    assert.deepEqual(await headings('report=payables-aging'), [
      'Vendor ID',
      'Vendor',
      'Not yet due',
      '1–30 days overdue',
      '31–60 days overdue',
      '61–90 days overdue',
      'Over 90 days overdue',
      'Total open',
    ])
    assert.deepEqual(await headings('report=commitments'), [
      'Order ID',
      'Order',
      'Vendor ID',
      'Vendor',
      'Order line',
      'Ordered',
      'Received, not billed',
      'Not received',
    ])
    const cycle = await headings('report=cycle-times')
    assert.equal(cycle[0], 'Month')
    assert.ok(cycle.includes('Submit → approval: median hours'), cycle.join(' | '))
    for (const report of REPORTS) {
      const shown = await headings(`report=${report.name}`)
      assert.ok(shown.length > 0, `${report.name} has headings`)
      for (const h of shown) {
        assert.doesNotMatch(h, /_/, `${report.name}: "${h}" is a machine name`)
        assert.match(h, /^[A-Z0-9]/, `${report.name}: "${h}" starts as a heading does`)
      }
    }
  })

  test('the CSV download keeps the machine names', async () => {
    const csv = await console_.get('/console/reports/download?report=payables-aging&format=csv')
    assert.equal(csv.statusCode, 200, csv.body)
    assert.equal(
      csv.body.replace(/^\uFEFF/, '').split(/\r?\n/)[0],
      'vendor_id,vendor_name,current,1_30,31_60,61_90,over_90,total',
    )
    const spend = await console_.get('/console/reports/download?report=spend&group_by=vendor&format=csv')
    assert.equal(spend.body.replace(/^\uFEFF/, '').split(/\r?\n/)[0], 'key_id,key_name,documents,amount')
  })
})
