/**
 * Orders and receiving in the console over HTTP, with the data made in the test: orders made from an
 * approved request in one click, the order page and its actions (issue, close a line), the receiving form
 * (a quantity too many is a 409 said on the page, what was typed kept), void, the orders list's status
 * filter, an order approval in the inbox beside request approvals, and hidden orders stay 404 pages.
 */
import assert from 'node:assert/strict'
import { beforeEach, test } from 'node:test'
import { resetPasswordLink } from '../src/tenants/service.ts'
import { useTestApp } from './helpers/app.ts'
import { approvedRequest, line, rule, setUpOrders, type OrderSetup } from './helpers/orders.ts'
import { BASE_DOMAIN, throughLink, type Browser } from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn' })
let s: OrderSetup
let buyer: Browser
let approver: Browser
let requester: Browser

const signIn = async (name: string) =>
  throughLink(
    ctx,
    s.tenant.host,
    await resetPasswordLink(ctx.database.db, s.tenant.domain, `${name}@${s.tenant.domain}.test`),
  )

let ready = false
beforeEach(async () => {
  if (ready) return
  ready = true
  s = await setUpOrders(ctx)
  buyer = await signIn('buyer')
  approver = await signIn('approver')
  requester = await signIn('requester')
})

test('from an approved request in one click to a received order', async () => {
  const request = await approvedRequest(s, [
    { ...line('4', '10', 'Chairs'), vendor: s.vendor },
    { ...line('2', '5', 'Lamps'), vendor: s.vendor },
  ])
  const page = await buyer.get(`/console/requests/${request.id}`)
  assert.match(page.body, /Make purchase orders/)
  const made = await buyer.submit(`/console/requests/${request.id}`, `/console/requests/${request.id}/order`, {})
  assert.equal(made.statusCode, 303, made.body)
  const orderUrl = made.headers.location as string
  assert.match(orderUrl, /^\/console\/orders\/\d+\?done=made$/)
  const id = Number(/orders\/(\d+)/.exec(orderUrl)![1])
  const again = await buyer.submit(`/console/requests/${request.id}`, `/console/requests/${request.id}/order`, {})
  assert.match(String(again.headers.location), /problem=ordered/)
  assert.match((await buyer.get(String(again.headers.location))).body, /each line is ordered once/)

  let detail = await buyer.get(orderUrl)
  assert.equal(detail.statusCode, 200)
  assert.match(detail.body, /Chairs/)
  assert.match(detail.body, /50.00 USD/)
  const issued = await buyer.submit(`/console/orders/${id}`, `/console/orders/${id}/issue`, {})
  assert.equal(issued.statusCode, 303)
  detail = await buyer.get(`/console/orders/${id}`)
  assert.match(detail.body, /Issued/)
  const order = (await s.buyer.api({ method: 'GET', url: `/api/v3/purchase-orders/${id}/` })).json().data
  const [chairs, lamps] = order.lines.map((l: { id: number }) => l.id)

  const receive = `/console/orders/${id}/receive`
  const form = await buyer.get(receive)
  assert.equal(form.statusCode, 200)
  assert.match(form.body, /Post receipt/)
  const tooMany = await buyer.submit(receive, receive, { packing_slip: 'PS-9', [`accepted.${chairs}`]: '5' })
  assert.equal(tooMany.statusCode, 409)
  assert.match(tooMany.body, /still open 4/)
  assert.match(tooMany.body, /value="PS-9"/)
  const bad = await buyer.submit(receive, receive, { [`accepted.${chairs}`]: 'three' })
  assert.equal(bad.statusCode, 400)
  const posted = await buyer.submit(receive, receive, {
    packing_slip: 'PS-10',
    [`accepted.${chairs}`]: '3',
    [`rejected.${chairs}`]: '1',
    [`accepted.${lamps}`]: '',
  })
  assert.equal(posted.statusCode, 303, posted.body)
  const after = (await s.buyer.api({ method: 'GET', url: `/api/v3/purchase-orders/${id}/` })).json().data
  assert.equal(after.lines[0].received_quantity, '3')
  assert.equal(after.lines[0].rejected_quantity, '1')
  assert.equal(after.receipt_status, 'partial')
  const closeLamps = await buyer.submit(`/console/orders/${id}`, `/console/orders/${id}/lines/${lamps}/close`, {})
  assert.equal(closeLamps.statusCode, 303)

  const receipts = (await s.buyer.api({ method: 'GET', url: `/api/v3/receipts/?purchase_order=${id}` })).json().data
  const voided = await buyer.submit(receive, `/console/receipts/${receipts[0].id}/void`, {})
  assert.equal(voided.statusCode, 303)
  assert.match((await buyer.get(String(voided.headers.location))).body, /Voided/)

  const list = await buyer.get('/console/orders?status=issued')
  assert.match(list.body, new RegExp(order.number))
  assert.doesNotMatch((await buyer.get('/console/orders?status=draft')).body, new RegExp(`${order.number}<`))
  assert.match((await buyer.get('/console/receiving')).body, new RegExp(order.number))
  assert.equal((await requester.get(`/console/orders/${id}`)).statusCode, 404)
  assert.equal((await buyer.get(`/console/orders/${id}/pdf`)).headers['content-type'], 'application/pdf')
})

test('an order approval is in the approver’s inbox and is decided from its page', async () => {
  const ruleRow = await rule(s.admin, {
    location: s.A,
    step: 1,
    approvers: [s.approver.profileId],
    document: 'purchase_order',
  })
  try {
    const order = (
      await s.buyer.api({
        method: 'POST',
        url: '/api/v3/purchase-orders/',
        payload: {
          vendor: s.vendor,
          location: s.A,
          lines: [{ description: 'Desk', quantity: '1', unit_price: '300' }],
        },
      })
    ).json().data
    const pending = (await s.buyer.api({ method: 'POST', url: `/api/v3/purchase-orders/${order.id}/issue/` })).json()
      .data
    const approval = pending.approvals[0]
    const inbox = await approver.get('/console/approvals')
    assert.match(inbox.body, new RegExp(order.number))
    assert.match(inbox.body, /Purchase order to Acme Supplies/)
    const decide = `/console/approvals/${approval.id}`
    assert.match((await approver.get(decide)).body, /Approve purchase order/)
    const done = await approver.submit(decide, decide, { decision: 'approve', comment: '' })
    assert.equal(done.statusCode, 303, done.body)
    const issued = (await s.buyer.api({ method: 'GET', url: `/api/v3/purchase-orders/${order.id}/` })).json().data
    assert.equal(issued.status, 'issued')
  } finally {
    await s.admin({ method: 'DELETE', url: `/api/v3/approval-rules/${ruleRow.id}/` })
  }
})
