/**
 * Attachments in an S3-compatible store (DECISIONS, "Attachments and comments": `ATTACHMENT_STORE=s3` with
 * `S3_ENDPOINT`, `S3_BUCKET`, `S3_REGION`, `S3_ACCESS_KEY_ID`, `S3_SECRET_ACCESS_KEY`, `S3_FORCE_PATH_STYLE`)
 * against a real one: s3rver, started here as a child process on a free port of 127.0.0.1 with a temporary
 * directory. Everything goes through the HTTP API — upload, list, download (bytes, headers, ETag and
 * If-None-Match), the same bytes stored once, delete — and each step is checked against the bucket's own
 * listing. A file larger than one multipart part, an order's vendor-visible attachment sent from the store,
 * and the store down, set up wrongly or back again: 503 with the cause and `Retry-After`, never a 500, and
 * nothing stored; a delete while it is down: 204, its object's removal recorded and done once it is back.
 */
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { createHash, randomUUID } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import { after, before, describe, test } from 'node:test'
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3'
import { sql } from 'kysely'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { TEST_AUDIENCE, testApp, type TestContext } from './helpers/app.ts'
import { multipart, pdf, type Part } from './helpers/attachments.ts'
import { issuedOrder, poLine, setUpOrders, type OrderSetup } from './helpers/orders.ts'
import { draft } from './helpers/requests.ts'
import type { Api } from './helpers/security.ts'

const BUCKET = 'procurement-test'
/** s3rver accepts signed requests with exactly these keys. */
const KEY = 'S3RVER'
const bin = path.resolve(import.meta.dirname, '../node_modules/s3rver/bin/s3rver.js')

interface S3rver {
  child: ChildProcess
  port: number
  stop(): Promise<void>
}

/** Starts s3rver on `port` (0: a free one) over `directory`, with the test bucket; resolves once it listens. */
async function startS3rver(directory: string, port = 0): Promise<S3rver> {
  const child = spawn(
    process.execPath,
    [bin, '-d', directory, '-a', '127.0.0.1', '-p', String(port), '--silent', '--configure-bucket', BUCKET],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  let output = ''
  const listening = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`s3rver did not start in 30 s; it printed:\n${output}`)), 30_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /S3rver listening on [^:\s]+:(\d+)/.exec(output)
      if (match !== null) {
        clearTimeout(timer)
        resolve(Number(match[1]))
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`s3rver exited (${code}) before it listened; it printed:\n${output}`))
    })
  })
  return {
    child,
    port: listening,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      await exited
    },
  }
}

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex')
const file = (value: Buffer | string, filename = 'file.bin'): Part => ({ name: 'file', value, filename })
const upload = (api: Api, url: string, parts: Part[]) => api({ method: 'POST', url, ...multipart(parts) })

async function attach(api: Api, url: string, parts: Part[]) {
  const r = await upload(api, url, parts)
  assert.equal(r.statusCode, 201, r.body)
  return r.json().data
}

let directory: string
let server: S3rver
let ctx: TestContext
let s: OrderSetup
/** A client of the test's own, to see what the bucket really holds. */
let bucket: S3Client
const stopped = new Set<S3rver>()

const s3Env = (port: number, overrides: Record<string, string> = {}) => ({
  ATTACHMENT_STORE: 's3',
  S3_ENDPOINT: `http://127.0.0.1:${port}`,
  S3_BUCKET: BUCKET,
  S3_REGION: 'us-east-1',
  S3_ACCESS_KEY_ID: KEY,
  S3_SECRET_ACCESS_KEY: KEY,
  S3_FORCE_PATH_STYLE: 'true',
  ...overrides,
})

before(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), 's3rver-'))
  server = await startS3rver(directory)
  stopped.add(server)
  process.once('exit', () => server.child.kill('SIGKILL'))
  ctx = await testApp({
    BASE_DOMAIN: 'example.test',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '0',
    ...s3Env(server.port),
  })
  s = await setUpOrders(ctx)
  bucket = new S3Client({
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${server.port}`,
    forcePathStyle: true,
    credentials: { accessKeyId: KEY, secretAccessKey: KEY },
  })
})

after(async () => {
  bucket?.destroy()
  await ctx?.close()
  for (const one of stopped) await one.stop()
  if (directory !== undefined) await rm(directory, { recursive: true, force: true })
})

/** The keys the bucket holds under the tenant's prefix for these bytes' SHA-256. */
async function objectsOf(bytes: Buffer | string): Promise<string[]> {
  const listed = await bucket.send(
    new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `${s.tenant.tenantId}/${sha(bytes)}/` }),
  )
  return (listed.Contents ?? []).map((o) => o.Key!)
}

async function objectBytes(key: string): Promise<Buffer> {
  const got = await bucket.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }))
  return Buffer.from(await got.Body!.transformToByteArray())
}

const blobsOf = (bytes: Buffer | string) =>
  ctx.database.db
    .selectFrom('attachment_blobs')
    .select(['id', 'store', 's3_key'])
    .where('tenant_id', '=', s.tenant.tenantId)
    .where('sha256', '=', sha(bytes))
    .execute()

describe('attachments in an S3-compatible store (s3rver)', () => {
  test('upload, list, download and delete go through the bucket: the object is there exactly while referred to', async () => {
    const req = await draft(s.requester.api, s.A)
    const url = `/api/v3/requests/${req.id}/attachments/`
    const bytes = pdf(`s3 quote ${Date.now()}`)
    const a = await attach(s.requester.api, url, [file(bytes, 'quote.pdf'), { name: 'description', value: 'Quote' }])
    assert.equal(a.content_type, 'application/pdf')
    assert.equal(a.size, bytes.length)
    assert.equal(a.sha256, sha(bytes))
    assert.equal(a.scan_status, 'not_scanned')

    // The blob row points at the object; the database holds no parts of it; the bucket holds exactly its bytes.
    const [blob] = await blobsOf(bytes)
    assert.equal(blob!.store, 's3')
    assert.match(blob!.s3_key!, new RegExp(`^${s.tenant.tenantId}/${sha(bytes)}/[0-9a-f-]{36}$`))
    const parts = await ctx.database.db
      .selectFrom('attachment_blob_parts')
      .select('id')
      .where('blob_id', '=', blob!.id)
      .execute()
    assert.equal(parts.length, 0)
    assert.deepEqual(await objectsOf(bytes), [blob!.s3_key])
    assert.deepEqual(await objectBytes(blob!.s3_key!), bytes)

    const list = await s.requester.api({ method: 'GET', url })
    assert.equal(list.statusCode, 200, list.body)
    assert.deepEqual(
      list.json().data.map((x: { id: number }) => x.id),
      [a.id],
    )

    const got = await s.requester.api({ method: 'GET', url: `/api/v3/attachments/${a.id}/content` })
    assert.equal(got.statusCode, 200, got.body)
    assert.deepEqual(got.rawPayload, bytes)
    assert.equal(got.headers['content-type'], 'application/pdf')
    assert.equal(got.headers['content-length'], String(bytes.length))
    assert.equal(got.headers['content-disposition'], "attachment; filename*=UTF-8''quote.pdf")
    assert.equal(got.headers['x-content-type-options'], 'nosniff')
    assert.equal(got.headers['content-security-policy'], "sandbox; default-src 'none'")
    assert.equal(got.headers.etag, `"${sha(bytes)}"`)
    const cached = await s.requester.api({
      method: 'GET',
      url: `/api/v3/attachments/${a.id}/content`,
      headers: { 'if-none-match': `"${sha(bytes)}"` },
    })
    assert.equal(cached.statusCode, 304)
    assert.equal(cached.body, '')

    // The same bytes again: one blob, one object; the first deletion keeps it, the last removes it.
    const b = await attach(s.requester.api, url, [file(bytes, 'copy.pdf')])
    assert.equal((await blobsOf(bytes)).length, 1)
    assert.deepEqual(await objectsOf(bytes), [blob!.s3_key])
    assert.equal((await s.requester.api({ method: 'DELETE', url: `/api/v3/attachments/${a.id}/` })).statusCode, 204)
    assert.deepEqual(await objectsOf(bytes), [blob!.s3_key])
    const still = await s.requester.api({ method: 'GET', url: `/api/v3/attachments/${b.id}/content` })
    assert.deepEqual(still.rawPayload, bytes)
    assert.equal((await s.requester.api({ method: 'DELETE', url: `/api/v3/attachments/${b.id}/` })).statusCode, 204)
    assert.deepEqual(await objectsOf(bytes), [])
    assert.equal((await blobsOf(bytes)).length, 0)
    assert.equal((await s.requester.api({ method: 'GET', url: `/api/v3/attachments/${b.id}/content` })).statusCode, 404)
    assert.deepEqual((await s.requester.api({ method: 'GET', url })).json().data, [])
  })

  test('a file larger than one multipart part (11 MiB) is stored whole and read back byte for byte', async () => {
    const req = await draft(s.requester.api, s.A)
    const url = `/api/v3/requests/${req.id}/attachments/`
    const line = `Large notes of ${Date.now()}, one line after another.\n`
    const big = Buffer.from(line.repeat(Math.ceil((11 * 1024 * 1024) / line.length)))
    const a = await attach(s.requester.api, url, [file(big, 'notes.txt')])
    assert.equal(a.size, big.length)
    const [key] = await objectsOf(big)
    assert.ok(key !== undefined, 'the bucket holds the large file')
    assert.equal(sha(await objectBytes(key)), sha(big))
    const got = await s.requester.api({ method: 'GET', url: `/api/v3/attachments/${a.id}/content` })
    assert.equal(got.statusCode, 200)
    assert.equal(got.rawPayload.length, big.length)
    assert.equal(sha(got.rawPayload), sha(big))
  })

  test("an order's vendor_visible attachment is read from the bucket and goes with send", async () => {
    const order = await issuedOrder(s, [poLine('1', '5')])
    const bytes = pdf(`drawing ${Date.now()}`)
    await attach(s.buyer.api, `/api/v3/purchase-orders/${order.id}/attachments/`, [
      file(bytes, 'drawing.pdf'),
      { name: 'vendor_visible', value: 'true' },
    ])
    assert.equal((await objectsOf(bytes)).length, 1)
    const sent = await s.buyer.api({ method: 'POST', url: `/api/v3/purchase-orders/${order.id}/send/`, payload: {} })
    assert.equal(sent.statusCode, 200, sent.body)
    const rows = await ctx.database.db
      .selectFrom('email_outbox')
      .select('attachments')
      .where('tenant_id', '=', s.tenant.tenantId)
      .where('subject', '=', `Purchase order ${order.number}`)
      .execute()
    const drawing = rows.at(-1)!.attachments.find((x) => x.filename === 'drawing.pdf')
    assert.ok(drawing !== undefined, 'the e-mail carries the drawing')
    assert.deepEqual(Buffer.from(drawing.content, 'base64'), bytes)
  })

  test("an object removed from the bucket behind the service's back: its download is a 503 saying to restore it", async () => {
    const req = await draft(s.requester.api, s.A)
    const bytes = pdf(`lost ${Date.now()}`)
    const a = await attach(s.requester.api, `/api/v3/requests/${req.id}/attachments/`, [file(bytes, 'lost.pdf')])
    const [key] = await objectsOf(bytes)
    await bucket.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: key }))
    const r = await s.requester.api({ method: 'GET', url: `/api/v3/attachments/${a.id}/content` })
    assert.equal(r.statusCode, 503, r.body)
    assert.equal(r.json().type, '/problems/unavailable')
    assert.match(r.json().detail, /no longer holds this attachment's bytes \(NoSuchKey\).*restore/)
    // Deleting the attachment still works (removing an object that is gone is no error).
    assert.equal((await s.requester.api({ method: 'DELETE', url: `/api/v3/attachments/${a.id}/` })).statusCode, 204)
  })

  test('the store down: 503 with Retry-After naming the cause and nothing stored; once it is back, all works', async () => {
    const req = await draft(s.requester.api, s.A)
    const url = `/api/v3/requests/${req.id}/attachments/`
    const kept = pdf(`kept ${Date.now()}`)
    const before = await attach(s.requester.api, url, [file(kept, 'kept.pdf')])
    const port = server.port
    await server.stop()

    const bytes = pdf(`while down ${Date.now()}`)
    const refused = await upload(s.requester.api, url, [file(bytes, 'down.pdf')])
    assert.equal(refused.statusCode, 503, refused.body)
    assert.match(String(refused.headers['content-type']), /^application\/problem\+json/)
    assert.ok(Number(refused.headers['retry-after']) > 0, 'Retry-After says when to try again')
    const problem = refused.json()
    assert.equal(problem.type, '/problems/unavailable')
    assert.match(problem.detail, /file store is not available \(ECONNREFUSED\), so nothing was stored/)
    assert.equal((await blobsOf(bytes)).length, 0)
    assert.deepEqual(
      (await s.requester.api({ method: 'GET', url })).json().data.map((x: { id: number }) => x.id),
      [before.id],
    )

    // A download needs the store (503); a client that holds the bytes is still told they are current (304).
    const download = await s.requester.api({ method: 'GET', url: `/api/v3/attachments/${before.id}/content` })
    assert.equal(download.statusCode, 503, download.body)
    assert.ok(Number(download.headers['retry-after']) > 0)
    assert.match(download.json().detail, /file store is not available \(ECONNREFUSED\), so the file cannot be read/)
    const current = await s.requester.api({
      method: 'GET',
      url: `/api/v3/attachments/${before.id}/content`,
      headers: { 'if-none-match': `"${sha(kept)}"` },
    })
    assert.equal(current.statusCode, 304)

    // Back on the same port over the same directory: the refused upload goes through, the old file reads.
    server = await startS3rver(directory, port)
    stopped.add(server)
    const again = await attach(s.requester.api, url, [file(bytes, 'down.pdf')])
    assert.equal(again.sha256, sha(bytes))
    assert.equal((await objectsOf(bytes)).length, 1)
    const read = await s.requester.api({ method: 'GET', url: `/api/v3/attachments/${before.id}/content` })
    assert.equal(read.statusCode, 200, read.body)
    assert.deepEqual(read.rawPayload, kept)
  })

  test('a delete while the store is down: 204, the rows gone, the removal recorded and done once the store is back', async () => {
    const req = await draft(s.requester.api, s.A)
    const url = `/api/v3/requests/${req.id}/attachments/`
    const bytes = pdf(`deleted while down ${Date.now()}`)
    const a = await attach(s.requester.api, url, [file(bytes, 'gone.pdf')])
    const [key] = await objectsOf(bytes)
    assert.ok(key !== undefined)
    const port = server.port
    await server.stop()

    const deleted = await s.requester.api({ method: 'DELETE', url: `/api/v3/attachments/${a.id}/` })
    assert.equal(deleted.statusCode, 204, deleted.body)
    assert.equal((await s.requester.api({ method: 'GET', url: `/api/v3/attachments/${a.id}/` })).statusCode, 404)
    assert.deepEqual((await s.requester.api({ method: 'GET', url })).json().data, [])
    // The blob no longer answers to its content; its removal is recorded under the object's key.
    assert.equal((await blobsOf(bytes)).length, 0)
    const pending = () =>
      ctx.database.db
        .selectFrom('attachment_blobs')
        .select(['id', 'sha256'])
        .where('tenant_id', '=', s.tenant.tenantId)
        .where('s3_key', '=', key)
        .execute()
    const recorded = await pending()
    assert.equal(recorded.length, 1)
    assert.match(recorded[0]!.sha256, /^removing /)

    server = await startS3rver(directory, port)
    stopped.add(server)
    assert.deepEqual(await objectsOf(bytes), [key], 'the object is still there: the store could not remove it')
    // The same bytes uploaded again meanwhile get a blob and an object of their own.
    const again = await attach(s.requester.api, url, [file(bytes, 'again.pdf')])
    const [fresh] = await blobsOf(bytes)
    assert.ok(fresh !== undefined && fresh.s3_key !== key)
    assert.deepEqual((await objectsOf(bytes)).sort(), [key, fresh.s3_key].sort())

    // The next delete that reaches the store also removes what is pending: the old object goes, the new stays.
    const other = await attach(s.requester.api, url, [file(pdf(`other ${Date.now()}`), 'other.pdf')])
    assert.equal((await s.requester.api({ method: 'DELETE', url: `/api/v3/attachments/${other.id}/` })).statusCode, 204)
    assert.deepEqual(await objectsOf(bytes), [fresh.s3_key])
    assert.deepEqual(await pending(), [])
    const read = await s.requester.api({ method: 'GET', url: `/api/v3/attachments/${again.id}/content` })
    assert.equal(read.statusCode, 200, read.body)
    assert.deepEqual(read.rawPayload, bytes)
  })

  /** The tenant's upload intents: objects an upload wrote (or was about to) and has not yet made a blob's. */
  const intents = () =>
    ctx.database.db
      .selectFrom('attachment_blobs')
      .select(['id', 's3_key', 'created_at'])
      .where('tenant_id', '=', s.tenant.tenantId)
      .where('sha256', 'like', 'uploading %')
      .execute()
  async function until(what: string, done: () => Promise<boolean>) {
    for (let i = 0; i < 100; i++) {
      if (await done()) return
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    assert.fail(`${what} did not happen in 2 s`)
  }

  test('an upload records its object before writing it and takes the record as it stores it; with an Idempotency-Key, a refused upload leaves no object', async () => {
    const req = await draft(s.requester.api, s.A)
    const url = `/api/v3/requests/${req.id}/attachments/`
    const bytes = pdf(`intent ${Date.now()}`)
    await attach(s.requester.api, url, [file(bytes, 'intent.pdf')])
    assert.deepEqual(await intents(), [])
    assert.equal((await objectsOf(bytes)).length, 1)

    const keyed = pdf(`keyed ${Date.now()}`)
    const body = multipart([file(keyed, 'keyed.pdf')])
    const headers = { ...body.headers, 'idempotency-key': `upload-${Date.now()}` }
    const first = await s.requester.api({ method: 'POST', url, payload: body.payload, headers })
    assert.equal(first.statusCode, 201, first.body)
    const again = await s.requester.api({ method: 'POST', url, payload: body.payload, headers })
    assert.equal(again.statusCode, 201, again.body)
    assert.equal(again.json().data.id, first.json().data.id)
    assert.equal((await objectsOf(keyed)).length, 1, 'the replay wrote no second object')
    await until('the replay releasing its object', async () => (await intents()).length === 0)
    assert.equal((await objectsOf(keyed)).length, 1)

    // A document at its 50 attachments: the 51st is refused inside the key's transaction, after its object was
    // written; the object goes once the answer is sent.
    const full = await draft(s.requester.api, s.A)
    const fullUrl = `/api/v3/requests/${full.id}/attachments/`
    const same = pdf(`fifty ${Date.now()}`)
    for (let i = 0; i < 50; i++) await attach(s.requester.api, fullUrl, [file(same, `${i}.pdf`)])
    const extra = pdf(`one too many ${Date.now()}`)
    const refusedBody = multipart([file(extra, 'extra.pdf')])
    const refused = await s.requester.api({
      method: 'POST',
      url: fullUrl,
      payload: refusedBody.payload,
      headers: { ...refusedBody.headers, 'idempotency-key': `refused-${Date.now()}` },
    })
    assert.equal(refused.statusCode, 409, refused.body)
    await until("the refused upload's object being removed", async () => (await objectsOf(extra)).length === 0)
    assert.deepEqual(await intents(), [])
    assert.equal((await blobsOf(extra)).length, 0)
  })

  test('an upload that never committed (killed between its object and its commit): the sweep removes the object once its record is an hour old', async () => {
    const req = await draft(s.requester.api, s.A)
    const url = `/api/v3/requests/${req.id}/attachments/`
    // What a process killed after writing the object and before its commit leaves: the intent and the object.
    const left = async (label: string, age: string) => {
      const bytes = pdf(`${label} ${Date.now()}`)
      const key = `${s.tenant.tenantId}/${sha(bytes)}/${randomUUID()}`
      await bucket.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: bytes }))
      await ctx.database.db
        .insertInto('attachment_blobs')
        .values({
          tenant_id: s.tenant.tenantId,
          sha256: `uploading ${randomUUID()}`,
          size: bytes.length,
          store: 's3',
          s3_key: key,
          created_at: sql<Date>`now() - ${age}::interval`,
        })
        .execute()
      return { bytes, key }
    }
    const old = await left('crashed long ago', '61 minutes')
    const recent = await left('may still be uploading', '5 minutes')

    // The next delete that reaches the store sweeps what is pending.
    const other = await attach(s.requester.api, url, [file(pdf(`other ${Date.now()}`), 'other.pdf')])
    assert.equal((await s.requester.api({ method: 'DELETE', url: `/api/v3/attachments/${other.id}/` })).statusCode, 204)
    assert.deepEqual(await objectsOf(old.bytes), [])
    assert.deepEqual(await objectsOf(recent.bytes), [recent.key])
    assert.deepEqual(
      (await intents()).map((i) => i.s3_key),
      [recent.key],
    )
    // Its upload, were it still running, could no longer take it; so the sweep leaves it alone until it is old.
    await ctx.database.db
      .updateTable('attachment_blobs')
      .set({ created_at: sql<Date>`now() - interval '2 hours'` })
      .where('tenant_id', '=', s.tenant.tenantId)
      .where('s3_key', '=', recent.key)
      .execute()
    const another = await attach(s.requester.api, url, [file(pdf(`another ${Date.now()}`), 'another.pdf')])
    assert.equal(
      (await s.requester.api({ method: 'DELETE', url: `/api/v3/attachments/${another.id}/` })).statusCode,
      204,
    )
    assert.deepEqual(await objectsOf(recent.bytes), [])
    assert.deepEqual(await intents(), [])
  })

  test('a store set up wrongly (no such bucket, an unknown key) is a 503 naming the S3 error, never a 500', async () => {
    const req = await draft(s.requester.api, s.A)
    const url = `/api/v3/requests/${req.id}/attachments/`
    const cases: [Record<string, string>, RegExp][] = [
      [{ S3_BUCKET: 'no-such-bucket' }, /refused the request \(NoSuchBucket\), so nothing was stored/],
      [{ S3_ACCESS_KEY_ID: 'NOT-A-KEY' }, /refused the request \(InvalidAccessKeyId\), so nothing was stored/],
    ]
    for (const [overrides, detail] of cases) {
      const config = loadConfig({
        API_AUDIENCE: TEST_AUDIENCE,
        BASE_DOMAIN: 'example.test',
        LOG_LEVEL: 'warn',
        RATE_LIMIT_PER_MINUTE: '0',
        DEMO_SEED: 'false',
        ...s3Env(server.port, overrides),
      })
      const quiet = new Writable({ write: (_chunk, _encoding, done) => done() })
      const app: FastifyInstance = await buildApp({ config, database: ctx.database, keys: ctx.keys, logStream: quiet })
      try {
        await app.ready()
        const bytes = pdf(`misconfigured ${JSON.stringify(overrides)} ${Date.now()}`)
        const body = multipart([file(bytes, 'x.pdf')])
        const r = await app.inject({
          method: 'POST',
          url,
          headers: {
            ...body.headers,
            host: s.tenant.host,
            authorization: `Bearer ${s.requester.api.token}`,
            'x-service-client': 'api',
          },
          payload: body.payload,
        })
        assert.equal(r.statusCode, 503, r.body)
        assert.equal(r.json().type, '/problems/unavailable')
        assert.match(r.json().detail, detail)
        assert.match(r.json().detail, /S3_\* settings/)
        assert.equal((await blobsOf(bytes)).length, 0)
      } finally {
        await app.close()
      }
    }
  })
})
