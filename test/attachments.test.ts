/**
 * Attachments (DECISIONS, "Attachments and comments") through HTTP: upload (multipart, one file part, the
 * type from the bytes, the allow-list, 415 naming the type, the filename rule, 413, 50 per document),
 * content-addressed storage (dedupe, last reference deletes the bytes), download headers and 304, who may
 * see, add and delete, an order's request attachments, and vendor-visible attachments sent with the order.
 */
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { Readable } from 'node:stream'
import { beforeEach, describe, test } from 'node:test'
import { useTestApp } from './helpers/app.ts'
import { multipart, PNG, pdf, type Part } from './helpers/attachments.ts'
import { approvedRequest, issuedOrder, line, poLine, setUpOrders, type OrderSetup } from './helpers/orders.ts'
import { draft } from './helpers/requests.ts'
import type { Api } from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN: 'example.test', LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' })
let s: OrderSetup
let ready = false
beforeEach(async () => {
  if (ready) return
  ready = true
  s = await setUpOrders(ctx)
})

const upload = (api: Api, url: string, parts: Part[]) => api({ method: 'POST', url, ...multipart(parts) })
const file = (value: Buffer | string, filename = 'file.bin'): Part => ({ name: 'file', value, filename })
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex')

async function attach(api: Api, url: string, parts: Part[]) {
  const r = await upload(api, url, parts)
  assert.equal(r.statusCode, 201, r.body)
  return r.json().data
}

describe('attachments', () => {
  test('a PDF on a request: 201 with the attachment, listed, its bytes downloaded with the headers', async () => {
    const req = await draft(s.requester.api, s.A)
    const url = `/api/v3/requests/${req.id}/attachments/`
    const bytes = pdf('quote')
    const r = await upload(s.requester.api, url, [
      file(bytes, 'C:\\Users\\me\\quote.pdf'),
      { name: 'description', value: 'The quote' },
    ])
    assert.equal(r.statusCode, 201, r.body)
    const a = r.json().data
    assert.ok(String(r.headers.location).endsWith(`/api/v3/attachments/${a.id}/`))
    assert.deepEqual(a.document, { type: 'request', id: req.id })
    assert.equal(a.filename, 'quote.pdf')
    assert.equal(a.content_type, 'application/pdf')
    assert.equal(a.size, bytes.length)
    assert.equal(a.sha256, sha(bytes))
    assert.equal(a.scan_status, 'not_scanned')
    assert.equal(a.description, 'The quote')
    assert.equal(a.vendor_visible, false)
    assert.equal(a.uploaded_by.id, s.requester.profileId)
    const list = await s.requester.api({ method: 'GET', url })
    assert.equal(list.statusCode, 200, list.body)
    assert.deepEqual(
      list.json().data.map((x: { id: number }) => x.id),
      [a.id],
    )
    const one = await s.requester.api({ method: 'GET', url: `/api/v3/attachments/${a.id}/` })
    assert.deepEqual(one.json().data, a)
    const got = await s.requester.api({ method: 'GET', url: `/api/v3/attachments/${a.id}/content` })
    assert.equal(got.statusCode, 200)
    assert.deepEqual(got.rawPayload, bytes)
    assert.equal(got.headers['content-type'], 'application/pdf')
    assert.equal(got.headers['content-disposition'], "attachment; filename*=UTF-8''quote.pdf")
    assert.equal(got.headers['x-content-type-options'], 'nosniff')
    assert.equal(got.headers['content-security-policy'], "sandbox; default-src 'none'")
    assert.equal(got.headers.etag, `"${sha(bytes)}"`)
    const again = await s.requester.api({
      method: 'GET',
      url: `/api/v3/attachments/${a.id}/content`,
      headers: { 'if-none-match': `"${sha(bytes)}"` },
    })
    assert.equal(again.statusCode, 304)
    assert.equal(again.body, '')
  })

  test('the type comes from the bytes: refused types are 415 naming what was found; text, CSV, EML, images pass', async () => {
    const req = await draft(s.requester.api, s.A)
    const url = `/api/v3/requests/${req.id}/attachments/`
    const refused: [string | Buffer, string][] = [
      ['<!DOCTYPE html><html><body>hi</body></html>', 'text/html'],
      ['<svg xmlns="http://www.w3.org/2000/svg"></svg>', 'image/svg+xml'],
      ['<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>', 'image/svg+xml'],
      ['<?xml version="1.0"?><root><a>1</a></root>', 'application/xml'],
      [Buffer.from([0x4d, 0x5a, 0x90, 0, 3, 0, 0, 0, 4, 0, 0, 0, 0xff, 0xff, 0, 0]), 'application/x-msdownload'],
      ['#!/bin/sh\nrm -rf /\n', 'text/x-shellscript'],
      [Buffer.from([0x41, 0x42, 0xc3, 0x28, 0x43, 0x0a]), 'application/octet-stream'],
    ]
    for (const [bytes, type] of refused) {
      const r = await upload(s.requester.api, url, [file(bytes, 'innocent.pdf')])
      assert.equal(r.statusCode, 415, `${type}: ${r.body}`)
      assert.match(r.json().detail, new RegExp(type.replace(/[+/.]/g, (c) => `\\${c}`)))
    }
    const accepted: [string | Buffer, string][] = [
      [PNG, 'image/png'],
      ['Just some notes, in UTF-8: café.\n', 'text/plain'],
      ['a,b,c\n1,2,3\n4,5,6\n', 'text/csv'],
      ['From: a@example.com\r\nTo: b@example.com\r\nSubject: Quote\r\n\r\nHello\r\n', 'message/rfc822'],
      [
        Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]),
        'image/jpeg',
      ],
      [Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1'), 'image/gif'],
    ]
    for (const [bytes, type] of accepted) {
      const a = await attach(s.requester.api, url, [file(bytes, 'x.html')])
      assert.equal(a.content_type, type)
    }
  })

  test('UTF-8 is judged over the whole stream: characters cut between chunks pass, a bad or unfinished one does not', async () => {
    const req = await draft(s.requester.api, s.A)
    const url = `/api/v3/requests/${req.id}/attachments/`
    /** The body in chunks of 1 to 5 bytes in turn, so every multi-byte character is cut somewhere. */
    const inPieces = (parts: Part[]) => {
      const { payload, headers } = multipart(parts)
      const pieces: Buffer[] = []
      for (let at = 0, n = 0; at < payload.length; n++) pieces.push(payload.subarray(at, (at += (n % 5) + 1)))
      return { payload: Readable.from(pieces), headers }
    }
    const text = Buffer.from('Prices: 12 € · 3 £ · 😀 naïve café 日本語\n'.repeat(400))
    const ok = await s.requester.api({ method: 'POST', url, ...inPieces([file(text, 'notes.txt')]) })
    assert.equal(ok.statusCode, 201, ok.body)
    assert.equal(ok.json().data.content_type, 'text/plain')
    const bad = [
      Buffer.concat([text, Buffer.from([0xe2, 0x82])]), // a character left unfinished at the end
      Buffer.concat([text.subarray(0, 5000), Buffer.from([0xed, 0xa0, 0x80]), text.subarray(5000)]), // a surrogate
      Buffer.concat([text.subarray(0, 7001), Buffer.from([0xc0, 0xaf]), text.subarray(7001)]), // an overlong
    ]
    for (const bytes of bad) {
      const r = await s.requester.api({ method: 'POST', url, ...inPieces([file(bytes, 'notes.txt')]) })
      assert.equal(r.statusCode, 415, r.body)
      assert.match(r.json().detail, /application\/octet-stream/)
    }
  })

  test('downloads end where the file ends: at a read slice, just past one, and across a 1 MiB part', async () => {
    const req = await draft(s.requester.api, s.A)
    const url = `/api/v3/requests/${req.id}/attachments/`
    for (const size of [48 * 1024, 2 * 48 * 1024, 48 * 1024 + 1, 1024 * 1024, 1024 * 1024 + 48 * 1024 + 7]) {
      const bytes = Buffer.concat([pdf(`size ${size}`), randomBytes(size)]).subarray(0, size)
      const a = await attach(s.requester.api, url, [file(bytes, `${size}.pdf`)])
      const got = await s.requester.api({ method: 'GET', url: `/api/v3/attachments/${a.id}/content` })
      assert.equal(got.statusCode, 200)
      assert.equal(got.rawPayload.length, size, `${size} bytes`)
      assert.equal(sha(got.rawPayload), sha(bytes), `${size} bytes`)
    }
  })

  test('the filename rule, one file part, 400s for bad forms, 415 for a non-multipart body', async () => {
    const req = await draft(s.requester.api, s.A)
    const url = `/api/v3/requests/${req.id}/attachments/`
    const a = await attach(s.requester.api, url, [file('notes', '../../etc/\u202Eevil\u0007\u0085name.txt')])
    assert.equal(a.filename, 'evilname.txt')
    const long = await attach(s.requester.api, url, [file('more notes', `${'é'.repeat(300)}.txt`)])
    assert.equal([...long.filename].length, 255)
    const two = await upload(s.requester.api, url, [file('one'), file('two')])
    assert.equal(two.statusCode, 400, two.body)
    const none = await upload(s.requester.api, url, [{ name: 'description', value: 'x' }])
    assert.equal(none.statusCode, 400, none.body)
    assert.match(none.json().detail, /file/)
    const other = await upload(s.requester.api, url, [file('x'), { name: '__proto__', value: 'x' }])
    assert.equal(other.statusCode, 400, other.body)
    const vendorVisible = await upload(s.requester.api, url, [file('x'), { name: 'vendor_visible', value: 'true' }])
    assert.equal(vendorVisible.statusCode, 400, vendorVisible.body)
    const json = await s.requester.api({ method: 'POST', url, payload: { file: 'x' } })
    assert.equal(json.statusCode, 415, json.body)
    assert.match(json.json().detail, /multipart\/form-data/)
  })

  test('same bytes stored once per tenant; the last reference deleted deletes them', async () => {
    const req = await draft(s.requester.api, s.A)
    const url = `/api/v3/requests/${req.id}/attachments/`
    const bytes = pdf(`dedupe ${Date.now()}`)
    const a = await attach(s.requester.api, url, [file(bytes, 'a.pdf')])
    const b = await attach(s.requester.api, url, [file(bytes, 'b.pdf')])
    const blobs = () =>
      ctx.database.db
        .selectFrom('attachment_blobs')
        .select('id')
        .where('tenant_id', '=', s.tenant.tenantId)
        .where('sha256', '=', sha(bytes))
        .execute()
    assert.equal((await blobs()).length, 1)
    assert.equal((await s.requester.api({ method: 'DELETE', url: `/api/v3/attachments/${a.id}/` })).statusCode, 204)
    assert.equal((await blobs()).length, 1)
    const still = await s.requester.api({ method: 'GET', url: `/api/v3/attachments/${b.id}/content` })
    assert.deepEqual(still.rawPayload, bytes)
    assert.equal((await s.requester.api({ method: 'DELETE', url: `/api/v3/attachments/${b.id}/` })).statusCode, 204)
    assert.equal((await blobs()).length, 0)
    assert.equal((await s.requester.api({ method: 'GET', url: `/api/v3/attachments/${b.id}/` })).statusCode, 404)
  })

  test('who: others 404, seeing without acting 403, uploader deletes only while draft/pending, superuser always', async () => {
    const req = await draft(s.requester.api, s.A)
    const url = `/api/v3/requests/${req.id}/attachments/`
    const stranger = await s.user(`stranger${Date.now()}`, s.roles.Requester, s.B)
    const a = await attach(s.requester.api, url, [file('mine', 'mine.txt')])
    assert.equal((await upload(stranger.api, url, [file('x')])).statusCode, 404)
    assert.equal((await stranger.api({ method: 'GET', url })).statusCode, 404)
    assert.equal((await stranger.api({ method: 'GET', url: `/api/v3/attachments/${a.id}/` })).statusCode, 404)
    assert.equal((await stranger.api({ method: 'GET', url: `/api/v3/attachments/${a.id}/content` })).statusCode, 404)
    assert.equal((await stranger.api({ method: 'DELETE', url: `/api/v3/attachments/${a.id}/` })).statusCode, 404)
    // The approver sees requests at A (nav_approval) but acts only as a candidate.
    const seen = await s.approver.api({ method: 'GET', url })
    assert.equal(seen.statusCode, 200, seen.body)
    const refused = await upload(s.approver.api, url, [file('x')])
    assert.equal(refused.statusCode, 403, refused.body)
    // A buyer (nav_purchase at A) may add, but not delete another's.
    const b = await attach(s.buyer.api, url, [file('buyer notes', 'b.txt')])
    assert.equal((await s.buyer.api({ method: 'DELETE', url: `/api/v3/attachments/${a.id}/` })).statusCode, 403)
    // Once the request is approved, its uploader may no longer delete; a superuser may.
    const submitted = await s.requester.api({ method: 'POST', url: `/api/v3/requests/${req.id}/submit/` })
    assert.equal(submitted.statusCode, 200, submitted.body)
    assert.equal(submitted.json().data.status, 'approved')
    assert.equal((await s.requester.api({ method: 'DELETE', url: `/api/v3/attachments/${a.id}/` })).statusCode, 403)
    assert.equal((await s.admin({ method: 'DELETE', url: `/api/v3/attachments/${a.id}/` })).statusCode, 204)
    assert.equal((await s.admin({ method: 'DELETE', url: `/api/v3/attachments/${b.id}/` })).statusCode, 204)
  })

  test('at most 50 per document (409); an order lists its request attachments read-only, not counted', async () => {
    const req = await approvedRequest(s, [line('1', '10')])
    const reqUrl = `/api/v3/requests/${req.id}/attachments/`
    const fromRequest = await attach(s.requester.api, reqUrl, [file('the quote', 'quote.txt')])
    const made = await s.buyer.api({
      method: 'POST',
      url: `/api/v3/requests/${req.id}/purchase-orders/`,
      payload: { line_vendors: [{ line: req.lines[0].id, vendor: s.vendor }] },
    })
    assert.equal(made.statusCode, 201, made.body)
    const order = made.json().data[0]
    const url = `/api/v3/purchase-orders/${order.id}/attachments/`
    for (let i = 0; i < 50; i++) await attach(s.buyer.api, url, [file(`note ${i}`, `n${i}.txt`)])
    const over = await upload(s.buyer.api, url, [file('one too many')])
    assert.equal(over.statusCode, 409, over.body)
    assert.match(over.json().detail, /50/)
    const list = (await s.buyer.api({ method: 'GET', url })).json().data
    assert.equal(list.length, 51)
    assert.deepEqual(list[0].document, { type: 'request', id: req.id })
    assert.equal(list[0].id, fromRequest.id)
    const got = await s.buyer.api({ method: 'GET', url: `/api/v3/attachments/${fromRequest.id}/content` })
    assert.equal(got.statusCode, 200)
  })

  test("an order's vendor_visible attachments go with send; the outbox lists them", async () => {
    const order = await issuedOrder(s, [poLine('1', '5')])
    const url = `/api/v3/purchase-orders/${order.id}/attachments/`
    await attach(s.buyer.api, url, [file(pdf('drawing'), 'drawing.pdf'), { name: 'vendor_visible', value: 'true' }])
    await attach(s.buyer.api, url, [file('internal', 'internal.txt')])
    const sent = await s.buyer.api({ method: 'POST', url: `/api/v3/purchase-orders/${order.id}/send/`, payload: {} })
    assert.equal(sent.statusCode, 200, sent.body)
    const rows = await ctx.database.db
      .selectFrom('email_outbox')
      .select('attachments')
      .where('tenant_id', '=', s.tenant.tenantId)
      .where('subject', '=', `Purchase order ${order.number}`)
      .execute()
    const names = rows.at(-1)!.attachments.map((a) => a.filename)
    assert.deepEqual(names, [`${order.number}.pdf`, 'drawing.pdf'])
  })

  test('413 past ATTACHMENT_MAX_BYTES is measured on the stream; a 25 MB upload round-trips', async () => {
    const req = await draft(s.requester.api, s.A)
    const url = `/api/v3/requests/${req.id}/attachments/`
    const big = Buffer.alloc(25 * 1024 * 1024, 'a')
    big.write('%PDF-1.4\n', 0)
    const a = await attach(s.requester.api, url, [file(big, 'big.pdf')])
    assert.equal(a.size, big.length)
    const got = await s.requester.api({ method: 'GET', url: `/api/v3/attachments/${a.id}/content` })
    assert.equal(got.rawPayload.length, big.length)
    assert.equal(sha(got.rawPayload), sha(big))
    const over = Buffer.concat([big, Buffer.alloc(1024 * 1024 + 1, 'b')])
    const r = await upload(s.requester.api, url, [file(over, 'over.pdf')])
    assert.equal(r.statusCode, 413, r.body)
  })
})
