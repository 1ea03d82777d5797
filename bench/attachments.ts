/**
 * Issue #47's file path on PostgreSQL: a 25 MB upload (`POST /api/v3/purchase-orders/{id}/attachments/`,
 * multipart, streamed) and its download (`GET /api/v3/attachments/{id}/content`) through the real server in its
 * own process, beside a raw floor (bench/floor/attachments.js: plain node:http streaming the same bytes into and
 * out of PostgreSQL in the same 1 MiB chunk table, nothing else). Every upload is new content (no dedupe); every
 * download is checked by SHA-256. Targets: each direction at ≥ 0.5 × the floor's throughput, and the server's
 * peak resident memory (VmHWM in /proc/<pid>/status) growing by less than 2 × the file's size over the runs.
 * Run: npm run bench -- attachments   (BENCH_RUNS=3  BENCH_FILE_MB=25)
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { main } from './lib/cleanup.ts'
import { startScript, startServer } from './lib/process.ts'
import { fmt, median, verdict } from './lib/report.ts'
import { request } from './lib/request.ts'
import { apiHeaders, seedTenant } from './lib/seed.ts'
import { BASE_DOMAIN, envNumber, ROOT, RUNS, serverEnv } from './lib/settings.ts'
import { configFor, openRecorded, scratchDatabase, storeEnv, type Store } from './lib/store.ts'

const SIZE = Math.round(envNumber('BENCH_FILE_MB', 25) * 1_000_000)
const CHUNK = 64 * 1024
const LINE = Buffer.from('Delivery notes for the benchmark: one plain line of text after another.\n')
const BLOCK = Buffer.concat(Array.from({ length: Math.ceil(CHUNK / LINE.length) }, () => LINE)).subarray(0, CHUNK)

/** `size` bytes of plain text whose first line names `run` (so no two runs' files are the same bytes). */
function* content(run: string, size: number): Generator<Buffer> {
  const first = Buffer.from(`Run ${run}\n`)
  yield first
  for (let left = size - first.length; left > 0; left -= CHUNK) yield BLOCK.subarray(0, Math.min(left, CHUNK))
}
const sha256Of = (run: string, size: number) => {
  const hash = createHash('sha256')
  for (const chunk of content(run, size)) hash.update(chunk)
  return hash.digest('hex')
}

/** The multipart body around `content`, as a stream, and its length. */
function multipart(run: string, size: number) {
  const boundary = `----bench${run.replace(/\W/g, '')}`
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="notes-${run}.txt"\r\n` +
      'Content-Type: text/plain\r\n\r\n',
  )
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`)
  function* all() {
    yield head
    yield* content(run, size)
    yield tail
  }
  return { type: `multipart/form-data; boundary=${boundary}`, length: head.length + size + tail.length, body: all }
}

/** Sends `body` (streamed) and reads the whole answer; the status, the answer and the seconds it took. */
function post(url: string, headers: Record<string, string>, body: () => Iterable<Buffer>, length: number) {
  return new Promise<{ status: number; text: string; seconds: number }>((resolve, reject) => {
    const started = performance.now()
    const request = http.request(url, { method: 'POST', headers: { ...headers, 'content-length': String(length) } })
    request.on('response', (response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (text += chunk))
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, text, seconds: (performance.now() - started) / 1000 }),
      )
    })
    request.on('error', reject)
    pipeline(Readable.from(body()), request).catch(reject)
  })
}

/** Downloads `url`, hashing as it arrives; the status, the SHA-256, the size and the seconds it took. */
function download(url: string, headers: Record<string, string>) {
  return new Promise<{ status: number; sha256: string; size: number; seconds: number }>((resolve, reject) => {
    const started = performance.now()
    http
      .get(url, { headers }, (response) => {
        const hash = createHash('sha256')
        let size = 0
        response.on('data', (chunk: Buffer) => {
          hash.update(chunk)
          size += chunk.length
        })
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            sha256: hash.digest('hex'),
            size,
            seconds: (performance.now() - started) / 1000,
          }),
        )
      })
      .on('error', reject)
  })
}

/** The process's peak resident memory so far (VmHWM), in bytes. */
function peakRss(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1]
  if (kb === undefined) throw new Error(`no VmHWM in /proc/${pid}/status`)
  return Number(kb) * 1024
}

const mb = (bytes: number) => bytes / 1_000_000

await main(async () => {
  const store: Store = { engine: 'postgres', url: await scratchDatabase('attachments') }
  const { config, keys } = configFor(store)
  const { database } = await openRecorded(store)
  const tenant = await seedTenant(database.db, keys, config, 'files', 0)
  // The floor writes its parts under blob rows of its own (one per run and the warm-up).
  const floorBlobs: number[] = []
  for (let i = 0; i <= RUNS; i++) {
    const { id } = await database.db
      .insertInto('attachment_blobs')
      .values({ tenant_id: tenant.id, sha256: `floor ${i}`.padEnd(64, '-'), size: 0, store: 'database', s3_key: null })
      .returning('id')
      .executeTakeFirstOrThrow()
    floorBlobs.push(id)
  }
  await database.close()

  const server = await startServer(
    serverEnv({ ...storeEnv(store), BASE_DOMAIN, DEMO_SEED: 'false', RATE_LIMIT_PER_MINUTE: '1000000000' }),
  )
  const floor = await startScript('floor', path.join(ROOT, 'bench/floor/attachments.js'), {
    DATABASE_URL: store.url,
    FLOOR_TENANT: String(tenant.id),
  })
  const headers = apiHeaders(tenant)
  const json = async (method: string, url: string, body?: unknown) => {
    const r = await request(server.base, {
      method,
      path: url,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    if (r.status >= 300) throw new Error(`${method} ${url}: ${r.status} ${r.body}`)
    return (JSON.parse(r.body) as { data: unknown }).data
  }
  const [vendor] = (await json('GET', '/api/v3/vendors/?page_size=1')) as { id: number }[]
  const [location] = (await json('GET', '/api/v2/locations/?page_size=1')) as { id: number }[]
  const order = (await json('POST', '/api/v3/purchase-orders/', {
    vendor: vendor!.id,
    location: location!.id,
    lines: [{ description: 'Benchmark', quantity: '1', unit_price: '1' }],
  })) as { id: number }
  const uploadUrl = `${server.base}/api/v3/purchase-orders/${order.id}/attachments/`

  /** One round on the server: upload then download; the seconds of each (checked by status and SHA-256). */
  async function serverRound(run: string, size: number) {
    const body = multipart(run, size)
    const up = await post(uploadUrl, { ...headers, 'content-type': body.type }, body.body, body.length)
    if (up.status !== 201) throw new Error(`server upload: ${up.status} ${up.text}`)
    const { id, sha256 } = (JSON.parse(up.text) as { data: { id: number; sha256: string } }).data
    const expected = sha256Of(run, size)
    if (sha256 !== expected) throw new Error(`server upload: SHA-256 ${sha256}, expected ${expected}`)
    const down = await download(`${server.base}/api/v3/attachments/${id}/content`, headers)
    if (down.status !== 200 || down.sha256 !== expected || down.size !== size)
      throw new Error(`server download: ${down.status}, ${down.size} bytes, SHA-256 ${down.sha256}`)
    return { up: up.seconds, down: down.seconds }
  }
  async function floorRound(run: string, size: number, blob: number) {
    const body = multipart(run, size)
    const up = await post(`${floor.base}/blobs/${blob}`, { 'content-type': body.type }, body.body, body.length)
    if (up.status !== 201) throw new Error(`floor upload: ${up.status} ${up.text}`)
    const down = await download(`${floor.base}/blobs/${blob}`, {})
    if (down.status !== 200 || down.size !== body.length) throw new Error(`floor download: ${down.status}`)
    return { up: up.seconds, down: down.seconds }
  }

  // A warm-up of 1 MB on each (the server loads its multipart and file modules on first use).
  await serverRound(`warm-${Date.now()}`, 1_000_000)
  await floorRound(`warm-${Date.now()}`, 1_000_000, floorBlobs[0]!)
  const before = peakRss(server.pid)
  const floorBefore = peakRss(floor.pid)
  const ours = { up: [] as number[], down: [] as number[] }
  const raw = { up: [] as number[], down: [] as number[] }
  for (let i = 1; i <= RUNS; i++) {
    const s = await serverRound(`server-${i}-${Date.now()}`, SIZE)
    const f = await floorRound(`floor-${i}-${Date.now()}`, SIZE, floorBlobs[i]!)
    ours.up.push(mb(SIZE) / s.up)
    ours.down.push(mb(SIZE) / s.down)
    raw.up.push(mb(SIZE) / f.up)
    raw.down.push(mb(SIZE) / f.down)
  }
  const after = peakRss(server.pid)
  const floorGrowth = peakRss(floor.pid) - floorBefore

  const ratio = { up: median(ours.up) / median(raw.up), down: median(ours.down) / median(raw.down) }
  const growth = after - before
  console.log(`${fmt(mb(SIZE))} MB plain-text file, PostgreSQL, median of ${RUNS} runs`)
  for (const way of ['up', 'down'] as const)
    console.log(
      `  ${way === 'up' ? 'upload  ' : 'download'}  server ${fmt(median(ours[way]), 1)} MB/s   floor ${fmt(median(raw[way]), 1)} MB/s   ratio ${fmt(ratio[way], 2)}× (needs ≥ 0.5×)`,
    )
  console.log(
    `  server peak RSS (VmHWM) ${fmt(mb(before))} MB before, ${fmt(mb(after))} MB after: +${fmt(mb(growth), 1)} MB (needs < ${fmt(mb(2 * SIZE))} MB)`,
  )
  console.log(`  floor peak RSS (VmHWM) +${fmt(mb(floorGrowth), 1)} MB over the same runs, for comparison`)
  verdict('upload at ≥ 0.5× the floor', ratio.up >= 0.5)
  verdict('download at ≥ 0.5× the floor', ratio.down >= 0.5)
  verdict('peak memory growth < 2 × the file size', growth < 2 * SIZE)
})
