/**
 * The order's PDF and `send` (DECISIONS: only issued orders; the PDF e-mailed through the outbox, by default
 * to the vendor's e-mail; `sent_at` set; `purchase_order.sent`).
 */
import assert from 'node:assert/strict'
import { beforeEach, test } from 'node:test'
import { PDFDocument } from 'pdf-lib'
import { useTestApp } from './helpers/app.ts'
import { act, issuedOrder, newOrder, newVendor, poLine, setUpOrders, type OrderSetup } from './helpers/orders.ts'
import { BASE_DOMAIN } from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn' })
let s: OrderSetup
let ready = false
beforeEach(async () => {
  if (ready) return
  ready = true
  s = await setUpOrders(ctx)
})

const outbox = () =>
  ctx.database.db
    .selectFrom('email_outbox')
    .selectAll()
    .where('tenant_id', '=', s.tenant.tenantId)
    .orderBy('id')
    .execute()

test('the PDF: application/pdf, the order’s number and version, one page per ~40 lines', async () => {
  const lines = Array.from({ length: 60 }, (_, i) => poLine('1', '2.5', '0', `Part ${i + 1} — façade`))
  const po = await issuedOrder(s, lines)
  const pdf = await s.buyer.api({ method: 'GET', url: `/api/v3/purchase-orders/${po.id}/pdf/` })
  assert.equal(pdf.statusCode, 200)
  assert.equal(pdf.headers['content-type'], 'application/pdf')
  assert.equal(pdf.rawPayload.subarray(0, 5).toString(), '%PDF-')
  const doc = await PDFDocument.load(pdf.rawPayload)
  assert.equal(doc.getTitle(), `${po.number} (version 1)`)
  assert.ok(doc.getPageCount() >= 2)
  assert.equal((await s.requester.api({ method: 'GET', url: `/api/v3/purchase-orders/${po.id}/pdf/` })).statusCode, 404)
})

test('send: only issued; to the vendor by default with the PDF attached; sent_at and the event', async () => {
  const draft = await newOrder(s.buyer.api, { vendor: s.vendor, location: s.A, lines: [poLine('1', '1')] })
  const early = await act(s.buyer.api, draft.id, 'send')
  assert.equal(early.statusCode, 409)
  assert.match(early.json().detail, /draft/)
  const po = await issuedOrder(s)
  const before = (await outbox()).length
  const sent = await s.buyer.api({ method: 'POST', url: `/api/v3/purchase-orders/${po.id}/send/` })
  assert.equal(sent.statusCode, 200, sent.body)
  assert.ok(sent.json().data.sent_at)
  const mail = (await outbox()).slice(before)
  assert.equal(mail.length, 1)
  assert.equal(mail[0]!.to_address, 'orders@acme.test')
  assert.match(mail[0]!.subject, new RegExp(po.number))
  assert.equal(mail[0]!.attachments.length, 1)
  assert.equal(mail[0]!.attachments[0]!.content_type, 'application/pdf')
  assert.equal(Buffer.from(mail[0]!.attachments[0]!.content, 'base64').subarray(0, 5).toString(), '%PDF-')
  const custom = await s.buyer.api({
    method: 'POST',
    url: `/api/v3/purchase-orders/${po.id}/send/`,
    payload: { to: ['a@example.com', 'b@example.com'], message: 'Please confirm.' },
  })
  assert.equal(custom.statusCode, 200)
  const more = (await outbox()).slice(before + 1)
  assert.deepEqual(
    more.map((m) => m.to_address),
    ['a@example.com', 'b@example.com'],
  )
  assert.match(more[0]!.body_text, /Please confirm\./)
  const events = (await s.admin({ method: 'GET', url: '/api/v3/events/?type=purchase_order.sent' })).json().data
  assert.equal(events.filter((e: { data: { object: { id: number } } }) => e.data.object.id === po.id).length, 2)
  // A vendor without an e-mail: 400 naming `to`.
  const silent = await newVendor(s.admin, 'No Mail Inc', [])
  const other = await newOrder(s.buyer.api, { vendor: silent, location: s.A, lines: [poLine('1', '1')] })
  await act(s.buyer.api, other.id, 'issue')
  const noAddress = await act(s.buyer.api, other.id, 'send')
  assert.equal(noAddress.statusCode, 400)
  assert.ok(noAddress.json().errors.to)
  const badAddress = await s.buyer.api({
    method: 'POST',
    url: `/api/v3/purchase-orders/${po.id}/send/`,
    payload: { to: ['not-an-address'] },
  })
  assert.equal(badAddress.statusCode, 400)
})
