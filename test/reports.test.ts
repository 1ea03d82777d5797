/**
 * Reports (DECISIONS, "Reports"): each of the six reports' rows against orders, receipts, bills and a budget
 * this test makes with known amounts (a CAD bill converted at its locked rate, half-up), the four forms —
 * JSON, CSV, XLSX (read back with read-excel-file) and SVG (its title, role and the data it draws) — identical
 * row for row, the filters (400s naming the filter), and who sees what (nav_report per location, 403s).
 */
import assert from 'node:assert/strict'
import { beforeEach, describe, test } from 'node:test'
import { parse } from 'csv-parse/sync'
import { readSheet } from 'read-excel-file/node'
import { useTestApp } from './helpers/app.ts'
import { issuedOrder, poLine, setUpOrders, type OrderSetup } from './helpers/orders.ts'
import type { Person } from './helpers/requests.ts'
import { BASE_DOMAIN, roleWith, type Api } from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' })
const today = new Date().toISOString().slice(0, 10)
const thisMonth = today.slice(0, 7)
const monthEnd = new Date(Date.UTC(Number(today.slice(0, 4)), Number(today.slice(5, 7)), 0)).toISOString().slice(0, 10)

let s: OrderSetup
let clerk: Person
let reporter: Person
let nobody: Person
let o1: { id: number; number: string; lines: { id: number }[] }
let o2: { id: number; number: string; lines: { id: number }[] }
let budgetId: number
let ready = false
let seq = 0

const post = async (api: Api, url: string, payload?: object) => {
  const r = await api({ method: 'POST', url, ...(payload === undefined ? {} : { payload }) })
  assert.ok(r.statusCode < 300, `${url}: ${r.statusCode} ${r.body}`)
  return r.json().data
}
const get = (api: Api, url: string, headers: Record<string, string> = {}) => api({ method: 'GET', url, headers })
async function json(api: Api, url: string) {
  const r = await get(api, url)
  assert.equal(r.statusCode, 200, r.body)
  return r.json<{
    data: Record<string, unknown>[]
    metadata: { filters: object; totals: object; currency: string }
  }>()
}
async function bill(body: object) {
  const created = await post(clerk.api, '/api/v3/bills/', { number: `INV-${++seq}`, ...body })
  const done = await post(clerk.api, `/api/v3/bills/${created.id}/submit/`)
  assert.equal(done.status, 'approved')
  return done
}

beforeEach(async () => {
  if (ready) return
  ready = true
  s = await setUpOrders(ctx)
  const ap = await roleWith(ctx, s.tenant, 'Payables', ['accounts_payable'], 8)
  const reports = await roleWith(ctx, s.tenant, 'Reports', ['nav_report'], 9)
  clerk = await s.user('clerk', ap, s.A, [{ location: s.B, role: ap }])
  reporter = await s.user('reporter', reports, s.A)
  nobody = await s.user('nobody', s.roles.Requester, s.A)
  const cad = await s.admin({ method: 'POST', url: '/api/v2/currencies/', payload: { name: 'CAD', rate: '1.35' } })
  assert.equal(cad.statusCode, 201, cad.body)

  // O1 at A from Acme: 10 × 5 = 50.00 and 3 × 1.005 = 3.02; all of line 1 received and billed.
  o1 = await issuedOrder(s, [poLine('10', '5'), poLine('3', '1.005')])
  await post(s.buyer.api, '/api/v3/receipts/', {
    purchase_order: o1.id,
    received_at: '2026-11-03T12:00:00Z',
    lines: [{ po_line: o1.lines[0]!.id, accepted_quantity: '10' }],
  })
  await bill({
    purchase_order: o1.id,
    invoice_date: '2026-11-20',
    due_date: '2026-12-20',
    lines: [{ po_line: o1.lines[0]!.id, quantity: '10' }],
  })
  // O2 at A from Acme: 4 × 10 = 40.00, 1 received, nothing billed.
  o2 = await issuedOrder(s, [poLine('4', '10')])
  await post(s.buyer.api, '/api/v3/receipts/', {
    purchase_order: o2.id,
    received_at: '2026-11-04T00:00:00Z',
    lines: [{ po_line: o2.lines[0]!.id, accepted_quantity: '1' }],
  })
  // Free bills of Globex: 2 × 12.50 at A (due 2026-10-15), 100.00 at B, and 10.00 CAD at A (7.407… → 7.41 USD).
  const free = (location: number, quantity: string, price: string, invoice: string, due: string, extra = {}) =>
    bill({
      vendor: s.vendor2,
      location,
      invoice_date: invoice,
      due_date: due,
      lines: [{ description: 'Service', quantity, unit_price: price }],
      ...extra,
    })
  await free(s.A, '2', '12.50', '2026-10-01', '2026-10-15')
  await free(s.B, '1', '100', '2026-10-05', '2026-10-05')
  await free(s.A, '1', '10', '2026-10-02', '2027-01-31', { currency: 'CAD' })

  // Known timestamps for the cycle times: both orders issued 2026-11-02 00:00 UTC.
  await ctx.database.db
    .updateTable('purchase_orders')
    .set({ issued_at: new Date('2026-11-02T00:00:00Z') })
    .where('tenant_id', '=', s.tenant.tenantId)
    .where('id', 'in', [o1.id, o2.id])
    .execute()

  const budget = await post(s.admin, '/api/v3/budgets/', {
    name: 'Branch A',
    location: s.A,
    period_start: `${thisMonth}-01`,
    period_end: monthEnd,
    amount: '200.00',
    action: 'warn',
  })
  budgetId = budget.id
})

/** A JSON row flattened the way the CSV and XLSX columns are: `{id, name}` → `x_id`, `x_name`, spans per field. */
function flatten(row: Record<string, unknown>): Record<string, string | number | boolean | null> {
  const out: Record<string, string | number | boolean | null> = {}
  for (const [name, value] of Object.entries(row)) {
    if (value === null && name === 'key') Object.assign(out, { key_id: null, key_name: null })
    else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value as Record<string, string | number | null>)) out[`${name}_${k}`] = v
    } else out[name] = value as string | number | boolean | null
  }
  return out
}

const REPORTS = ['spend', 'orders', 'budgets', 'commitments', 'payables-aging', 'cycle-times']

describe('reports', () => {
  test('spend by vendor, month, location: the ledger’s spent entries at their locked rates', async () => {
    const byVendor = await json(s.admin, '/api/v3/reports/spend/')
    assert.deepEqual(byVendor.data, [
      { key: { id: s.vendor2, name: 'Globex' }, documents: 3, amount: '132.41' }, // 25.00 + 100.00 + 7.41
      { key: { id: s.vendor, name: 'Acme Supplies' }, documents: 1, amount: '50.00' },
    ])
    assert.deepEqual(byVendor.metadata.totals, { documents: 4, amount: '182.41' })
    assert.equal(byVendor.metadata.currency, 'USD')
    assert.deepEqual(byVendor.metadata.filters, {
      from: null,
      to: null,
      location: null,
      department: null,
      vendor: null,
      account: null,
      group_by: 'vendor',
    })

    const byMonth = await json(s.admin, '/api/v3/reports/spend/?group_by=month')
    assert.deepEqual(byMonth.data, [
      { key: { id: '2026-10', name: 'October 2026' }, documents: 3, amount: '132.41' },
      {
        key: { id: thisMonth, name: byMonth.data[1]!.key && (byMonth.data[1]!.key as { name: string }).name },
        documents: 1,
        amount: '50.00',
      },
    ])
    assert.match((byMonth.data[1]!.key as { name: string }).name, /^[A-Z][a-z]+ \d{4}$/)

    const october = await json(s.admin, '/api/v3/reports/spend/?group_by=location&from=2026-10-01&to=2026-10-31')
    assert.deepEqual(
      october.data.map((r) => [(r.key as { id: number }).id, r.documents, r.amount]),
      [
        [s.B, 1, '100.00'],
        [s.A, 2, '32.41'],
      ],
    )
    const oneDay = await json(s.admin, '/api/v3/reports/spend/?from=2026-10-02&to=2026-10-02')
    assert.deepEqual(oneDay.data, [{ key: { id: s.vendor2, name: 'Globex' }, documents: 1, amount: '7.41' }])
    const acme = await json(s.admin, `/api/v3/reports/spend/?vendor=${s.vendor}&group_by=user`)
    assert.equal(acme.data.length, 1)
    assert.equal((acme.data[0]!.key as { name: string }).name, 'clerk Tester')
    assert.equal(acme.data[0]!.amount, '50.00')
    // A bill without an order has no department: every spent entry here groups under key null.
    const byDepartment = await json(s.admin, '/api/v3/reports/spend/?group_by=department')
    assert.deepEqual(byDepartment.data, [{ key: null, documents: 4, amount: '182.41' }])
  })

  test('orders, commitments and payables aging from the documents', async () => {
    const orders = await json(s.admin, '/api/v3/reports/orders/')
    assert.deepEqual(orders.data, [
      { key: { id: s.vendor, name: 'Acme Supplies' }, orders: 2, ordered: '93.02', received: '60.00', billed: '50.00' },
    ])
    const none = await json(s.admin, '/api/v3/reports/orders/?to=2026-11-01')
    assert.deepEqual(none.data, [])
    assert.deepEqual(none.metadata.totals, { orders: 0, ordered: '0.00', received: '0.00', billed: '0.00' })

    const commitments = await json(s.admin, '/api/v3/reports/commitments/')
    assert.deepEqual(commitments.data, [
      {
        order: { id: o1.id, number: o1.number },
        vendor: { id: s.vendor, name: 'Acme Supplies' },
        line: o1.lines[1]!.id,
        ordered: '3.02',
        received_not_billed: '0.00',
        not_received: '3.02',
      },
      {
        order: { id: o2.id, number: o2.number },
        vendor: { id: s.vendor, name: 'Acme Supplies' },
        line: o2.lines[0]!.id,
        ordered: '40.00',
        received_not_billed: '10.00',
        not_received: '30.00',
      },
    ])

    const aging = await json(s.admin, '/api/v3/reports/payables-aging/?as_of=2026-12-31')
    const zero = { current: '0.00', '1_30': '0.00', '31_60': '0.00', '61_90': '0.00', over_90: '0.00' }
    assert.deepEqual(aging.data, [
      // 7.41 due 2027-01-31; 25.00 due 2026-10-15 (77 days) and 100.00 due 2026-10-05 (87 days)
      { vendor: { id: s.vendor2, name: 'Globex' }, ...zero, current: '7.41', '61_90': '125.00', total: '132.41' },
      { vendor: { id: s.vendor, name: 'Acme Supplies' }, ...zero, '1_30': '50.00', total: '50.00' }, // 11 days
    ])
    const later = await json(s.admin, `/api/v3/reports/payables-aging/?as_of=2027-01-15&vendor=${s.vendor2}`)
    assert.deepEqual(later.data, [
      { vendor: { id: s.vendor2, name: 'Globex' }, ...zero, current: '7.41', over_90: '125.00', total: '132.41' },
    ])
    const defaults = (await json(s.admin, '/api/v3/reports/payables-aging/')).metadata.filters as { as_of: string }
    assert.equal(defaults.as_of, today)
  })

  test('budgets: each budget overlapping the range with the ledger’s figures, as the budget itself reads', async () => {
    const own = (await get(s.admin, `/api/v3/budgets/${budgetId}/`)).json().data
    const report = await json(s.admin, `/api/v3/reports/budgets/?from=${today}&to=${today}`)
    const row = report.data.find((r) => (r.budget as { id: number }).id === budgetId)
    assert.ok(row, `the budget is a row: ${JSON.stringify(report.data)} ${JSON.stringify(own)}`)
    assert.deepEqual(row, {
      budget: { id: budgetId, name: 'Branch A' },
      amount: '200.00',
      pending: own.pending,
      committed: own.committed,
      spent: own.spent,
      available: own.available,
      used_percent: own.used_percent,
    })
    // Bill 1 (50.00) is spent this month; the open order lines (3.02 and 40.00) are committed.
    assert.equal(row.spent, '50.00')
    assert.equal(row.committed, '43.02')
    assert.equal(row.available, '106.98')
    assert.equal(row.used_percent, '46.5') // 93.02 / 200 = 46.51 %
    assert.deepEqual((await json(s.admin, '/api/v3/reports/budgets/?to=2026-01-01')).data, [])
    assert.deepEqual((await json(s.admin, `/api/v3/reports/budgets/?location=${s.B}`)).data, [])
  })

  test('cycle times: median and p90 hours from the documents’ timestamps; null hours when none', async () => {
    const report = await json(s.admin, '/api/v3/reports/cycle-times/?from=2026-11-01&to=2026-11-30')
    assert.equal(report.metadata.filters && (report.metadata.filters as { group_by: string }).group_by, 'month')
    const november = report.data.find((r) => (r.key as { id: string } | null)?.id === '2026-11')
    assert.ok(november, JSON.stringify(report.data))
    assert.deepEqual(november.key, { id: '2026-11', name: 'November 2026' })
    // Issued 2026-11-02 00:00; received 2026-11-03 12:00 (36 h) and 2026-11-04 00:00 (48 h).
    assert.deepEqual(november.order_to_receipt, { count: 2, median_hours: 42, p90_hours: 46.8 })
    assert.deepEqual(november.bill_approval_to_paid, { count: 0, median_hours: null, p90_hours: null })
    const byLocation = await json(
      s.admin,
      '/api/v3/reports/cycle-times/?group_by=location&from=2026-11-01&to=2026-11-30',
    )
    assert.deepEqual(
      byLocation.data.map((r) => r.key),
      [{ id: s.A, name: (byLocation.data[0]!.key as { name: string }).name }],
    )
  })

  test('the four forms carry the same rows: JSON, CSV, XLSX and SVG', async () => {
    for (const name of REPORTS) {
      const query = name === 'payables-aging' ? '?as_of=2026-12-31' : name === 'cycle-times' ? '?from=2026-11-01' : ''
      const url = `/api/v3/reports/${name}/${query}`
      const { data } = await json(s.admin, url)
      assert.ok(data.length > 0, `${name} has rows`)
      const flat = data.map(flatten)

      const csv = await get(s.admin, url, { accept: 'text/csv' })
      assert.equal(csv.statusCode, 200, csv.body)
      assert.match(String(csv.headers['content-type']), /^text\/csv/)
      const table = parse<Record<string, string>>(csv.body, { columns: true })
      assert.equal(table.length, flat.length, name)
      const headers = Object.keys(table[0]!)
      table.forEach((cells, i) => {
        for (const h of headers) {
          const expected = flat[i]![h]
          assert.ok(h in flat[i]!, `${name}: column ${h} is a field of the JSON row`)
          assert.equal(cells[h], expected === null ? '' : String(expected), `${name} row ${i} ${h}`)
        }
      })
      const sameCsv = await get(s.admin, `${url}${query ? '&' : '?'}format=csv`)
      assert.equal(sameCsv.body, csv.body)

      const xlsx = await s.admin({ method: 'GET', url: `${url}${query ? '&' : '?'}format=xlsx` })
      assert.equal(xlsx.statusCode, 200)
      assert.match(String(xlsx.headers['content-type']), /spreadsheetml/)
      const sheet = (await readSheet(xlsx.rawPayload)) as unknown[][]
      assert.deepEqual(sheet[0], headers, `${name}: XLSX header`)
      assert.equal(sheet.length - 1, flat.length)
      sheet.slice(1).forEach((cells, i) => {
        headers.forEach((h, c) => {
          const expected = flat[i]![h]
          const cell = cells[c]
          if (expected === null) assert.equal(cell, null, `${name} ${h}`)
          else if (typeof expected === 'number' || (/^-?\d+\.\d+$/.test(String(expected)) && h !== 'key_id')) {
            assert.equal(typeof cell, 'number', `${name} row ${i} ${h} is a number cell`)
            assert.equal(cell, Number(expected), `${name} row ${i} ${h}`)
          } else assert.equal(String(cell), String(expected), `${name} row ${i} ${h}`)
        })
      })

      const svg = await get(s.admin, `${url}${query ? '&' : '?'}format=svg`)
      assert.equal(svg.statusCode, 200)
      assert.match(String(svg.headers['content-type']), /^image\/svg\+xml/)
      assert.match(svg.body, /^<svg[^>]* role="img"/)
      assert.match(svg.body, /<svg[^>]* viewBox="0 0 \d+ \d+"/)
      assert.match(svg.body, /<title id="[^"]+">[^<]+<\/title>/)
      const drawn = JSON.parse(/<metadata[^>]*>(.*?)<\/metadata>/s.exec(svg.body)![1]!) as {
        categories: string[]
        series: { name: string; values: (number | null)[] }[]
      }
      assert.equal(drawn.categories.length, data.length, `${name}: one bar group per row`)
      const first = drawn.series[0]!.values
      const measure = {
        spend: 'amount',
        orders: 'ordered',
        budgets: 'spent',
        commitments: 'received_not_billed',
        'payables-aging': 'current',
        'cycle-times': 'submit_to_approval_median_hours',
      }[name]!
      assert.deepEqual(
        first,
        flat.map((r) => (r[measure] === null ? null : Number(r[measure]))),
        `${name}: bars`,
      )
    }
  })

  test('CSV: amounts are numbers (a negative one too), text follows the formula rule', async () => {
    const evil = await s.admin({
      method: 'POST',
      url: '/api/v3/vendors/',
      payload: { name: '=HYPERLINK("x")', email: [] },
    })
    assert.equal(evil.statusCode, 201, evil.body)
    await bill({
      vendor: evil.json().data.id,
      location: s.B,
      invoice_date: '2026-09-01',
      due_date: '2026-09-30',
      lines: [{ description: 'Credit', quantity: '1', unit_price: '5' }],
    })
    const csv = await get(s.admin, '/api/v3/reports/spend/?format=csv&from=2026-09-01&to=2026-09-30')
    assert.equal(csv.body, `key_id,key_name,documents,amount\r\n${evil.json().data.id},"'=HYPERLINK(""x"")",1,5.00\r\n`)
    // A budget over its amount: `available` is negative, a number in CSV, never prefixed.
    const small = await post(s.admin, '/api/v3/budgets/', {
      name: '-Tiny',
      location: s.A,
      period_start: `${thisMonth}-01`,
      period_end: monthEnd,
      amount: '10.00',
      action: 'warn',
    })
    const budgets = await get(s.admin, `/api/v3/reports/budgets/?format=csv&from=${today}&to=${today}`)
    const line = budgets.body.split('\r\n').find((l) => l.startsWith(`${small.id},`))
    assert.equal(line, `${small.id},'-Tiny,10.00,0.00,43.02,50.00,-83.02,930.2`)
    await s.admin({ method: 'DELETE', url: `/api/v3/budgets/${small.id}/` })
  })

  test('filters: a bad one is a 400 naming it; nothing else changes', async () => {
    const cases: [string, string][] = [
      ['spend/?from=2026-13-01', 'from'],
      ['spend/?to=yesterday', 'to'],
      ['spend/?from=2026-11-02&to=2026-11-01', 'to'],
      ['spend/?location=abc', 'location'],
      ['spend/?vendor=0', 'vendor'],
      ['spend/?department=99999999999', 'department'],
      ['spend/?account=-1', 'account'],
      ['spend/?group_by=color', 'group_by'],
      ['orders/?group_by=account', 'group_by'],
      ['cycle-times/?group_by=vendor', 'group_by'],
      ['budgets/?group_by=vendor', 'group_by'],
      ['budgets/?vendor=1', 'vendor'],
      ['spend/?as_of=2026-01-01', 'as_of'],
      ['payables-aging/?as_of=2026-02-30', 'as_of'],
      ['spend/?__proto__=1', '__proto__'],
      ['spend/?colour=red', 'colour'],
      ['spend/?format=pdf', 'format'],
    ]
    for (const [path, filter] of cases) {
      const r = await get(s.admin, `/api/v3/reports/${path}`)
      assert.equal(r.statusCode, 400, `${path}: ${r.body}`)
      assert.ok(filter in (r.json().errors ?? {}), `${path} names ${filter}: ${r.body}`)
    }
    const twice = await get(s.admin, '/api/v3/reports/spend/?from=2026-01-01&from=2026-02-01')
    assert.equal(twice.statusCode, 400)
    assert.equal((await get(s.admin, '/api/v3/reports/nothing/')).statusCode, 404)
    assert.equal((await get(s.admin, '/api/v3/reports/spend')).statusCode, 200, 'without the trailing slash')
  })

  test('permissions: rows of the locations held; nowhere or another location → 403', async () => {
    const mine = await json(reporter.api, '/api/v3/reports/spend/')
    assert.deepEqual(mine.data, [
      { key: { id: s.vendor, name: 'Acme Supplies' }, documents: 1, amount: '50.00' },
      { key: { id: s.vendor2, name: 'Globex' }, documents: 2, amount: '32.41' },
    ])
    const aging = await json(reporter.api, '/api/v3/reports/payables-aging/?as_of=2026-12-31')
    assert.deepEqual(aging.data.map((r) => (r.vendor as { id: number }).id).sort(), [s.vendor, s.vendor2].sort())
    assert.equal(aging.metadata.totals && (aging.metadata.totals as { total: string }).total, '82.41')
    for (const name of REPORTS) {
      const r = await get(reporter.api, `/api/v3/reports/${name}/?location=${s.B}`)
      assert.equal(r.statusCode, 403, `${name} at B: ${r.body}`)
      const n = await get(nobody.api, `/api/v3/reports/${name}/`)
      assert.equal(n.statusCode, 403, `${name} without nav_report: ${n.body}`)
      assert.equal((await get(nobody.api, `/api/v3/reports/${name}/?format=csv`)).statusCode, 403)
    }
    assert.equal((await get(reporter.api, `/api/v3/reports/spend/?location=${s.A}`)).statusCode, 200)
  })
})
