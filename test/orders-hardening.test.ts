/**
 * What an outside probe of orders and receiving found (issue 44), each now refused or correct (DECISIONS,
 * "Purchase orders and receiving", the last bullets): a document leaves its location only with the permission
 * there; every change of received quantity — a voided return too — is held to the tolerance and, under
 * three-way matching, to what is billed; an issued order's vendor and currency never change; every counter
 * is bounded before it is written (409 naming the line, never 500); settings percentages are 0–1000; the PDF
 * shows every word of a long description and a long note.
 */
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import path from 'node:path'
import { beforeEach, describe, test } from 'node:test'
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs'
import { useTestApp } from './helpers/app.ts'
import { act, issuedOrder, newOrder, poLine, setUpOrders, type OrderSetup } from './helpers/orders.ts'
import { draft, line } from './helpers/requests.ts'
import { BASE_DOMAIN, roleWith, type Api } from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' })
let s: OrderSetup
let ready = false
beforeEach(async () => {
  if (ready) return
  ready = true
  s = await setUpOrders(ctx)
})

const MAX = '9999999999999999'
/** pdf.js's own copies of the standard fonts, so it reads Helvetica without asking for them. */
const standardFontDataUrl = `${path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'))}/standard_fonts/`
const settings = async (payload: object) => {
  const r = await s.admin({ method: 'PUT', url: '/api/v3/procurement-settings/', payload })
  assert.equal(r.statusCode, 200, r.body)
}
const receive = (api: Api, purchase_order: number, lines: object[], type = 'receipt') =>
  api({ method: 'POST', url: '/api/v3/receipts/', payload: { purchase_order, type, lines } })
const order = async (id: number) =>
  (await s.admin({ method: 'GET', url: `/api/v3/purchase-orders/${id}/` })).json().data
const voidReceipt = (id: number) => s.buyer.api({ method: 'POST', url: `/api/v3/receipts/${id}/void/` })

describe('a document leaves its location only with the permission there', () => {
  test('an order: nav_purchase at the destination only → 403, and the draft stays where it was', async () => {
    // Sees A's orders (nav_receive there) and buys at B only.
    const receiver = await roleWith(ctx, s.tenant, 'Receiver only', ['nav_receive'], 3)
    const buyerB = await s.user('buyer-b', receiver, s.A, [
      { location: s.A, role: receiver },
      { location: s.B, role: s.roles.Buyer },
    ])
    const po = await newOrder(s.buyer.api, { vendor: s.vendor, location: s.A, lines: [poLine('1', '5')] })
    const stay = await buyerB.api({
      method: 'PUT',
      url: `/api/v3/purchase-orders/${po.id}/`,
      payload: { vendor: s.vendor, location: s.A, lines: [poLine('2', '5')] },
    })
    assert.equal(stay.statusCode, 403, stay.body)
    const move = await buyerB.api({
      method: 'PUT',
      url: `/api/v3/purchase-orders/${po.id}/`,
      payload: { vendor: s.vendor, location: s.B, lines: [poLine('2', '5')] },
    })
    assert.equal(move.statusCode, 403, move.body)
    assert.match(move.json().detail, new RegExp(`nav_purchase permission at location ${s.A}`))
    const now = await order(po.id)
    assert.equal(now.location.id, s.A)
    assert.equal(now.lines[0].quantity, '1')
    assert.equal((await act(buyerB.api, po.id, 'issue')).statusCode, 403)
    assert.equal((await order(po.id)).status, 'draft')
    // With nav_purchase at both it moves.
    const both = await s.user('buyer-ab', s.roles.Buyer, s.A, [
      { location: s.A, role: s.roles.Buyer },
      { location: s.B, role: s.roles.Buyer },
    ])
    const moved = await both.api({
      method: 'PUT',
      url: `/api/v3/purchase-orders/${po.id}/`,
      payload: { vendor: s.vendor, location: s.B, lines: [poLine('2', '5')] },
    })
    assert.equal(moved.statusCode, 200, moved.body)
    assert.equal(moved.json().data.location.id, s.B)
  })

  test('a request: nav_request at the destination only → 403, and the draft stays where it was', async () => {
    const none = await roleWith(ctx, s.tenant, 'Nothing', [], 3)
    const mover = await s.user('mover', none, s.A, [
      { location: s.A, role: s.roles.Requester },
      { location: s.B, role: s.roles.Requester },
    ])
    const request = await draft(mover.api, s.A, [line('1', '10')])
    // The requester loses nav_request at A (keeps it at B): the draft cannot be carried to B.
    const put = await s.admin({
      method: 'PUT',
      url: `/api/v3/users/${mover.profileId}/location-roles/`,
      payload: [
        { location: s.A, role: none },
        { location: s.B, role: s.roles.Requester },
      ],
    })
    assert.equal(put.statusCode, 200, put.body)
    const move = await mover.api({
      method: 'PATCH',
      url: `/api/v3/requests/${request.id}/`,
      payload: { location: s.B },
    })
    assert.equal(move.statusCode, 403, move.body)
    assert.match(move.json().detail, new RegExp(`nav_request permission at location ${s.A}`))
    const now = (await s.admin({ method: 'GET', url: `/api/v3/requests/${request.id}/` })).json().data
    assert.equal(now.location.id ?? now.location, s.A)
  })
})

describe('every change of received quantity is held to the rules', () => {
  test('voiding a return receives again: beyond the 0 % tolerance → 409, nothing changes', async () => {
    await settings({ over_receipt_tolerance_percent: '0', match_mode: 'two_way' })
    const po = await issuedOrder(s, [poLine('10', '5')])
    const lineId = po.lines[0].id
    assert.equal((await receive(s.buyer.api, po.id, [{ po_line: lineId, accepted_quantity: '10' }])).statusCode, 201)
    const back = await receive(s.buyer.api, po.id, [{ po_line: lineId, accepted_quantity: '10' }], 'return')
    assert.equal(back.statusCode, 201, back.body)
    assert.equal((await receive(s.buyer.api, po.id, [{ po_line: lineId, accepted_quantity: '10' }])).statusCode, 201)
    const voided = await voidReceipt(back.json().data.id)
    assert.equal(voided.statusCode, 409, voided.body)
    assert.match(voided.json().detail, new RegExp(`line ${lineId}: ordered 10, received 10`))
    const now = await order(po.id)
    assert.equal(now.lines[0].received_quantity, '10')
    assert.equal(now.receipt_status, 'full')
  })

  test('under three_way a return below what is billed → 409, and the bill stays matched', async () => {
    await settings({ over_receipt_tolerance_percent: '0', match_mode: 'three_way' })
    const ap = await roleWith(ctx, s.tenant, 'Payables', ['accounts_payable'], 8)
    const clerk = await s.user('clerk', ap, s.A)
    const po = await issuedOrder(s, [poLine('10', '5')])
    const lineId = po.lines[0].id
    assert.equal((await receive(s.buyer.api, po.id, [{ po_line: lineId, accepted_quantity: '10' }])).statusCode, 201)
    const bill = await clerk.api({
      method: 'POST',
      url: '/api/v3/bills/',
      payload: { number: 'INV-RET-1', purchase_order: po.id, lines: [{ po_line: lineId, quantity: '10' }] },
    })
    assert.equal(bill.statusCode, 201, bill.body)
    const submitted = await clerk.api({ method: 'POST', url: `/api/v3/bills/${bill.json().data.id}/submit/` })
    assert.equal(submitted.json().data.match_status, 'matched')
    const back = await receive(s.buyer.api, po.id, [{ po_line: lineId, accepted_quantity: '1' }], 'return')
    assert.equal(back.statusCode, 409, back.body)
    assert.match(back.json().detail, /would have 9 received after the return but 10 billed/)
    assert.equal((await order(po.id)).lines[0].received_quantity, '10')
    // Under two_way the goods may go back.
    await settings({ match_mode: 'two_way' })
    assert.equal(
      (await receive(s.buyer.api, po.id, [{ po_line: lineId, accepted_quantity: '1' }], 'return')).statusCode,
      201,
    )
    await settings({ match_mode: 'three_way' })
  })

  test('counters past what a quantity column holds → 409 naming the line, never 500', async () => {
    await settings({ over_receipt_tolerance_percent: '1000', match_mode: 'two_way' })
    const po = await issuedOrder(s, [poLine(MAX, '1')])
    const lineId = po.lines[0].id
    const rejecting = { po_line: lineId, accepted_quantity: '1', rejected_quantity: MAX }
    assert.equal((await receive(s.buyer.api, po.id, [rejecting])).statusCode, 201)
    const again = await receive(s.buyer.api, po.id, [rejecting])
    assert.equal(again.statusCode, 409, again.body)
    assert.match(again.json().detail, new RegExp(`line ${lineId}: .* rejected in all is more than a quantity can be`))
    // A return and its void on a line received to the limit.
    const full = await receive(s.buyer.api, po.id, [{ po_line: lineId, accepted_quantity: `${MAX.slice(1)}8` }])
    assert.equal(full.statusCode, 201, full.body)
    const back = await receive(s.buyer.api, po.id, [{ po_line: lineId, accepted_quantity: MAX }], 'return')
    assert.equal(back.statusCode, 201, back.body)
    assert.equal((await receive(s.buyer.api, po.id, [{ po_line: lineId, accepted_quantity: MAX }])).statusCode, 201)
    const voided = await voidReceipt(back.json().data.id)
    assert.equal(voided.statusCode, 409, voided.body)
    assert.match(voided.json().detail, new RegExp(`line ${lineId}: .* received in all is more than a quantity can be`))
    assert.equal((await order(po.id)).lines[0].received_quantity, MAX)
    await settings({ over_receipt_tolerance_percent: '0' })
  })
})

describe('an issued order keeps its vendor and currency', () => {
  test('a revision that changes the currency or the vendor → 409 naming it, whatever the total', async () => {
    const kwd = await s.admin({
      method: 'POST',
      url: '/api/v2/currencies/',
      payload: { name: 'KWD', description: 'Kuwaiti dinar', rate: '0.307' },
    })
    assert.equal(kwd.statusCode, 201, kwd.body)
    const po = await issuedOrder(s, [poLine('10', '300')])
    const revise = (body: object) =>
      s.buyer.api({
        method: 'PUT',
        url: `/api/v3/purchase-orders/${po.id}/`,
        headers: { 'if-match': `"${po.version}"` },
        payload: { vendor: s.vendor, location: s.A, lines: [{ id: po.lines[0].id, ...poLine('10', '300') }], ...body },
      })
    const currency = await revise({ currency: 'KWD' })
    assert.equal(currency.statusCode, 409, currency.body)
    assert.match(currency.json().detail, /its currency cannot change/)
    const vendor = await revise({ vendor: s.vendor2 })
    assert.equal(vendor.statusCode, 409, vendor.body)
    assert.match(vendor.json().detail, /its vendor cannot change/)
    const now = await order(po.id)
    assert.equal(now.currency, po.currency)
    assert.equal(now.version, po.version)
    // A revision naming no currency keeps the order's, and a draft's currency may change.
    const notes = await revise({ notes: 'Deliver to dock 2.' })
    assert.equal(notes.statusCode, 200, notes.body)
    assert.equal(notes.json().data.currency, po.currency)
    const d = await newOrder(s.buyer.api, { vendor: s.vendor, location: s.A, lines: [poLine('1', '5')] })
    const changed = await s.buyer.api({
      method: 'PUT',
      url: `/api/v3/purchase-orders/${d.id}/`,
      payload: { vendor: s.vendor2, location: s.A, currency: 'KWD', lines: [poLine('1', '5')] },
    })
    assert.equal(changed.statusCode, 200, changed.body)
    assert.equal(changed.json().data.currency, 'KWD')
  })
})

describe('procurement settings', () => {
  test('percentages are 0–1000: beyond → 400 naming the field, nothing changes', async () => {
    await settings({ over_receipt_tolerance_percent: '1000', price_tolerance_percent: '5' })
    for (const value of ['100000', '1000.0001', '99999']) {
      const r = await s.admin({
        method: 'PUT',
        url: '/api/v3/procurement-settings/',
        payload: { over_receipt_tolerance_percent: '1', price_tolerance_percent: value },
      })
      assert.equal(r.statusCode, 400, r.body)
      assert.match(r.body, /price_tolerance_percent/)
    }
    const now = (await s.admin({ method: 'GET', url: '/api/v3/procurement-settings/' })).json().data
    assert.equal(now.over_receipt_tolerance_percent, '1000')
    assert.equal(now.price_tolerance_percent, '5')
    await settings({ over_receipt_tolerance_percent: '0' })
  })
})

describe('the order PDF cuts nothing', () => {
  test('a 1,000-character description and a 5,000-character note: every word in the extracted text', async () => {
    const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`)
    // 940 characters of short words, then one word wider than the description column: 1,000 in all.
    const description = `${words(300, 'd').join(' ').slice(0, 940).trimEnd().padEnd(940, 'z')} ${'x'.repeat(59)}`
    const note = words(1000, 'n').join(' ').slice(0, 5000).replace(/ \S*$/, '')
    const po = await newOrder(s.buyer.api, {
      vendor: s.vendor,
      location: s.A,
      notes: note,
      lines: [poLine('1', '5', '0', description), poLine('2', '3', '0', 'Short line after')],
    })
    assert.equal(po.lines[0].description.length, 1000)
    const pdf = await s.buyer.api({ method: 'GET', url: `/api/v3/purchase-orders/${po.id}/pdf/` })
    assert.equal(pdf.statusCode, 200)
    const document = await getDocument({ data: new Uint8Array(pdf.rawPayload), standardFontDataUrl }).promise
    let text = ''
    for (let n = 1; n <= document.numPages; n++) {
      const content = await (await document.getPage(n)).getTextContent()
      for (const item of content.items) if ('str' in item) text += `${item.str}\n`
    }
    assert.ok(document.numPages >= 2, `the note runs onto a second page (${document.numPages})`)
    const seen = new Set(text.split(/\s+/))
    for (const word of [...description.split(' ').slice(0, -1), ...note.split(' '), 'Short', 'after'])
      assert.ok(seen.has(word), `"${word}" is in the PDF's text`)
    // The long word, broken across lines, is all there in order.
    assert.ok(text.replace(/\s+/g, '').includes('x'.repeat(59)))
  })
})
