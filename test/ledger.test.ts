/**
 * The commitment ledger through HTTP (DECISIONS, "Accounts, budgets and the commitment ledger"): a line in a
 * foreign currency moving request → order → bill, each stage counted once, at the rate locked when it first
 * counted; receipts move nothing; billing moves the billed share to spent; cancelling, rejecting and closing
 * write the reversing entries; an order awaiting approval counts as pending only what its request did not; the
 * account copied along the chain; block at order issue and bill submit; and (PostgreSQL) two requests submitted
 * at the same instant against a block budget that fits only one.
 */
import assert from 'node:assert/strict'
import { beforeEach, describe, test } from 'node:test'
import { useTestApp } from './helpers/app.ts'
import { act, newOrder, poLine, setUpOrders, type OrderSetup } from './helpers/orders.ts'
import { decide, draft, rule, submit, type Person } from './helpers/requests.ts'
import { BASE_DOMAIN, roleWith, type Api } from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' })
let s: OrderSetup
let clerk: Person
let eurId: number
let ready = false
let seq = 0

beforeEach(async () => {
  if (ready) return
  ready = true
  s = await setUpOrders(ctx)
  const ap = await roleWith(ctx, s.tenant, 'Payables', ['accounts_payable'], 8)
  clerk = await s.user('clerk', ap, s.A)
  const eur = await s.admin({ method: 'POST', url: '/api/v2/currencies/', payload: { name: 'EUR', rate: '0.92' } })
  assert.equal(eur.statusCode, 201, eur.body)
  eurId = eur.json().data.id
})

// The tests read answers loosely: each assertion names the field it checks.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>
async function ok(response: Promise<{ statusCode: number; body: string; json(): { data: unknown } }>, status = 200) {
  const r = await response
  assert.equal(r.statusCode, status, r.body)
  return r.json().data as Json & Record<string, unknown>
}
const post = (api: Api, url: string, payload?: object) =>
  api({ method: 'POST', url, ...(payload === undefined ? {} : { payload }) })
const get = (api: Api, url: string) => api({ method: 'GET', url })
const year = () => {
  const y = new Date().getUTCFullYear()
  return { period_start: `${y}-01-01`, period_end: `${y}-12-31` }
}
async function account() {
  return ok(post(s.admin, '/api/v3/accounts/', { code: `L${++seq}`, name: `Ledger ${seq}` }), 201)
}
async function budget(body: object) {
  return ok(
    post(s.admin, '/api/v3/budgets/', { name: `Budget ${++seq}`, ...year(), action: 'warn', amount: '1000', ...body }),
    201,
  )
}
const stages = async (id: number) => {
  const b = await ok(get(s.admin, `/api/v3/budgets/${id}/`))
  return [b.pending, b.committed, b.spent]
}
const entries = async (id: number) =>
  ((await get(s.admin, `/api/v3/budgets/${id}/entries/?page_size=1000`)).json().data as Json[]).map(
    (e) =>
      e as unknown as {
        stage: string
        amount: string
        original_amount: string
        rate: string
        reason: string
        currency: string
        document: { type: string }
      },
  )
const setRate = (rate: string) =>
  ok(s.admin({ method: 'PUT', url: `/api/v2/currencies/${eurId}/`, payload: { name: 'EUR', rate } }))

describe('the ledger', () => {
  test('a EUR line from request to order to bill: each stage once, rate locked at the request, receipts move nothing', async () => {
    const a = await account()
    const b = await budget({ account: a.id })
    await setRate('0.92')
    const lines = [{ description: 'Desk', quantity: '10', unit_price: '9.20', account: a.id, vendor: s.vendor }]
    const request = await draft(s.requester.api, s.A, lines, { currency: 'EUR' })
    assert.equal((await ok(submit(s.requester.api, request.id))).status, 'approved')
    assert.deepEqual(await stages(b.id), ['0.00', '100.00', '0.00']) // 92.00 EUR ÷ 0.92
    await setRate('0.80') // later rates do not move what already counts
    try {
      const [order] = (await ok(
        post(s.buyer.api, `/api/v3/requests/${request.id}/purchase-orders/`),
        201,
      )) as unknown as {
        id: number
        lines: { id: number; account: { id: number } }[]
      }[]
      assert.equal(order!.lines[0]!.account.id, a.id) // copied from the request line
      assert.deepEqual(await stages(b.id), ['0.00', '100.00', '0.00']) // a draft order counts nothing
      const issued = await ok(act(s.buyer.api, order!.id, 'issue'))
      assert.equal(issued.status, 'issued')
      assert.deepEqual(issued.budget_warnings, [])
      assert.deepEqual(await stages(b.id), ['0.00', '100.00', '0.00'])
      let list = await entries(b.id)
      assert.deepEqual(
        list.slice(0, 2).map((e) => [e.document.type, e.stage, e.amount, e.original_amount, e.rate, e.reason]),
        [
          ['purchase_order', 'committed', '100.00', '92.00', '0.920000', 'issued'],
          ['request', 'committed', '-100.00', '-92.00', '0.920000', 'ordered'],
        ],
      )
      const lineId = order!.lines[0]!.id
      const receipt = await post(s.buyer.api, '/api/v3/receipts/', {
        purchase_order: order!.id,
        lines: [{ po_line: lineId, accepted_quantity: '10' }],
      })
      assert.equal(receipt.statusCode, 201, receipt.body)
      assert.equal((await entries(b.id)).length, list.length) // receipts move nothing
      const bill = await ok(
        post(clerk.api, '/api/v3/bills/', {
          number: `INV-L${++seq}`,
          purchase_order: order!.id,
          invoice_date: '2001-01-01',
          lines: [{ po_line: lineId, quantity: '4' }],
        }),
        201,
      )
      assert.equal((bill.lines as unknown as { account: { id: number } }[])[0]!.account.id, a.id)
      const billed = await ok(post(clerk.api, `/api/v3/bills/${bill.id}/submit/`))
      assert.equal(billed.status, 'approved')
      assert.deepEqual(billed.budget_warnings, [])
      // 36.80 EUR spent (40.00), 55.20 EUR still committed (60.00); budget_date is the request's, not the invoice's.
      assert.deepEqual(await stages(b.id), ['0.00', '60.00', '40.00'])
      list = await entries(b.id)
      assert.deepEqual(
        list.slice(0, 2).map((e) => [e.document.type, e.stage, e.amount, e.reason]),
        [
          ['bill', 'spent', '40.00', 'billed'],
          ['purchase_order', 'committed', '-40.00', 'billed'],
        ],
      )
      await ok(post(clerk.api, `/api/v3/bills/${bill.id}/cancel/`))
      assert.deepEqual(await stages(b.id), ['0.00', '100.00', '0.00'])
      assert.ok((await entries(b.id)).slice(0, 2).every((e) => e.reason === 'cancelled'))
      const bill2 = await ok(
        post(clerk.api, '/api/v3/bills/', {
          number: `INV-L${++seq}`,
          purchase_order: order!.id,
          lines: [{ po_line: lineId, quantity: '4' }],
        }),
        201,
      )
      await ok(post(clerk.api, `/api/v3/bills/${bill2.id}/submit/`))
      const paid = await ok(post(clerk.api, `/api/v3/bills/${bill2.id}/pay/`, { payment_reference: 'X' }))
      assert.equal(paid.status, 'paid')
      assert.deepEqual(await stages(b.id), ['0.00', '60.00', '40.00'])
      // Closing the line releases its unbilled rest.
      await ok(post(s.buyer.api, `/api/v3/purchase-orders/${order!.id}/lines/${lineId}/close/`))
      assert.deepEqual(await stages(b.id), ['0.00', '0.00', '40.00'])
      assert.equal((await entries(b.id))[0]!.reason, 'closed')
    } finally {
      await setRate('0.92')
    }
  })

  test('an order awaiting approval counts pending only what its request did not; rejection and cancellation reverse', async () => {
    const a = await account()
    const b = await budget({ account: a.id })
    const poRule = await rule(s.admin, {
      document: 'purchase_order',
      location: s.A,
      step: 1,
      approvers: [s.approver.profileId],
    })
    try {
      // No request: all of it is pending while it awaits approval.
      const order = await newOrder(s.buyer.api, {
        vendor: s.vendor,
        location: s.A,
        lines: [{ ...poLine('2', '50'), account: a.id }],
      })
      assert.equal((await ok(act(s.buyer.api, order.id, 'issue'))).status, 'pending_approval')
      assert.deepEqual(await stages(b.id), ['100.00', '0.00', '0.00'])
      const approval = (await get(s.approver.api, `/api/v3/approvals/?status=pending&approver=me`))
        .json()
        .data.find((x: { document: { id: number } }) => x.document.id === order.id)
      assert.equal((await decide(s.approver.api, approval.id, 'reject', 'Not now')).statusCode, 200)
      assert.deepEqual(await stages(b.id), ['0.00', '0.00', '0.00'])
      assert.equal((await entries(b.id))[0]!.reason, 'rejected')
      assert.equal((await ok(act(s.buyer.api, order.id, 'issue'))).status, 'pending_approval')
      const again = (await get(s.approver.api, `/api/v3/approvals/?status=pending&approver=me`))
        .json()
        .data.find((x: { document: { id: number } }) => x.document.id === order.id)
      assert.equal((await decide(s.approver.api, again.id, 'approve')).statusCode, 200)
      assert.deepEqual(await stages(b.id), ['0.00', '100.00', '0.00'])
      assert.deepEqual(
        (await entries(b.id)).slice(0, 2).map((e) => [e.stage, e.amount, e.reason]),
        [
          ['committed', '100.00', 'approved'],
          ['pending', '-100.00', 'approved'],
        ],
      )
      // Cancelled while issued (nothing received or billed): reversed.
      await ok(act(s.buyer.api, order.id, 'cancel'))
      assert.deepEqual(await stages(b.id), ['0.00', '0.00', '0.00'])
      // From a request, over its tolerance: pending is only the excess over the request line.
      const request = await draft(s.requester.api, s.A, [
        { description: 'Chair', quantity: '1', unit_price: '100', account: a.id, vendor: s.vendor },
      ] as never)
      await ok(submit(s.requester.api, request.id))
      const [fromRequest] = (await ok(
        post(s.buyer.api, `/api/v3/requests/${request.id}/purchase-orders/`),
        201,
      )) as unknown as Json[]
      const o = fromRequest as unknown as { id: number; lines: { id: number }[] }
      const put = await s.buyer.api({
        method: 'PUT',
        url: `/api/v3/purchase-orders/${o.id}/`,
        payload: { vendor: s.vendor, location: s.A, lines: [{ id: o.lines[0]!.id, quantity: '1', unit_price: '130' }] },
      })
      assert.equal(put.statusCode, 200, put.body)
      assert.equal(put.json().data.lines[0].account.id, a.id) // a kept line keeps its account
      assert.equal((await ok(act(s.buyer.api, o.id, 'issue'))).status, 'pending_approval')
      assert.deepEqual(await stages(b.id), ['30.00', '100.00', '0.00'])
      const third = (await get(s.approver.api, `/api/v3/approvals/?status=pending&approver=me`))
        .json()
        .data.find((x: { document: { id: number } }) => x.document.id === o.id)
      assert.equal((await decide(s.approver.api, third.id, 'approve')).statusCode, 200)
      assert.deepEqual(await stages(b.id), ['0.00', '130.00', '0.00'])
      // Cancelling the issued order gives the request line its commitment back.
      await ok(act(s.buyer.api, o.id, 'cancel'))
      assert.deepEqual(await stages(b.id), ['0.00', '100.00', '0.00'])
    } finally {
      await s.admin({ method: 'DELETE', url: `/api/v3/approval-rules/${poRule.id}/` })
    }
  })

  test('block at order issue and at bill submit: 409, nothing changes; a rejected bill reverses its spend', async () => {
    const a = await account()
    const b = await budget({ account: a.id, amount: '100', action: 'block' })
    const big = await newOrder(s.buyer.api, {
      vendor: s.vendor,
      location: s.A,
      lines: [{ ...poLine('3', '50'), account: a.id }],
    })
    const refused = await act(s.buyer.api, big.id, 'issue')
    assert.equal(refused.statusCode, 409, refused.body)
    assert.match(refused.json().detail, /100\.00 available.*asks 150\.00/)
    assert.equal((await ok(get(s.buyer.api, `/api/v3/purchase-orders/${big.id}/`))).status, 'draft')
    assert.deepEqual(await stages(b.id), ['0.00', '0.00', '0.00'])
    const order = await newOrder(s.buyer.api, {
      vendor: s.vendor,
      location: s.A,
      lines: [{ ...poLine('2', '50'), account: a.id }],
    })
    assert.equal((await ok(act(s.buyer.api, order.id, 'issue'))).status, 'issued')
    assert.deepEqual(await stages(b.id), ['0.00', '100.00', '0.00'])
    const line = (order.lines as { id: number }[])[0]!.id
    await ok(
      post(s.buyer.api, '/api/v3/receipts/', {
        purchase_order: order.id,
        lines: [{ po_line: line, accepted_quantity: '2' }],
      }),
      201,
    )
    // Billed at a higher price than ordered: the extra goes over the block budget.
    const dear = await ok(
      post(clerk.api, '/api/v3/bills/', {
        number: `INV-B${++seq}`,
        purchase_order: order.id,
        lines: [{ po_line: line, quantity: '2', unit_price: '60' }],
      }),
      201,
    )
    const no = await post(clerk.api, `/api/v3/bills/${dear.id}/submit/`)
    assert.equal(no.statusCode, 409, no.body)
    assert.equal((await ok(get(clerk.api, `/api/v3/bills/${dear.id}/`))).status, 'draft')
    assert.deepEqual(await stages(b.id), ['0.00', '100.00', '0.00'])
    // A bill within it, sent to approval by a rule, then rejected: spent while it waits, reversed on rejection.
    const billRule = await rule(s.admin, {
      document: 'bill',
      location: s.A,
      step: 1,
      approvers: [s.approver.profileId],
    })
    try {
      const fair = await ok(
        post(clerk.api, '/api/v3/bills/', {
          number: `INV-B${++seq}`,
          purchase_order: order.id,
          lines: [{ po_line: line, quantity: '1' }],
        }),
        201,
      )
      assert.equal((await ok(post(clerk.api, `/api/v3/bills/${fair.id}/submit/`))).status, 'pending_approval')
      assert.deepEqual(await stages(b.id), ['0.00', '50.00', '50.00'])
      const approval = (await get(s.approver.api, `/api/v3/approvals/?status=pending&approver=me`))
        .json()
        .data.find(
          (x: { document: { type: string; id: number } }) => x.document.type === 'bill' && x.document.id === fair.id,
        )
      assert.equal((await decide(s.approver.api, approval.id, 'reject', 'Wrong')).statusCode, 200)
      assert.deepEqual(await stages(b.id), ['0.00', '100.00', '0.00'])
    } finally {
      await s.admin({ method: 'DELETE', url: `/api/v3/approval-rules/${billRule.id}/` })
    }
  })

  test('two requests submitted at the same instant against a block budget that fits only one: exactly one passes', async () => {
    const a = await account()
    const b = await budget({ account: a.id, amount: '100', action: 'block' })
    const drafts = await Promise.all(
      [1, 2].map(() =>
        draft(s.requester.api, s.A, [{ description: 'X', quantity: '1', unit_price: '70', account: a.id }] as never),
      ),
    )
    const results = await Promise.all(drafts.map((d) => submit(s.requester.api, d.id)))
    const codes = results.map((r) => r.statusCode).sort()
    assert.deepEqual(codes, [200, 409], results.map((r) => r.body).join('\n'))
    assert.deepEqual(await stages(b.id), ['0.00', '70.00', '0.00'])
  })
})
