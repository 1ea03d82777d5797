/**
 * Receiving (DECISIONS, "A receipt"): receipts and returns against an issued order's open lines, the
 * over-receipt tolerance (409 naming the line and what is open), received quantities and receipt_status
 * changed with the receipt, void, permissions (nav_receive), events, Idempotency-Key, lists — and
 * concurrent receipts on one line, sent in parallel to a listening server, never over-receive.
 */
import assert from 'node:assert/strict'
import http from 'node:http'
import { beforeEach, describe, test } from 'node:test'
import { useTestApp } from './helpers/app.ts'
import { act, issuedOrder, newOrder, poLine, setUpOrders, type OrderSetup } from './helpers/orders.ts'
import { apiAs, BASE_DOMAIN, roleWith, type Api } from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' })
let s: OrderSetup
let ready = false
beforeEach(async () => {
  if (ready) return
  ready = true
  s = await setUpOrders(ctx)
})

const receive = (api: Api, body: object, headers: Record<string, string> = {}) =>
  api({ method: 'POST', url: '/api/v3/receipts/', payload: body, headers })
const order = async (id: number) =>
  (await s.admin({ method: 'GET', url: `/api/v3/purchase-orders/${id}/` })).json().data

describe('receipts', () => {
  test('partial, then full: quantities and receipt_status change with the receipt; GR numbers; event', async () => {
    const po = await issuedOrder(s, [poLine('10', '2'), poLine('4', '1')])
    const [a, b] = po.lines.map((l: { id: number }) => l.id)
    const first = await receive(s.buyer.api, {
      purchase_order: po.id,
      packing_slip: 'PS-1',
      lines: [{ po_line: a, accepted_quantity: '6', rejected_quantity: '1' }],
    })
    assert.equal(first.statusCode, 201, first.body)
    const receipt = first.json().data
    assert.match(receipt.number, /^GR-\d{6,}$/)
    assert.equal(receipt.type, 'receipt')
    assert.equal(receipt.status, 'posted')
    assert.equal(receipt.purchase_order, po.id)
    assert.equal(receipt.packing_slip, 'PS-1')
    assert.deepEqual(receipt.lines, [{ po_line: a, accepted_quantity: '6', rejected_quantity: '1' }])
    let now = await order(po.id)
    assert.equal(now.receipt_status, 'partial')
    assert.equal(now.lines[0].received_quantity, '6')
    assert.equal(now.lines[0].rejected_quantity, '1')
    const second = await receive(s.buyer.api, {
      purchase_order: po.id,
      lines: [
        { po_line: a, accepted_quantity: '4' },
        { po_line: b, accepted_quantity: '4' },
      ],
    })
    assert.equal(second.statusCode, 201, second.body)
    now = await order(po.id)
    assert.equal(now.receipt_status, 'full')
    assert.equal(now.status, 'issued') // a fully received order stays issued until closed
    const events = (await s.admin({ method: 'GET', url: '/api/v3/events/?type=receipt.created&page_size=1000' }))
      .json()
      .data.filter((e: { data: { object: { purchase_order: number } } }) => e.data.object.purchase_order === po.id)
    assert.equal(events.length, 2)
    const got = await s.buyer.api({ method: 'GET', url: `/api/v3/receipts/${receipt.id}/` })
    assert.deepEqual(events[0].data.object, got.json().data)
  })

  test('over-receipt beyond the tolerance is 409 naming the line and what is open; within it, allowed', async () => {
    const po = await issuedOrder(s, [poLine('10', '1')])
    const lineId = po.lines[0].id
    await receive(s.buyer.api, { purchase_order: po.id, lines: [{ po_line: lineId, accepted_quantity: '7' }] })
    const over = await receive(s.buyer.api, {
      purchase_order: po.id,
      lines: [{ po_line: lineId, accepted_quantity: '4' }],
    })
    assert.equal(over.statusCode, 409)
    assert.match(over.json().detail, new RegExp(`line ${lineId}: ordered 10, received 7, still open 3`))
    assert.equal((await order(po.id)).lines[0].received_quantity, '7')
    const url = '/api/v3/procurement-settings/'
    await s.admin({ method: 'PUT', url, payload: { over_receipt_tolerance_percent: '10' } })
    try {
      const within = await receive(s.buyer.api, {
        purchase_order: po.id,
        lines: [{ po_line: lineId, accepted_quantity: '4' }],
      })
      assert.equal(within.statusCode, 201, within.body)
      const now = await order(po.id)
      assert.equal(now.lines[0].received_quantity, '11')
      assert.equal(now.receipt_status, 'over')
      const beyond = await receive(s.buyer.api, {
        purchase_order: po.id,
        lines: [{ po_line: lineId, accepted_quantity: '0.0001' }],
      })
      assert.equal(beyond.statusCode, 409)
    } finally {
      await s.admin({ method: 'PUT', url, payload: { over_receipt_tolerance_percent: '0' } })
    }
  })

  test('only an issued order, open lines, lines of the order; bad input 400; without nav_receive 403', async () => {
    const draft = await newOrder(s.buyer.api, { vendor: s.vendor, location: s.A, lines: [poLine('1', '1')] })
    const onDraft = await receive(s.buyer.api, {
      purchase_order: draft.id,
      lines: [{ po_line: draft.lines[0].id, accepted_quantity: '1' }],
    })
    assert.equal(onDraft.statusCode, 409)
    assert.match(onDraft.json().detail, /draft/)
    const po = await issuedOrder(s, [poLine('5', '1'), poLine('5', '1')])
    await act(s.buyer.api, po.id, `lines/${po.lines[1].id}/close`)
    const closedLine = await receive(s.buyer.api, {
      purchase_order: po.id,
      lines: [{ po_line: po.lines[1].id, accepted_quantity: '1' }],
    })
    assert.equal(closedLine.statusCode, 409)
    assert.match(closedLine.json().detail, /closed/)
    const foreign = await receive(s.buyer.api, {
      purchase_order: po.id,
      lines: [{ po_line: draft.lines[0].id, accepted_quantity: '1' }],
    })
    assert.equal(foreign.statusCode, 400)
    assert.ok(foreign.json().errors['lines.0.po_line'])
    const zero = await receive(s.buyer.api, { purchase_order: po.id, lines: [{ po_line: po.lines[0].id }] })
    assert.equal(zero.statusCode, 400)
    const negative = await receive(s.buyer.api, {
      purchase_order: po.id,
      lines: [{ po_line: po.lines[0].id, accepted_quantity: '-1' }],
    })
    assert.equal(negative.statusCode, 400)
    const unseen = await receive(s.requester.api, {
      purchase_order: po.id,
      lines: [{ po_line: po.lines[0].id, accepted_quantity: '1' }],
    })
    assert.equal(unseen.statusCode, 400)
    assert.ok(unseen.json().errors.purchase_order)
    const purchaserRole = await roleWith(ctx, s.tenant, 'Purchaser only', ['nav_purchase'])
    const purchaser = await s.user('purchaser', purchaserRole, s.A)
    const refused = await receive(purchaser.api, {
      purchase_order: po.id,
      lines: [{ po_line: po.lines[0].id, accepted_quantity: '1' }],
    })
    assert.equal(refused.statusCode, 403, refused.body)
    assert.equal((await order(po.id)).lines[0].received_quantity, '0')
  })

  test('returns give back at most what was accepted; void reverses; a second void is 409', async () => {
    const po = await issuedOrder(s, [poLine('10', '1')])
    const lineId = po.lines[0].id
    const got = (
      await receive(s.buyer.api, { purchase_order: po.id, lines: [{ po_line: lineId, accepted_quantity: '5' }] })
    ).json().data
    const tooMuch = await receive(s.buyer.api, {
      purchase_order: po.id,
      type: 'return',
      lines: [{ po_line: lineId, accepted_quantity: '6' }],
    })
    assert.equal(tooMuch.statusCode, 409)
    const returned = await receive(s.buyer.api, {
      purchase_order: po.id,
      type: 'return',
      lines: [{ po_line: lineId, accepted_quantity: '3' }],
    })
    assert.equal(returned.statusCode, 201, returned.body)
    assert.equal((await order(po.id)).lines[0].received_quantity, '2')
    // Voiding the receipt of 5 would leave -3: refused while the return stands.
    const refused = await s.buyer.api({ method: 'POST', url: `/api/v3/receipts/${got.id}/void/` })
    assert.equal(refused.statusCode, 409)
    const voidReturn = await s.buyer.api({ method: 'POST', url: `/api/v3/receipts/${returned.json().data.id}/void/` })
    assert.equal(voidReturn.statusCode, 200, voidReturn.body)
    assert.equal((await order(po.id)).lines[0].received_quantity, '5')
    const voided = await s.buyer.api({ method: 'POST', url: `/api/v3/receipts/${got.id}/void/` })
    assert.equal(voided.statusCode, 200, voided.body)
    assert.equal(voided.json().data.status, 'voided')
    assert.ok(voided.json().data.voided_at)
    const now = await order(po.id)
    assert.equal(now.lines[0].received_quantity, '0')
    assert.equal(now.receipt_status, 'none')
    assert.equal((await s.buyer.api({ method: 'POST', url: `/api/v3/receipts/${got.id}/void/` })).statusCode, 409)
    const list = await s.buyer.api({ method: 'GET', url: `/api/v3/receipts/?purchase_order=${po.id}&status=voided` })
    assert.equal(list.statusCode, 200, list.body)
    assert.equal(list.json().metadata.pagination.count, 2)
    const returns = await s.buyer.api({ method: 'GET', url: `/api/v3/receipts/?purchase_order=${po.id}&type=return` })
    assert.equal(returns.json().metadata.pagination.count, 1)
    assert.equal((await s.requester.api({ method: 'GET', url: `/api/v3/receipts/${got.id}/` })).statusCode, 404)
  })

  test('updated_since lists the receipts made or voided at or after the instant (a date alone is its midnight, UTC)', async () => {
    const po = await issuedOrder(s, [poLine('10', '2')])
    const line = po.lines[0].id
    const post = async () => {
      const r = await receive(s.buyer.api, {
        purchase_order: po.id,
        lines: [{ po_line: line, accepted_quantity: '1' }],
      })
      assert.equal(r.statusCode, 201, r.body)
      return r.json().data.id as number
    }
    const old = await post()
    const voided = await post()
    await new Promise((resolve) => setTimeout(resolve, 20))
    const since = new Date().toISOString()
    const fresh = await post()
    const v = await s.buyer.api({ method: 'POST', url: `/api/v3/receipts/${voided}/void/` })
    assert.equal(v.statusCode, 200, v.body)
    const ids = async (query: string) => {
      const r = await s.buyer.api({ method: 'GET', url: `/api/v3/receipts/?purchase_order=${po.id}&${query}` })
      assert.equal(r.statusCode, 200, r.body)
      return r
        .json()
        .data.map((x: { id: number }) => x.id)
        .sort((a: number, b: number) => a - b)
    }
    assert.deepEqual(await ids(`updated_since=${encodeURIComponent(since)}`), [voided, fresh])
    assert.deepEqual(await ids('updated_since=2000-01-01'), [old, voided, fresh])
    assert.deepEqual(await ids('updated_since=9999-12-31'), [])
    const bad = await s.buyer.api({ method: 'GET', url: '/api/v3/receipts/?updated_since=yesterday' })
    assert.equal(bad.statusCode, 400, bad.body)
    assert.ok(bad.json().errors.updated_since, bad.body)
  })

  test('Idempotency-Key: the same POST twice is one receipt', async () => {
    const po = await issuedOrder(s, [poLine('10', '1')])
    const body = { purchase_order: po.id, lines: [{ po_line: po.lines[0].id, accepted_quantity: '2' }] }
    const key = { 'idempotency-key': `receipt-${po.id}` }
    const first = await receive(s.buyer.api, body, key)
    const again = await receive(s.buyer.api, body, key)
    assert.equal(first.statusCode, 201)
    assert.equal(again.statusCode, 201)
    assert.equal(again.headers['idempotent-replayed'], 'true')
    assert.equal(again.json().data.id, first.json().data.id)
    assert.equal((await order(po.id)).lines[0].received_quantity, '2')
  })
})

describe('concurrency', () => {
  test('parallel receipts on one line through a listening server never over-receive', async () => {
    const address = await ctx.app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = new URL(address)
    const buyer = await apiAs(ctx, s.tenant, s.buyer.userId)
    const po = await issuedOrder(s, [poLine('10', '1')])
    const body = JSON.stringify({ purchase_order: po.id, lines: [{ po_line: po.lines[0].id, accepted_quantity: '3' }] })
    const post = () =>
      new Promise<number>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/api/v3/receipts/',
            headers: {
              host: s.tenant.host,
              authorization: `Bearer ${buyer.token}`,
              'content-type': 'application/json',
              'x-service-client': 'api',
            },
          },
          (res) => {
            res.resume()
            res.on('end', () => resolve(res.statusCode ?? 0))
          },
        )
        req.on('error', reject)
        req.end(body)
      })
    const statuses = await Promise.all(Array.from({ length: 8 }, post))
    assert.equal(statuses.filter((c) => c === 201).length, 3, String(statuses))
    assert.equal(statuses.filter((c) => c === 409).length, 5, String(statuses))
    const now = await order(po.id)
    assert.equal(now.lines[0].received_quantity, '9')
    assert.equal(now.receipt_status, 'partial')
  })
})
