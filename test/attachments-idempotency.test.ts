/**
 * `Idempotency-Key` on an upload (DECISIONS, "Writes in general": any POST): the multipart body is read as a
 * stream, so its fingerprint is the file's SHA-256, size and name and the other fields. The same key and the
 * same upload replays the first 201 (one attachment, one blob); the same key with another file, another name
 * or another description is 422 and stores nothing; an upload refused (415) stores no response, so a retry
 * with the same key runs again; a malformed key is 400.
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { beforeEach, describe, test } from 'node:test'
import { useTestApp } from './helpers/app.ts'
import { multipart, pdf, type Part } from './helpers/attachments.ts'
import { setUpOrders, type OrderSetup } from './helpers/orders.ts'
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

const file = (value: Buffer | string, filename = 'file.bin'): Part => ({ name: 'file', value, filename })
const upload = (api: Api, url: string, parts: Part[], key?: string) => {
  const body = multipart(parts)
  return api({
    method: 'POST',
    url,
    payload: body.payload,
    headers: { ...body.headers, ...(key === undefined ? {} : { 'idempotency-key': key }) },
  })
}

const attachmentsOf = async (url: string) =>
  (await s.requester.api({ method: 'GET', url })).json().data as { id: number; filename: string }[]

const blobCount = async (sha256: string) =>
  (
    await ctx.database.db
      .selectFrom('attachment_blobs')
      .select('id')
      .where('tenant_id', '=', s.tenant.tenantId)
      .where('sha256', '=', sha256)
      .execute()
  ).length

describe('Idempotency-Key on an upload', () => {
  test('the same key and the same upload: the first 201 replayed, one attachment and one blob', async () => {
    const req = await draft(s.requester.api, s.A)
    const url = `/api/v3/requests/${req.id}/attachments/`
    const bytes = pdf(`once ${Date.now()}`)
    const parts = [file(bytes, 'quote.pdf'), { name: 'description', value: 'The quote' }]
    const first = await upload(s.requester.api, url, parts, 'upload-once-1')
    assert.equal(first.statusCode, 201, first.body)
    assert.equal(first.headers['idempotent-replayed'], undefined)
    // A new multipart body (another boundary) with the same content is the same request.
    const second = await upload(s.requester.api, url, parts, 'upload-once-1')
    assert.equal(second.statusCode, 201, second.body)
    assert.equal(second.headers['idempotent-replayed'], 'true')
    assert.equal(second.body, first.body)
    assert.equal(second.headers.location, first.headers.location)
    const listed = await attachmentsOf(url)
    assert.deepEqual(
      listed.map((a) => a.id),
      [first.json().data.id],
    )
    assert.equal(await blobCount(first.json().data.sha256), 1)

    // Without a key, the same upload is a second attachment (the key is what makes it one).
    const again = await upload(s.requester.api, url, parts)
    assert.equal(again.statusCode, 201, again.body)
    assert.equal((await attachmentsOf(url)).length, 2)
  })

  test('the same key with another file, another name or another description: 422, nothing stored', async () => {
    const req = await draft(s.requester.api, s.A)
    const url = `/api/v3/requests/${req.id}/attachments/`
    const bytes = pdf(`first ${Date.now()}`)
    const first = await upload(s.requester.api, url, [file(bytes, 'a.pdf')], 'upload-other-1')
    assert.equal(first.statusCode, 201, first.body)
    const other = pdf(`second ${Date.now()}`)
    const variants: Part[][] = [
      [file(other, 'a.pdf')],
      [file(bytes, 'b.pdf')],
      [file(bytes, 'a.pdf'), { name: 'description', value: 'Now described' }],
    ]
    for (const parts of variants) {
      const r = await upload(s.requester.api, url, parts, 'upload-other-1')
      assert.equal(r.statusCode, 422, r.body)
      assert.match(String(r.headers['content-type']), /^application\/problem\+json/)
      assert.match(r.json().detail, /Idempotency-Key was already used with a different request/)
    }
    assert.deepEqual(
      (await attachmentsOf(url)).map((a) => a.filename),
      ['a.pdf'],
    )
    const { sha256 } = first.json().data as { sha256: string }
    assert.equal(await blobCount(sha256), 1)
    const otherSha = createHash('sha256').update(other).digest('hex')
    assert.equal(await blobCount(otherSha), 0, 'the refused file was not stored')
  })

  test('a refused upload stores no response: the same key with an accepted file then runs; a bad key is 400', async () => {
    const req = await draft(s.requester.api, s.A)
    const url = `/api/v3/requests/${req.id}/attachments/`
    const html = await upload(s.requester.api, url, [file('<!doctype html><p>hi</p>', 'x.html')], 'upload-retry-1')
    assert.equal(html.statusCode, 415, html.body)
    const bytes = pdf(`retry ${Date.now()}`)
    const ok = await upload(s.requester.api, url, [file(bytes, 'x.pdf')], 'upload-retry-1')
    assert.equal(ok.statusCode, 201, ok.body)
    assert.equal(ok.headers['idempotent-replayed'], undefined)
    assert.equal((await attachmentsOf(url)).length, 1)

    const bad = await upload(s.requester.api, url, [file(bytes, 'x.pdf')], 'x'.repeat(256))
    assert.equal(bad.statusCode, 400, bad.body)
    assert.match(bad.json().detail, /Idempotency-Key must be 1 to 255 visible ASCII characters/)
    assert.equal((await attachmentsOf(url)).length, 1)
  })

  test('the key is per document: the same key and file on another document is another request (422)', async () => {
    const one = await draft(s.requester.api, s.A)
    const two = await draft(s.requester.api, s.A)
    const bytes = pdf(`per doc ${Date.now()}`)
    const first = await upload(
      s.requester.api,
      `/api/v3/requests/${one.id}/attachments/`,
      [file(bytes, 'q.pdf')],
      'upload-doc-1',
    )
    assert.equal(first.statusCode, 201, first.body)
    const second = await upload(
      s.requester.api,
      `/api/v3/requests/${two.id}/attachments/`,
      [file(bytes, 'q.pdf')],
      'upload-doc-1',
    )
    assert.equal(second.statusCode, 422, second.body)
    assert.deepEqual(await attachmentsOf(`/api/v3/requests/${two.id}/attachments/`), [])
  })
})
