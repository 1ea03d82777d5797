/**
 * The SDK's attachments and comments against the listening server: uploads from a file path, a Buffer and a
 * 5 MB Node stream (multipart streamed), the same upload retried with one Idempotency-Key stored once, a
 * refused type as a ProblemError, list, get, download (as a stream, and into a file) compared by SHA-256,
 * delete; comments added, listed and deleted.
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Readable } from 'node:stream'
import { after, test } from 'node:test'
import { ProblemError, ProcurementClient, type DocumentRef } from '../sdk/src/index.ts'
import { clientFor, sampleTenant, TEST_AUDIENCE, useTestApp } from './helpers/app.ts'
import { pdf } from './helpers/attachments.ts'

const ctx = useTestApp({ RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'warn' })
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex')
let dir: string | undefined
after(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true })
})

/** `size` bytes of plain text, in 64 KiB chunks, as a Node stream (never one buffer), with its SHA-256. */
function textStream(size: number) {
  const line = Buffer.from('A line of delivery notes and the same again and again.\n')
  const chunk = Buffer.concat(Array.from({ length: Math.ceil(65536 / line.length) }, () => line)).subarray(0, 65536)
  const hash = createHash('sha256')
  let left = size
  for (let n = size; n > 0; n -= chunk.length) hash.update(chunk.subarray(0, Math.min(n, chunk.length)))
  const digest = hash.digest('hex')
  async function* chunks() {
    while (left > 0) {
      const piece = chunk.subarray(0, Math.min(left, chunk.length))
      left -= piece.length
      yield piece
    }
  }
  return { stream: Readable.from(chunks()), sha256: digest }
}

test('attachments and comments through the SDK', async () => {
  const base = await ctx.app.listen({ port: 0, host: '127.0.0.1' })
  const tenant = await sampleTenant(ctx)
  const creds = await clientFor(ctx, tenant)
  const client = new ProcurementClient({
    baseUrl: base,
    clientId: creds.client_id,
    clientSecret: creds.client_secret,
    audience: TEST_AUDIENCE,
  })
  const location = (await client.locations.list()).data[0]!.id
  const vendor = await client.vendors.create({ name: 'SDK Attachments Ltd' })
  const order = await client.purchaseOrders.create({
    vendor: vendor.id,
    location,
    lines: [{ description: 'Widget', quantity: '1', unit_price: '2.5' }],
  })
  const doc: DocumentRef = { kind: 'purchase-orders', id: order.id }

  // From a file path: the name is the path's base name.
  dir = await mkdtemp(path.join(os.tmpdir(), 'sdk-attachments-'))
  const quote = pdf(`sdk quote ${Date.now()}`)
  const quotePath = path.join(dir, 'quote.pdf')
  await writeFile(quotePath, quote)
  const fromPath = await client.attachments.upload(doc, quotePath, { description: 'The quote', vendorVisible: true })
  assert.equal(fromPath.filename, 'quote.pdf')
  assert.equal(fromPath.content_type, 'application/pdf')
  assert.equal(fromPath.sha256, sha(quote))
  assert.equal(fromPath.description, 'The quote')
  assert.equal(fromPath.vendor_visible, true)

  // From a Buffer, twice with one Idempotency-Key: one attachment.
  const drawing = pdf(`sdk drawing ${Date.now()}`)
  const once = await client.attachments.upload(doc, drawing, { filename: 'drawing.pdf', idempotencyKey: 'sdk-up-1' })
  const again = await client.attachments.upload(doc, drawing, { filename: 'drawing.pdf', idempotencyKey: 'sdk-up-1' })
  assert.equal(again.id, once.id)
  assert.equal(once.filename, 'drawing.pdf')
  await assert.rejects(
    client.attachments.upload(doc, pdf('another'), { filename: 'drawing.pdf', idempotencyKey: 'sdk-up-1' }),
    (error: unknown) => error instanceof ProblemError && error.status === 422,
  )

  // 5 MB from a Node stream: sent as it is read.
  const big = textStream(5 * 1024 * 1024)
  const streamed = await client.attachments.upload(doc, big.stream, { filename: 'notes.txt' })
  assert.equal(streamed.size, 5 * 1024 * 1024)
  assert.equal(streamed.sha256, big.sha256)
  assert.equal(streamed.content_type, 'text/plain')

  // A web ReadableStream of HTML is refused by type, as a ProblemError naming it.
  const html = Readable.toWeb(Readable.from([Buffer.from('<!doctype html><p>hello</p>')])) as ReadableStream<Uint8Array>
  await assert.rejects(
    client.attachments.upload(doc, html, { filename: 'page.html' }),
    (error: unknown) => error instanceof ProblemError && error.status === 415 && /HTML/i.test(error.detail),
  )

  const listed = await client.attachments.list(doc)
  assert.deepEqual(
    listed.data.map((a) => a.id),
    [fromPath.id, once.id, streamed.id],
  )
  assert.equal((await client.attachments.get(streamed.id)).sha256, big.sha256)

  // Download as a stream, and into a file: byte for byte.
  const download = await client.attachments.download(streamed.id)
  assert.equal(download.filename, 'notes.txt')
  assert.equal(download.size, 5 * 1024 * 1024)
  assert.equal(download.sha256, big.sha256)
  const hash = createHash('sha256')
  for await (const chunk of Readable.fromWeb(download.body as never)) hash.update(chunk as Buffer)
  assert.equal(hash.digest('hex'), big.sha256)
  const target = path.join(dir, 'copy.txt')
  const written = await client.attachments.downloadTo(streamed.id, createWriteStream(target))
  assert.equal(written.contentType, 'text/plain')
  const copy = createHash('sha256')
  for await (const chunk of createReadStream(target)) copy.update(chunk as Buffer)
  assert.equal(copy.digest('hex'), big.sha256)

  await client.attachments.delete(once.id)
  await assert.rejects(
    client.attachments.get(once.id),
    (error: unknown) => error instanceof ProblemError && error.status === 404,
  )
  assert.equal((await client.attachments.list(doc)).data.length, 2)

  // Comments.
  const comment = await client.comments.add(doc, 'Checked the drawing; fine.')
  assert.equal(comment.body, 'Checked the drawing; fine.')
  assert.deepEqual(comment.document, { type: 'purchase_order', id: order.id })
  assert.deepEqual(
    (await client.comments.list(doc)).data.map((c) => c.id),
    [comment.id],
  )
  await client.comments.delete(comment.id)
  assert.deepEqual((await client.comments.list(doc)).data, [])
})
