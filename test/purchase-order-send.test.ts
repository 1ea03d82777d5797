/**
 * The order's PDF and `send` (DECISIONS: only issued orders; the PDF e-mailed through the outbox, by default
 * to the vendor's e-mail; `sent_at` set; `purchase_order.sent`).
 */
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import path from 'node:path'
import { beforeEach, test } from 'node:test'
import { PDFDocument } from 'pdf-lib'
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs'
import { useTestApp } from './helpers/app.ts'
import { act, issuedOrder, newOrder, newVendor, poLine, setUpOrders, type OrderSetup } from './helpers/orders.ts'
import { BASE_DOMAIN } from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn' })
const standardFontDataUrl = `${path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'))}/standard_fonts/`
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

/** The PDF's text, line by line (pdfjs), and each page's size in points. */
async function pdfOf(id: number) {
  const response = await s.admin({ method: 'GET', url: `/api/v3/purchase-orders/${id}/pdf/` })
  assert.equal(response.statusCode, 200, response.body)
  const document = await getDocument({ data: new Uint8Array(response.rawPayload), standardFontDataUrl }).promise
  const lines: string[] = []
  const sizes: number[][] = []
  for (let n = 1; n <= document.numPages; n++) {
    const page = await document.getPage(n)
    sizes.push(page.view.slice(2).map(Math.round))
    for (const item of (await page.getTextContent()).items) if ('str' in item && item.str.trim()) lines.push(item.str)
  }
  return { text: lines.join('\n'), sizes }
}

test('the PDF names the buyer, the vendor with its address, the terms and the contact; Letter in the US, A4 in Germany', async () => {
  const db = ctx.database.db
  const tenantId = s.tenant.tenantId
  const entity = await db
    .insertInto('legal_entities')
    .values({ tenant_id: tenantId, name: 'Initech Holdings Inc.' })
    .returning('id')
    .executeTakeFirstOrThrow()
  const [net30, fob] = await Promise.all([
    db
      .insertInto('payment_terms')
      .values({ tenant_id: tenantId, name: 'Net 30' })
      .returning('id')
      .executeTakeFirstOrThrow(),
    db
      .insertInto('shipping_terms')
      .values({ tenant_id: tenantId, name: 'FOB Destination' })
      .returning('id')
      .executeTakeFirstOrThrow(),
  ])
  const location = async (name: string, country: string, city: string, legal_entity: number | null) => {
    const address = { addressLineOne: `${name} street 1`, city, postalCode: '60601', state_province: 'IL', country }
    const created = await s.admin({
      method: 'POST',
      url: '/api/v2/locations/',
      payload: {
        name,
        currency: 'USD',
        phoneOne: '+1 555 0100',
        legal_entity,
        primary_billing_address: { name: `${name} accounts`, ...address },
        primary_shipping_address: { name: `${name} dock`, ...address },
      },
    })
    assert.equal(created.statusCode, 201, created.body)
    return created.json().data.id as number
  }
  const chicago = await location('Chicago Office', 'United States', 'Chicago', entity.id)
  const berlin = await location('Berlin Office', 'Germany', 'Berlin', null)
  const vendor = await s.admin({
    method: 'POST',
    url: '/api/v3/vendors/',
    payload: {
      name: 'Müller Bürobedarf GmbH',
      addressLineOne: 'Hauptstraße 5',
      postalCode: '10115',
      city: 'Berlin',
      country: 'Germany',
      payment_term_ref: net30.id,
      shipping_term_ref: { id: fob.id },
    },
  })
  assert.equal(vendor.statusCode, 201, vendor.body)
  const order = async (at: number) => {
    const po = await newOrder(s.admin, {
      vendor: vendor.json().data.id,
      location: at,
      promise_date: '2026-12-15',
      notes: 'Deliver to the loading dock.',
      lines: [poLine('2', '1100', '0', 'Standing desk')],
    })
    return po.id as number
  }

  const us = await pdfOf(await order(chicago))
  assert.deepEqual(us.sizes, [[612, 792]], 'US Letter for a location in the US')
  for (const expected of [
    'Buyer',
    'Initech Holdings Inc.',
    'Chicago Office street 1',
    'Chicago, IL 60601',
    'Vendor',
    'Müller Bürobedarf GmbH',
    'Hauptstraße 5',
    '10115 Berlin',
    'Germany',
    'Net 30',
    'FOB Destination',
    '2026-12-15',
    'admin@',
    'Deliver to the loading dock.',
    '2,200.00',
  ])
    assert.ok(us.text.includes(expected), `"${expected}" is in the PDF:\n${us.text}`)

  const de = await pdfOf(await order(berlin))
  assert.deepEqual(de.sizes, [[595, 842]], 'A4 elsewhere')
  assert.ok(de.text.includes('Berlin Office'), 'a location without a legal entity is the buyer by its own name')
  assert.ok(de.text.includes('60601 Berlin'), "an address outside the US in its country's order")
})
