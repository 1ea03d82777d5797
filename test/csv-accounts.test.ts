/**
 * Each line's account (its general-ledger code) in the CSV of requests, orders and bills (`format=csv`): the
 * lists' CSV has the item schema's columns, so a document's `lines` column holds its lines as JSON — each with
 * its `account` `{id, code, name}` or null, exactly as the JSON list has them (an order line's account copied
 * from nothing but its body, a bill line's from its order line unless the bill names another). A code that looks
 * like a formula or holds a comma stays inside the quoted JSON cell: nothing for a spreadsheet to evaluate, and
 * the cell reads back to the very lines the API gives. (No CSV import of documents exists to read it back into.)
 */
import assert from 'node:assert/strict'
import { beforeEach, test } from 'node:test'
import { useTestApp } from './helpers/app.ts'
import { draft, submit } from './helpers/requests.ts'
import { act, newOrder, poLine, setUpOrders, type OrderSetup } from './helpers/orders.ts'
import { BASE_DOMAIN, roleWith, type Api } from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' })
let s: OrderSetup
let ready = false

beforeEach(async () => {
  if (ready) return
  ready = true
  s = await setUpOrders(ctx)
})

/** RFC 4180: quoted fields (with "" for a quote, commas and line breaks inside), CRLF between records. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let cell = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quoted && c === '"' && text[i + 1] === '"') {
      cell += '"'
      i++
    } else if (c === '"') quoted = !quoted
    else if (quoted) cell += c
    else if (c === ',') {
      row.push(cell)
      cell = ''
    } else if (c === '\r' && text[i + 1] === '\n') {
      rows.push([...row, cell])
      row = []
      cell = ''
      i++
    } else cell += c
  }
  return rows
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>
async function ok(api: Api, method: string, url: string, payload?: object, status = 200) {
  const r = await api({ method, url, ...(payload === undefined ? {} : { payload }) })
  assert.equal(r.statusCode, status, r.body)
  return r.json().data as Json
}

/** The list's CSV and JSON of the same rows: each document's `lines` cell, parsed, beside its JSON lines. */
async function linesBoth(list: string, id: number) {
  const csv = await s.admin({ method: 'GET', url: `${list}?format=csv&page_size=100` })
  assert.equal(csv.statusCode, 200, csv.body)
  assert.match(String(csv.headers['content-type']), /^text\/csv/)
  const [header, ...rows] = parseCsv(csv.body)
  const at = (name: string) => header!.indexOf(name)
  assert.ok(at('lines') >= 0, `${list}: a lines column (${header!.join(',')})`)
  const row = rows.find((r) => r[at('id')] === String(id))
  assert.ok(row, `${list}: document ${id} is a row of the CSV`)
  const cell = row[at('lines')]!
  assert.match(cell, /^\[/, 'the cell is JSON: nothing a spreadsheet evaluates, no prefix')
  const json = (await ok(s.admin, 'GET', `${list}?page_size=100`)) as unknown as Json[]
  return { csv: JSON.parse(cell) as Json[], json: json.find((d) => d.id === id)!.lines as Json[] }
}

const codes = (lines: Json[]) => lines.map((l) => (l.account === null ? null : l.account.code))

test('requests, orders and bills: each line’s account in the CSV, as the JSON list has it', async () => {
  const office = await ok(s.admin, 'POST', '/api/v3/accounts/', { code: '6100', name: 'Office, supplies' }, 201)
  const odd = await ok(s.admin, 'POST', '/api/v3/accounts/', { code: '=SUM(1,2)', name: '"Quoted" name' }, 201)
  const ap = await roleWith(ctx, s.tenant, 'Payables', ['accounts_payable'], 8)
  const clerk = await s.user('clerk', ap, s.A)

  const request = await draft(s.requester.api, s.A, [
    { description: 'Paper', quantity: '2', unit_price: '5', account: office.id },
    { description: 'Odd', quantity: '1', unit_price: '1', account: odd.id },
    { description: 'None', quantity: '1', unit_price: '1', account: null },
  ] as never)
  assert.equal((await submit(s.requester.api, request.id)).statusCode, 200)
  const requests = await linesBoth('/api/v3/requests/', request.id)
  assert.deepEqual(codes(requests.csv), ['6100', '=SUM(1,2)', null])
  assert.deepEqual(requests.csv, requests.json)
  assert.deepEqual(requests.csv[0]!.account, { id: office.id, code: '6100', name: 'Office, supplies' })

  const order = await newOrder(s.buyer.api, {
    vendor: s.vendor,
    location: s.A,
    lines: [
      { ...poLine('10', '5'), account: odd.id },
      { ...poLine('4', '2'), account: office.id },
    ],
  })
  const issued = await act(s.buyer.api, order.id, 'issue')
  assert.equal(issued.statusCode, 200, issued.body)
  const orders = await linesBoth('/api/v3/purchase-orders/', order.id)
  assert.deepEqual(codes(orders.csv), ['=SUM(1,2)', '6100'])
  assert.deepEqual(orders.csv, orders.json)

  const [first, second] = issued.json().data.lines as Json[]
  const bill = await ok(
    clerk.api,
    'POST',
    '/api/v3/bills/',
    {
      number: 'INV-CSV-1',
      purchase_order: order.id,
      lines: [
        { po_line: first!.id, quantity: '1' },
        { po_line: second!.id, quantity: '1', account: odd.id },
      ],
    },
    201,
  )
  const bills = await linesBoth('/api/v3/bills/', bill.id as number)
  assert.deepEqual(codes(bills.csv), ['=SUM(1,2)', '=SUM(1,2)'], 'copied from the order line, or as the bill names it')
  assert.deepEqual(bills.csv, bills.json)
})
