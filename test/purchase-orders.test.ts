/**
 * Purchase orders (DECISIONS, "Purchase orders and receiving"): exact totals, numbers, ship-to/bill-to from
 * the location, the status machine and its 409s, orders from an approved request (one per vendor, each line
 * once), approval of orders through the purchase_order rules, revisions (If-Match, 428/412, version, records,
 * tolerance and held revisions), permissions (404 for those who may not see, 403 without nav_purchase),
 * events, lists and settings.
 */
import assert from 'node:assert/strict'
import { beforeEach, describe, test } from 'node:test'
import { useTestApp } from './helpers/app.ts'
import {
  act,
  approvedRequest,
  decide,
  issuedOrder,
  line,
  newOrder,
  poLine,
  rule,
  setUpOrders,
  type OrderSetup,
} from './helpers/orders.ts'
import { BASE_DOMAIN } from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn' })
let s: OrderSetup
let ready = false
beforeEach(async () => {
  if (ready) return
  ready = true
  s = await setUpOrders(ctx)
})

const get = async (id: number) => (await s.admin({ method: 'GET', url: `/api/v3/purchase-orders/${id}/` })).json().data

async function eventsOf(type: string) {
  const response = await s.admin({ method: 'GET', url: `/api/v3/events/?type=${type}&page_size=1000` })
  assert.equal(response.statusCode, 200, response.body)
  return response.json().data as { type: string; data: { object: { id: number } } }[]
}

describe('orders by hand', () => {
  test('the largest quantities and prices the schema takes make exact 32-digit amounts, never a 500', async () => {
    const big = '9999999999999999.9999'
    const order = await newOrder(s.buyer.api, {
      vendor: s.vendor,
      location: { id: s.A },
      lines: [poLine(big, big, '100'), poLine(big, big, '100')],
    })
    // (10^16 − 10^-4)² = 10^32 − 2·10^12 + 10^-8 → half-up to 2 decimals per line; tax at 100 % doubles it.
    assert.equal(order.lines[0].amount, '99999999999999999998000000000000.00')
    assert.equal(order.tax, '199999999999999999996000000000000.00')
    assert.equal(order.subtotal, '199999999999999999996000000000000.00')
    assert.equal(order.total, '399999999999999999992000000000000.00')
  })

  test('exact totals with half-up rounding, PO-number, ship-to and bill-to copied, created event', async () => {
    const order = await newOrder(s.buyer.api, {
      vendor: s.vendor,
      location: { id: s.A },
      lines: [poLine('3', '0.335', '10'), poLine('1.5', '19.99', '8.25'), poLine('2', '0.005')],
    })
    assert.equal(order.status, 'draft')
    assert.equal(order.version, 0)
    assert.match(order.number, /^PO-\d{6,}$/)
    assert.equal(order.receipt_status, 'none')
    assert.equal(order.billing_status, 'none')
    // 3 × 0.335 = 1.005 → 1.01; tax 10 % of 1.01 = 0.101 → 0.10. 1.5 × 19.99 = 29.985 → 29.99; 8.25 % → 2.474175 → 2.47.
    // 2 × 0.005 = 0.01.
    assert.deepEqual(
      order.lines.map((l: { amount: string }) => l.amount),
      ['1.01', '29.99', '0.01'],
    )
    assert.equal(order.subtotal, '31.01')
    assert.equal(order.tax, '2.57')
    assert.equal(order.total, '33.58')
    assert.equal(order.vendor.name, 'Acme Supplies')
    assert.equal(order.location.id, s.A)
    assert.ok(order.ship_to !== null && typeof order.ship_to.city === 'string')
    assert.ok(order.bill_to !== null && typeof order.bill_to.addressLineOne === 'string')
    assert.equal(order.lines[0].received_quantity, '0')
    assert.equal(order.lines[0].billed_quantity, '0')
    const second = await newOrder(s.buyer.api, { vendor: s.vendor, location: s.A, lines: [poLine('1', '1')] })
    assert.equal(Number(second.number.slice(3)), Number(order.number.slice(3)) + 1)
    const created = await eventsOf('purchase_order.created')
    assert.deepEqual(created.find((e) => e.data.object.id === order.id)?.data.object, await get(order.id))
  })

  test('bad input is a 400 naming the field, and changes nothing; no nav_purchase is 403', async () => {
    const bad = await s.buyer.api({
      method: 'POST',
      url: '/api/v3/purchase-orders/',
      payload: { vendor: 999999, location: s.A, lines: [poLine('0', '1'), poLine('1', '1', '101')] },
    })
    assert.equal(bad.statusCode, 400, bad.body)
    const errors = bad.json().errors
    assert.ok(errors.vendor && errors['lines.0.quantity'] && errors['lines.1.tax_rate'], bad.body)
    const noLines = await s.buyer.api({
      method: 'POST',
      url: '/api/v3/purchase-orders/',
      payload: { vendor: s.vendor, location: s.A, lines: [] },
    })
    assert.equal(noLines.statusCode, 400)
    const badDecimal = await s.buyer.api({
      method: 'POST',
      url: '/api/v3/purchase-orders/',
      payload: { vendor: s.vendor, location: s.A, lines: [poLine('1e3', '1')] },
    })
    assert.equal(badDecimal.statusCode, 400)
    const refused = await s.requester.api({
      method: 'POST',
      url: '/api/v3/purchase-orders/',
      payload: { vendor: s.vendor, location: s.A, lines: [poLine('1', '1')] },
    })
    assert.equal(refused.statusCode, 403, refused.body)
  })

  test('status machine: issue, close, reopen, cancel; other transitions 409 naming the status', async () => {
    const order = await newOrder(s.buyer.api, { vendor: s.vendor, location: s.A, lines: [poLine('2', '5')] })
    const reopenDraft = await act(s.buyer.api, order.id, 'reopen')
    assert.equal(reopenDraft.statusCode, 409)
    assert.match(reopenDraft.json().detail, /draft/)
    const issued = (await act(s.buyer.api, order.id, 'issue')).json().data
    assert.equal(issued.status, 'issued')
    assert.equal(issued.version, 1)
    assert.ok(issued.issued_at)
    assert.equal((await act(s.buyer.api, order.id, 'issue')).statusCode, 409)
    const closed = (await act(s.buyer.api, order.id, 'close')).json().data
    assert.equal(closed.status, 'closed')
    assert.ok(closed.closed_at)
    const cancelClosed = await act(s.buyer.api, order.id, 'cancel')
    assert.equal(cancelClosed.statusCode, 409)
    assert.match(cancelClosed.json().detail, /closed/)
    const reopened = (await act(s.buyer.api, order.id, 'reopen')).json().data
    assert.equal(reopened.status, 'issued')
    assert.equal(reopened.closed_at, null)
    const cancelled = (await act(s.buyer.api, order.id, 'cancel')).json().data
    assert.equal(cancelled.status, 'cancelled')
    assert.equal((await act(s.buyer.api, order.id, 'close')).statusCode, 409)
    const types = (await eventsOf('purchase_order.*')).filter((e) => e.data.object.id === order.id).map((e) => e.type)
    assert.deepEqual(types, [
      'purchase_order.created',
      'purchase_order.issued',
      'purchase_order.closed',
      'purchase_order.reopened',
      'purchase_order.cancelled',
    ])
  })

  test('PUT replaces a draft; a line is closed on an issued order; 404 for an unknown line', async () => {
    const order = await newOrder(s.buyer.api, { vendor: s.vendor, location: s.A, lines: [poLine('2', '5')] })
    const put = await s.buyer.api({
      method: 'PUT',
      url: `/api/v3/purchase-orders/${order.id}/`,
      payload: { ...order, lines: [poLine('4', '5'), poLine('1', '2.5')], notes: 'Deliver to dock 2' },
    })
    assert.equal(put.statusCode, 200, put.body)
    assert.equal(put.json().data.total, '22.50')
    assert.equal(put.json().data.notes, 'Deliver to dock 2')
    assert.equal(put.json().data.version, 0)
    assert.equal((await act(s.buyer.api, order.id, 'issue')).statusCode, 200)
    const lineId = put.json().data.lines[1].id
    const closedLine = await act(s.buyer.api, order.id, `lines/${lineId}/close`)
    assert.equal(closedLine.statusCode, 200, closedLine.body)
    assert.equal(closedLine.json().data.lines[1].closed, true)
    assert.equal((await act(s.buyer.api, order.id, `lines/${lineId}/close`)).statusCode, 409)
    assert.equal((await act(s.buyer.api, order.id, 'lines/999999/close')).statusCode, 404)
  })
})

describe('permissions at the order’s location', () => {
  test('nobody without an order permission there sees it (404); nav_purchase elsewhere is not enough', async () => {
    const order = await newOrder(s.buyer.api, { vendor: s.vendor, location: s.A, lines: [poLine('1', '1')] })
    const elsewhere = await s.user('buyerB', s.roles.Buyer, s.B)
    for (const api of [s.requester.api, elsewhere.api]) {
      assert.equal((await api({ method: 'GET', url: `/api/v3/purchase-orders/${order.id}/` })).statusCode, 404)
      assert.equal((await act(api, order.id, 'issue')).statusCode, 404)
      const list = (await api({ method: 'GET', url: '/api/v3/purchase-orders/' })).json().data
      assert.ok(!list.some((o: { id: number }) => o.id === order.id))
    }
  })
})

describe('orders from an approved request', () => {
  test('one draft per vendor in line order; line_vendors; each line once (409 naming them)', async () => {
    const request = await approvedRequest(s, [
      { ...line('2', '10', 'Chairs'), vendor: s.vendor },
      { ...line('1', '99.99', 'Desk'), vendor: s.vendor2 },
      line('5', '1.5', 'Pens'),
      { ...line('1', '3', 'Lamp'), vendor: s.vendor },
    ])
    const url = `/api/v3/requests/${request.id}/purchase-orders/`
    const missing = await s.buyer.api({ method: 'POST', url })
    assert.equal(missing.statusCode, 400, missing.body)
    assert.ok(missing.json().errors['lines.2.vendor'], missing.body)
    const made = await s.buyer.api({
      method: 'POST',
      url,
      payload: { line_vendors: [{ line: request.lines[2].id, vendor: s.vendor2 }] },
    })
    assert.equal(made.statusCode, 201, made.body)
    const orders = made.json().data
    assert.equal(orders.length, 2)
    assert.equal(orders[0].vendor.id, s.vendor)
    assert.deepEqual(
      orders[0].lines.map((l: { request_line: number }) => l.request_line),
      [request.lines[0].id, request.lines[3].id],
    )
    assert.deepEqual(
      orders[1].lines.map((l: { description: string }) => l.description),
      ['Desk', 'Pens'],
    )
    for (const o of orders) {
      assert.equal(o.request, request.id)
      assert.equal(o.status, 'draft')
      assert.equal(o.currency, request.currency)
      assert.equal(o.location.id, s.A)
    }
    assert.equal(orders[1].total, '107.49')
    const again = await s.buyer.api({ method: 'POST', url })
    assert.equal(again.statusCode, 409)
    assert.match(again.json().detail, new RegExp(String(request.lines[0].id)))
    // Issued within the tolerance of the request's approved total: at once, no approval.
    const issued = await act(s.buyer.api, orders[0].id, 'issue')
    assert.equal(issued.json().data.status, 'issued')
    const filtered = await s.buyer.api({ method: 'GET', url: `/api/v3/purchase-orders/?request=${request.id}` })
    assert.equal(filtered.json().metadata.pagination.count, 2)
  })

  test('only an approved request (409), and nav_purchase at its location (403)', async () => {
    const request = (
      await s.requester.api({
        method: 'POST',
        url: '/api/v3/requests/',
        payload: { location: s.A, lines: [{ ...line('1', '1'), vendor: s.vendor }] },
      })
    ).json().data
    const draftOrder = await s.buyer.api({ method: 'POST', url: `/api/v3/requests/${request.id}/purchase-orders/` })
    assert.equal(draftOrder.statusCode, 409)
    assert.match(draftOrder.json().detail, /draft/)
    const approved = await approvedRequest(s, [{ ...line('1', '1'), vendor: s.vendor }])
    const approverTry = await s.approver.api({
      method: 'POST',
      url: `/api/v3/requests/${approved.id}/purchase-orders/`,
    })
    assert.equal(approverTry.statusCode, 403, approverTry.body)
  })
})

describe('approval of orders and revisions', () => {
  test('issue without a request goes through the purchase_order rules; rejection returns it to draft', async () => {
    const ruleRow = await rule(s.admin, {
      location: s.A,
      step: 1,
      approvers: [s.approver.profileId],
      document: 'purchase_order',
      min_total: '1000',
    })
    try {
      const small = await issuedOrder(s, [poLine('1', '999')])
      assert.equal(small.status, 'issued') // below min_total: no rule matches
      const order = await newOrder(s.buyer.api, { vendor: s.vendor, location: s.A, lines: [poLine('2', '600')] })
      const pending = (await act(s.buyer.api, order.id, 'issue')).json().data
      assert.equal(pending.status, 'pending_approval')
      assert.equal(pending.approvals.length, 1)
      const approval = pending.approvals[0]
      assert.deepEqual(approval.document, { type: 'purchase_order', id: order.id })
      assert.equal(approval.request, null)
      assert.equal(approval.kind, 'order')
      const me = (await s.approver.api({ method: 'GET', url: '/api/v3/users/me/' })).json().data
      assert.ok(me.pending_approvals_count.order >= 1)
      // The candidate sees the order (though Approver holds no order permission).
      assert.equal(
        (await s.approver.api({ method: 'GET', url: `/api/v3/purchase-orders/${order.id}/` })).statusCode,
        200,
      )
      assert.equal((await decide(s.approver.api, approval.id, 'reject', 'Too much')).statusCode, 200)
      assert.equal((await get(order.id)).status, 'draft')
      const again = (await act(s.buyer.api, order.id, 'issue')).json().data
      assert.equal(again.status, 'pending_approval')
      const second = again.approvals.find((a: { status: string }) => a.status === 'pending')
      assert.equal((await decide(s.approver.api, second.id, 'approve')).statusCode, 200)
      const issued = await get(order.id)
      assert.equal(issued.status, 'issued')
      assert.equal(issued.version, 1)
      const events = (await eventsOf('purchase_order.issued')).filter((e) => e.data.object.id === order.id)
      assert.equal(events.length, 1)
    } finally {
      await s.admin({ method: 'DELETE', url: `/api/v3/approval-rules/${ruleRow.id}/` })
    }
  })

  test('revision: 428 without If-Match, 412 stale, version + 1 with a record, pending beyond tolerance', async () => {
    const order = await issuedOrder(s, [poLine('10', '10'), poLine('1', '5')])
    const url = `/api/v3/purchase-orders/${order.id}/`
    const body = (lines: object[]) => ({ vendor: s.vendor, location: s.A, lines })
    const kept = (i: number, quantity: string, unit_price: string) => ({ id: order.lines[i].id, quantity, unit_price })
    const without = await s.buyer.api({ method: 'PUT', url, payload: body([kept(0, '11', '10'), kept(1, '1', '5')]) })
    assert.equal(without.statusCode, 428, without.body)
    const stale = await s.buyer.api({
      method: 'PUT',
      url,
      headers: { 'if-match': '"7"' },
      payload: body([kept(0, '11', '10'), kept(1, '1', '5')]),
    })
    assert.equal(stale.statusCode, 412)
    const etag = (await s.buyer.api({ method: 'GET', url })).headers.etag as string
    assert.equal(etag, '"1"')
    const revised = await s.buyer.api({
      method: 'PUT',
      url,
      headers: { 'if-match': etag },
      payload: body([kept(0, '11', '10'), kept(1, '1', '5')]),
    })
    assert.equal(revised.statusCode, 200, revised.body)
    assert.equal(revised.json().data.version, 2)
    assert.equal(revised.json().data.total, '115.00')
    const listed = (await s.buyer.api({ method: 'GET', url: `${url}revisions/?page_size=1` })).json()
    assert.deepEqual(
      [listed.metadata.pagination.count, listed.metadata.pagination.num_pages, listed.metadata.pagination.next],
      [1, 1, null],
    )
    assert.equal((await s.buyer.api({ method: 'GET', url: `${url}revisions/?page=2` })).statusCode, 404)
    const revisions = listed.data
    assert.equal(revisions.length, 1)
    assert.equal(revisions[0].version, 2)
    assert.deepEqual(revisions[0].changes, [
      { path: 'lines.0.quantity', from: '10', to: '11' },
      { path: 'total', from: '105.00', to: '115.00' },
    ])
    assert.equal(revisions[0].changed_by.id, s.buyer.profileId)
    // Beyond 10 % of the last approved total (105.00) with a matching rule: held, then applied on approval.
    const ruleRow = await rule(s.admin, {
      location: s.A,
      step: 1,
      approvers: [s.approver.profileId],
      document: 'purchase_order',
    })
    try {
      const held = await s.buyer.api({
        method: 'PUT',
        url,
        headers: { 'if-match': '"2"' },
        payload: body([kept(0, '20', '10'), kept(1, '1', '5')]),
      })
      assert.equal(held.statusCode, 200, held.body)
      const heldOrder = held.json().data
      assert.equal(heldOrder.version, 2)
      assert.equal(heldOrder.total, '115.00')
      assert.equal(heldOrder.pending_revision.total, '205.00')
      assert.equal(heldOrder.pending_revision.approvals.length, 1)
      const another = await s.buyer.api({
        method: 'PUT',
        url,
        headers: { 'if-match': '"2"' },
        payload: body([kept(0, '12', '10'), kept(1, '1', '5')]),
      })
      assert.equal(another.statusCode, 409)
      const approval = heldOrder.pending_revision.approvals[0]
      assert.equal((await decide(s.approver.api, approval.id, 'approve')).statusCode, 200)
      const applied = await get(order.id)
      assert.equal(applied.version, 3)
      assert.equal(applied.total, '205.00')
      assert.equal(applied.pending_revision, null)
      const revisedEvents = (await eventsOf('purchase_order.revised')).filter((e) => e.data.object.id === order.id)
      assert.equal(revisedEvents.length, 2)
    } finally {
      await s.admin({ method: 'DELETE', url: `/api/v3/approval-rules/${ruleRow.id}/` })
    }
  })

  test('a revision below the received quantity, or removing a received line, is 409 naming it', async () => {
    const order = await issuedOrder(s, [poLine('10', '1'), poLine('5', '1')])
    const receipt = await s.buyer.api({
      method: 'POST',
      url: '/api/v3/receipts/',
      payload: { purchase_order: order.id, lines: [{ po_line: order.lines[0].id, accepted_quantity: '6' }] },
    })
    assert.equal(receipt.statusCode, 201, receipt.body)
    const url = `/api/v3/purchase-orders/${order.id}/`
    const below = await s.buyer.api({
      method: 'PUT',
      url,
      headers: { 'if-match': '"1"' },
      payload: {
        vendor: s.vendor,
        location: s.A,
        lines: [
          { id: order.lines[0].id, quantity: '5', unit_price: '1' },
          { id: order.lines[1].id, quantity: '5', unit_price: '1' },
        ],
      },
    })
    assert.equal(below.statusCode, 409)
    assert.match(below.json().detail, new RegExp(`line ${order.lines[0].id}`))
    const removed = await s.buyer.api({
      method: 'PUT',
      url,
      headers: { 'if-match': '"1"' },
      payload: { vendor: s.vendor, location: s.A, lines: [{ id: order.lines[1].id, quantity: '5', unit_price: '1' }] },
    })
    assert.equal(removed.statusCode, 409)
    assert.match(removed.json().detail, new RegExp(`line ${order.lines[0].id}`))
    // Cancelling an order with something received is refused; closing it is the way.
    assert.equal((await act(s.buyer.api, order.id, 'cancel')).statusCode, 409)
  })
})

describe('lists and settings', () => {
  test('filters, search on number and vendor name, CSV, updated_since', async () => {
    const order = await newOrder(s.buyer.api, { vendor: s.vendor2, location: s.A, lines: [poLine('1', '1')] })
    const list = async (query: string) =>
      (await s.buyer.api({ method: 'GET', url: `/api/v3/purchase-orders/?${query}` })).json()
    assert.ok(list('status=draft').then((r) => r.data.every((o: { status: string }) => o.status === 'draft')))
    const byVendor = await list(`vendor=${s.vendor2}&status=draft`)
    assert.ok(byVendor.data.some((o: { id: number }) => o.id === order.id))
    assert.ok(byVendor.data.every((o: { vendor: { id: number } }) => o.vendor.id === s.vendor2))
    assert.equal((await list(`search=${order.number}`)).data[0].id, order.id)
    assert.ok((await list('search=globex')).data.some((o: { id: number }) => o.id === order.id))
    const future = new Date(Date.now() + 60_000).toISOString()
    assert.equal((await list(`updated_since=${encodeURIComponent(future)}`)).data.length, 0)
    assert.equal((await list('receipt_status=bogus')).status, 400)
    const csv = await s.buyer.api({ method: 'GET', url: `/api/v3/purchase-orders/?format=csv&search=${order.number}` })
    assert.equal(csv.statusCode, 200)
    assert.match(String(csv.headers['content-type']), /text\/csv/)
    assert.match(csv.body, new RegExp(order.number))
  })

  test('procurement settings: defaults, PUT, superuser or nav_setting only, 400 on bad values', async () => {
    const url = '/api/v3/procurement-settings/'
    const defaults = (await s.admin({ method: 'GET', url })).json().data
    assert.deepEqual(defaults, {
      over_receipt_tolerance_percent: '0',
      po_approval_tolerance_percent: '10',
      price_tolerance_percent: '5',
      match_mode: 'three_way',
      receipt_required_over: '25.00',
    })
    assert.equal((await s.buyer.api({ method: 'GET', url })).statusCode, 403)
    assert.equal((await s.admin({ method: 'PUT', url, payload: { match_mode: 'four_way' } })).statusCode, 400)
    assert.equal((await s.admin({ method: 'PUT', url, payload: { price_tolerance_percent: '-1' } })).statusCode, 400)
    const put = await s.admin({ method: 'PUT', url, payload: { price_tolerance_percent: '7.5' } })
    assert.equal(put.statusCode, 200, put.body)
    assert.equal(put.json().data.price_tolerance_percent, '7.5')
    assert.equal(put.json().data.match_mode, 'three_way')
    await s.admin({ method: 'PUT', url, payload: { price_tolerance_percent: '5' } })
  })
})
