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
import {
  approvedRequest,
  issuedOrder,
  line,
  newOrder,
  poLine,
  rule,
  setUpOrders,
  type OrderSetup,
} from './helpers/orders.ts'
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

const orderOf = async (id: number) =>
  (await s.buyer.api({ method: 'GET', url: `/api/v3/purchase-orders/${id}/` })).json().data

test('a draft made by hand, edited on its form (a line added, one removed, a refusal kept), then revised', async () => {
  const incomplete = await buyer.submit('/console/orders/new', '/console/orders/new', {
    vendor: '',
    location: String(s.A),
    rows: '1',
    'lines.0.description': 'Desk',
  })
  assert.equal(incomplete.statusCode, 400, incomplete.body)
  const said = [...incomplete.body.matchAll(/<li><a href="#f-([^"]+)">([^<]+)<\/a><\/li>/g)].map((m) => m[2]!)
  assert.ok(
    said.some((text) => text.startsWith('Vendor: ')),
    said.join(' | '),
  )
  assert.ok(
    said.some((text) => text.startsWith('Line 1, Quantity: ')),
    said.join(' | '),
  )
  for (const text of said) assert.doesNotMatch(text, /must be (integer|string)|anyOf|pattern/, text)
  const made = await buyer.submit('/console/orders/new', '/console/orders/new', {
    vendor: String(s.vendor),
    location: String(s.A),
    notes: 'First draft',
    rows: '2',
    'lines.0.description': 'Desk',
    'lines.0.quantity': '2',
    'lines.0.unit_price': '100',
    'lines.0.tax_rate': '10',
    'lines.1.description': 'Lamp',
    'lines.1.quantity': '1',
    'lines.1.unit_price': '20',
  })
  assert.equal(made.statusCode, 303, made.body)
  const id = Number(/orders\/(\d+)\?done=created/.exec(String(made.headers.location))![1])
  let o = await orderOf(id)
  assert.equal(o.status, 'draft')
  assert.equal(o.total, '240.00')
  const [desk, lamp] = o.lines.map((l: { id: number }) => l.id)

  const edit = `/console/orders/${id}/edit`
  const form = await buyer.get(edit)
  assert.equal(form.statusCode, 200)
  assert.match(form.body, /value="Desk"/)
  assert.match(form.body, /Save draft/)
  // "Add a line" writes nothing and shows one more empty line.
  const added = await buyer.submit(edit, edit, { intent: 'add', rows: '1', 'lines.0.description': 'Kept' })
  assert.equal(added.statusCode, 200)
  assert.match(added.body, /Line 2/)
  assert.match(added.body, /value="Kept"/)
  assert.equal((await orderOf(id)).lines.length, 2)

  const fields = {
    vendor: String(s.vendor),
    location: String(s.A),
    notes: 'Second draft',
    promise_date: '2026-12-24',
    version: '0',
    rows: '3',
    'lines.0.id': String(desk),
    'lines.0.description': 'Standing desk',
    'lines.0.quantity': '3',
    'lines.0.unit_price': '100',
    'lines.0.tax_rate': '10',
    'lines.1.id': String(lamp),
    'lines.1.description': 'Lamp',
    'lines.1.quantity': '1',
    'lines.1.unit_price': '20',
    'lines.1.remove': 'on',
    'lines.2.description': 'Chair',
    'lines.2.quantity': 'lots',
    'lines.2.unit_price': '50',
  }
  // A refusal is said at its field, with everything typed kept, and nothing written.
  const refused = await buyer.submit(edit, edit, fields)
  assert.equal(refused.statusCode, 400, refused.body)
  assert.match(refused.body, /There is a problem/)
  assert.match(refused.body, /Line 2, Quantity/)
  assert.match(refused.body, /value="lots"/)
  assert.match(refused.body, /value="Standing desk"/)
  assert.match(refused.body, /Second draft/)
  assert.equal((await orderOf(id)).notes, 'First draft')

  const saved = await buyer.submit(edit, edit, { ...fields, 'lines.2.quantity': '4' })
  assert.equal(saved.statusCode, 303, saved.body)
  assert.match(String(saved.headers.location), /done=saved/)
  o = await orderOf(id)
  assert.equal(o.notes, 'Second draft')
  assert.equal(o.promise_date, '2026-12-24')
  assert.deepEqual(
    o.lines.map((l: { id: number; description: string; quantity: string }) => [l.description, l.quantity]),
    [
      ['Standing desk', '3'],
      ['Chair', '4'],
    ],
  )
  assert.equal(o.lines[0].id, desk, 'the kept line keeps its id')
  assert.equal(o.total, '530.00')

  // Issued: the same form revises it with the version it was opened at; a stale one is refused in words.
  assert.equal((await buyer.submit(`/console/orders/${id}`, `/console/orders/${id}/issue`, {})).statusCode, 303)
  o = await orderOf(id)
  const page = await buyer.get(`/console/orders/${id}`)
  assert.match(page.body, />Revise</)
  const revise = await buyer.get(edit)
  assert.match(revise.body, /Save revision/)
  assert.match(revise.body, /name="version" value="1"/)
  const lines = (quantity: string) => ({
    vendor: String(s.vendor),
    location: String(s.A),
    notes: 'Second draft',
    promise_date: '2026-12-24',
    rows: '2',
    'lines.0.id': String(o.lines[0].id),
    'lines.0.description': 'Standing desk',
    'lines.0.quantity': quantity,
    'lines.0.unit_price': '100',
    'lines.0.tax_rate': '10',
    'lines.1.id': String(o.lines[1].id),
    'lines.1.description': 'Chair',
    'lines.1.quantity': '4',
    'lines.1.unit_price': '50',
  })
  const stale = await buyer.submit(edit, edit, { ...lines('3.5'), version: '0' })
  assert.equal(stale.statusCode, 412, stale.body)
  assert.match(stale.body, /Someone changed this order while you were editing it/)
  assert.match(stale.body, /value="3.5"/)
  const revised = await buyer.submit(edit, edit, { ...lines('3.5'), version: '1' })
  assert.equal(revised.statusCode, 303, revised.body)
  assert.match(String(revised.headers.location), /done=revised/)
  o = await orderOf(id)
  assert.equal(o.version, 2)
  assert.equal(o.lines[0].quantity, '3.5')
  assert.match((await buyer.get(`/console/orders/${id}`)).body, /lines\.0\.quantity/)
  // Below what was received: the API's 409, said on the form with the item's name, what was typed kept.
  const received = await s.buyer.api({
    method: 'POST',
    url: '/api/v3/receipts/',
    payload: { purchase_order: id, lines: [{ po_line: o.lines[1].id, accepted_quantity: '4' }] },
  })
  assert.equal(received.statusCode, 201, received.body)
  const below = await buyer.submit(edit, edit, { ...lines('3.5'), 'lines.1.quantity': '2', version: '2' })
  assert.equal(below.statusCode, 409, below.body)
  assert.match(below.body, /the line “Chair” cannot go below 4/)
  assert.match(below.body, /name="lines\.1\.quantity"[^>]*value="2"/)
  // Someone without Purchase at the location: the form is a 403 page for them.
  assert.equal((await requester.get('/console/orders/new')).statusCode, 403)
})

test('a revision beyond the approval tolerance is held for approval, and the page says so', async () => {
  const ruleRow = await rule(s.admin, {
    location: s.A,
    step: 1,
    approvers: [s.approver.profileId],
    document: 'purchase_order',
    min_total: '1000',
  })
  try {
    const o = await newOrder(s.buyer.api, { vendor: s.vendor, location: s.A, lines: [poLine('1', '100')] })
    const issued = (await s.buyer.api({ method: 'POST', url: `/api/v3/purchase-orders/${o.id}/issue/` })).json().data
    assert.equal(issued.status, 'issued')
    const edit = `/console/orders/${o.id}/edit`
    const held = await buyer.submit(edit, edit, {
      vendor: String(s.vendor),
      location: String(s.A),
      version: '1',
      rows: '1',
      'lines.0.id': String(issued.lines[0].id),
      'lines.0.description': 'Item',
      'lines.0.quantity': '20',
      'lines.0.unit_price': '100',
    })
    assert.equal(held.statusCode, 303, held.body)
    assert.match(String(held.headers.location), /done=held/)
    const page = await buyer.get(String(held.headers.location))
    assert.match(page.body, /waits for approval/)
    assert.match(page.body, /A revision to 2,000.00 USD waits for approval/)
    assert.doesNotMatch(page.body, />Revise</, 'no second revision while one waits')
    const again = await buyer.get(edit)
    assert.equal(again.statusCode, 303)
    assert.match((await buyer.get(String(again.headers.location))).body, /must be approved or rejected before another/)
    assert.equal((await orderOf(o.id)).version, 1)
    // The approver sees the order (a candidate of its revision) but holds no Purchase there: no form for them.
    assert.equal((await approver.get(`/console/orders/${o.id}`)).statusCode, 200)
    const notBuyer = await approver.get(edit)
    assert.equal(notBuyer.statusCode, 403)
    assert.match(notBuyer.body, /needs the Purchase permission/)
  } finally {
    await s.admin({ method: 'DELETE', url: `/api/v3/approval-rules/${ruleRow.id}/` })
  }
})

test('e-mail to chosen recipients: prefilled with the vendor’s address, a bad address said at the field', async () => {
  const o = await issuedOrder(s)
  const url = `/console/orders/${o.id}`
  const page = await buyer.get(url)
  assert.match(page.body, /name="to"[^>]*value="orders@acme.test"/)
  const bad = await buyer.submit(url, `${url}/send`, { to: 'buyer@shop.test, not-an-address', message: 'Hi' })
  assert.equal(bad.statusCode, 400, bad.body)
  assert.match(bad.body, /&quot;not-an-address&quot; is not an e-mail address/)
  assert.match(bad.body, /value="buyer@shop.test, not-an-address"/)
  const bidi = await buyer.submit(url, `${url}/send`, { to: 'evil\u202E@shop.test' })
  assert.equal(bidi.statusCode, 400)
  const empty = await buyer.submit(url, `${url}/send`, { to: '  ' })
  assert.equal(empty.statusCode, 400)
  assert.match(empty.body, /Enter at least one e-mail address/)
  assert.equal((await orderOf(o.id)).sent_at, null)

  const before = await ctx.database.db
    .selectFrom('email_outbox')
    .select('id')
    .where('tenant_id', '=', s.tenant.tenantId)
    .execute()
  const sent = await buyer.submit(url, `${url}/send`, {
    to: 'sales@acme.test; Ops@Acme.test',
    message: 'Please confirm the delivery date.',
  })
  assert.equal(sent.statusCode, 303, sent.body)
  const mail = await ctx.database.db
    .selectFrom('email_outbox')
    .selectAll()
    .where('tenant_id', '=', s.tenant.tenantId)
    .where('id', 'not in', before.length === 0 ? [0] : before.map((m) => m.id))
    .orderBy('id')
    .execute()
  assert.deepEqual(
    mail.map((m) => m.to_address),
    ['sales@acme.test', 'Ops@Acme.test'],
  )
  assert.match(mail[0]!.body_text, /Please confirm the delivery date\./)
  assert.equal(mail[0]!.attachments[0]!.filename, `${o.number}.pdf`)
  assert.equal(Buffer.from(mail[0]!.attachments[0]!.content, 'base64').subarray(0, 5).toString(), '%PDF-')
  assert.ok((await orderOf(o.id)).sent_at)
  // A draft cannot be e-mailed: the API's 409 is said on the page.
  const draftOrder = await newOrder(s.buyer.api, { vendor: s.vendor, location: s.A, lines: [poLine('1', '1')] })
  const early = await buyer.submit(url, `/console/orders/${draftOrder.id}/send`, { to: 'a@shop.test' })
  assert.equal(early.statusCode, 409)
  assert.match(early.body, /only an issued order can be sent/)
})

test('the order’s page lists its bills, and offers “Enter a bill” to those who may', async () => {
  const o = await issuedOrder(s, [poLine('10', '5')])
  const entered = await s.admin({
    method: 'POST',
    url: '/api/v3/bills/',
    payload: { number: 'INV-7001', purchase_order: o.id, lines: [{ po_line: o.lines[0].id, quantity: '4' }] },
  })
  assert.equal(entered.statusCode, 201, entered.body)
  const bill = entered.json().data
  const page = await buyer.get(`/console/orders/${o.id}`)
  assert.match(page.body, /<h2 id="bills">Bills<\/h2>/)
  assert.match(page.body, new RegExp(`href="/console/bills/${bill.id}"`))
  assert.match(page.body, /INV-7001/)
  assert.match(page.body, /20.00 USD/)
  assert.doesNotMatch(page.body, /Enter a bill/, 'the buyer holds no accounts_payable')
  const admin = await throughLink(
    ctx,
    s.tenant.host,
    await resetPasswordLink(ctx.database.db, s.tenant.domain, `admin@${s.tenant.domain}.test`),
  )
  const asAdmin = await admin.get(`/console/orders/${o.id}`)
  assert.match(asAdmin.body, new RegExp(`href="/console/bills/new\\?order=${o.id}"`))
  const other = await issuedOrder(s)
  assert.match((await buyer.get(`/console/orders/${other.id}`)).body, /No bills against this order yet/)
})
