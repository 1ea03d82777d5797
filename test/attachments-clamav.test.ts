/**
 * Virus scanning with a real clamd (DECISIONS, "Attachments and comments": with `CLAMAV_HOST` (and
 * `CLAMAV_PORT`) or `CLAMAV_SOCKET` every upload is streamed to clamd (`INSTREAM`) before it is stored: found →
 * 422 naming the signature, nothing stored; clamd unreachable → 503 with `Retry-After`, never stored unscanned).
 *
 * Debian's clamav-daemon (/usr/sbin/clamd) runs here as a child process with a configuration of its own: TCP on
 * a free port of 127.0.0.1 and a Unix socket in a temporary directory, and a signature database holding one
 * MD5 signature (`.hdb`: `md5:size:name`) of a test file made here — the official databases cannot be fetched,
 * and without them clamd knows no signature at all (not even EICAR's). Through the HTTP API over TCP and over
 * the socket: a clean file is stored as `clean`; the signature's file is refused with 422 naming it and nothing
 * is stored; a file past clamd's StreamMaxLength, and clamd stopped, are 503 with `Retry-After` and nothing is
 * stored; once clamd is back, uploads go through again.
 */
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readlinkSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { TEST_AUDIENCE, testApp, type TestContext } from './helpers/app.ts'
import { multipart, pdf, type Part } from './helpers/attachments.ts'
import { setUpOrders, type OrderSetup } from './helpers/orders.ts'
import { draft } from './helpers/requests.ts'

const CLAMD = '/usr/sbin/clamd'
const SIGNATURE = 'Procurement.Test.Infected'
/** The file the test signature matches: a PDF, so that it passes type detection and reaches the scanner. */
const INFECTED = pdf('this file carries the test signature of the clamd test')
/** clamd's StreamMaxLength here: a larger upload is refused by clamd, so the service must answer 503. */
const STREAM_MAX = 1024 * 1024

const skip = existsSync(CLAMD)
  ? false
  : `${CLAMD} is absent: install Debian's clamav-daemon package (.ci/run installs it when missing)`

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex')
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex')
const file = (value: Buffer | string, filename = 'file.bin'): Part => ({ name: 'file', value, filename })

/** A port nothing listens on right now (the kernel's choice for a listener closed at once). */
async function freePort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/** clamd's answer to PING over TCP, or the error of trying. */
function ping(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write('zPING\0'))
    let answer = ''
    socket.setTimeout(2000, () => socket.destroy(new Error('no answer')))
    socket.on('data', (data: Buffer) => (answer += data.toString()))
    socket.on('close', () => resolve(answer.replace(/\0/g, '')))
    socket.on('error', (error: NodeJS.ErrnoException) => (answer = error.code ?? error.message))
  })
}

interface Clamd {
  child: ChildProcess
  port: number
  socket: string
  log: string
  stop(): Promise<void>
}

/** Starts clamd on `dir` (its config, database, socket and log) with TCP on `port`; resolves once it answers PONG. */
async function startClamd(dir: string, port: number): Promise<Clamd> {
  const db = path.join(dir, 'db')
  await mkdir(db, { recursive: true })
  await writeFile(path.join(db, 'test.hdb'), `${md5(INFECTED)}:${INFECTED.length}:${SIGNATURE}\n`)
  const socket = path.join(dir, 'clamd.sock')
  const log = path.join(dir, 'clamd.log')
  const conf = path.join(dir, 'clamd.conf')
  await writeFile(
    conf,
    [
      'Foreground yes',
      `DatabaseDirectory ${db}`,
      `TCPSocket ${port}`,
      'TCPAddr 127.0.0.1',
      `LocalSocket ${socket}`,
      `LogFile ${log}`,
      'LogClean yes',
      `StreamMaxLength ${STREAM_MAX}`,
      'SelfCheck 0',
      '',
    ].join('\n'),
  )
  const child = spawn(CLAMD, [`--config-file=${conf}`], { stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`clamd exited (${child.exitCode}) before it answered:\n${output}`)
    if ((await ping(port)) === 'PONG' && existsSync(socket)) break
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`clamd did not answer PING within 60 s; it printed:\n${output}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  return {
    child,
    port,
    socket,
    log,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited
    },
  }
}

let dir: string
let clamd: Clamd
const started: Clamd[] = []
let ctx: TestContext
let s: OrderSetup
/** The same service with CLAMAV_SOCKET (clamd's Unix socket) instead of CLAMAV_HOST, on the same database. */
let viaSocket: FastifyInstance

before(async () => {
  if (skip !== false) return
  dir = await mkdtemp(path.join(os.tmpdir(), 'clamd-'))
  clamd = await startClamd(dir, await freePort())
  started.push(clamd)
  process.once('exit', () => started.forEach((c) => c.child.kill('SIGKILL')))
  const env = { BASE_DOMAIN: 'example.test', LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' }
  ctx = await testApp({ ...env, CLAMAV_HOST: '127.0.0.1', CLAMAV_PORT: String(clamd.port) })
  s = await setUpOrders(ctx)
  viaSocket = await buildApp({
    config: loadConfig({ ...env, API_AUDIENCE: TEST_AUDIENCE, DEMO_SEED: 'false', CLAMAV_SOCKET: clamd.socket }),
    database: ctx.database,
    keys: ctx.keys,
    logStream: new Writable({ write: (_chunk, _encoding, done) => done() }),
  })
  await viaSocket.ready()
})

after(async () => {
  await viaSocket?.close()
  await ctx?.close()
  for (const one of started) await one.stop()
  if (dir !== undefined) await rm(dir, { recursive: true, force: true })
})

type Via = 'tcp' | 'socket'

/** Uploads `parts` to the request as its requester, through the TCP-configured app or the socket-configured one. */
function upload(via: Via, url: string, parts: Part[]) {
  const body = multipart(parts)
  return (via === 'tcp' ? ctx.app : viaSocket).inject({
    method: 'POST',
    url,
    payload: body.payload,
    headers: {
      ...body.headers,
      host: s.tenant.host,
      authorization: `Bearer ${s.requester.api.token}`,
      'x-service-client': 'api',
    },
  })
}

const blobsOf = (bytes: Buffer) =>
  ctx.database.db
    .selectFrom('attachment_blobs')
    .select('id')
    .where('tenant_id', '=', s.tenant.tenantId)
    .where('sha256', '=', sha(bytes))
    .execute()

/**
 * The spooled uploads this process still holds open after a moment (each is removed after its upload, so
 * any left is a file descriptor leaked until the process ends); none where there is no /proc.
 */
async function spoolsLeftOpen(): Promise<string[]> {
  const open = () => {
    if (!existsSync('/proc/self/fd')) return []
    const spools: string[] = []
    for (const fd of readdirSync('/proc/self/fd')) {
      try {
        const target = readlinkSync(`/proc/self/fd/${fd}`)
        if (target.includes(`${path.sep}upload-`)) spools.push(target)
      } catch {
        // closed meanwhile (the directory listing's own descriptor, for one)
      }
    }
    return spools
  }
  for (let i = 0; i < 50 && open().length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 100))
  return open()
}

async function listed(url: string): Promise<number[]> {
  const r = await s.requester.api({ method: 'GET', url })
  assert.equal(r.statusCode, 200, r.body)
  return r.json().data.map((a: { id: number }) => a.id)
}

describe('virus scanning with a real clamd', { skip }, () => {
  for (const via of ['tcp', 'socket'] as const) {
    test(`over ${via === 'tcp' ? 'TCP (CLAMAV_HOST, CLAMAV_PORT)' : 'the Unix socket (CLAMAV_SOCKET)'}: a clean file is stored as clean; the signature's file is 422 naming it, nothing stored`, async () => {
      const req = await draft(s.requester.api, s.A)
      const url = `/api/v3/requests/${req.id}/attachments/`
      const clean = pdf(`a clean quote sent over ${via} at ${Date.now()}`)
      const stored = await upload(via, url, [file(clean, 'quote.pdf')])
      assert.equal(stored.statusCode, 201, stored.body)
      const a = stored.json().data
      assert.equal(a.scan_status, 'clean')
      assert.equal(a.sha256, sha(clean))
      const got = await s.requester.api({ method: 'GET', url: `/api/v3/attachments/${a.id}/content` })
      assert.deepEqual(got.rawPayload, clean)

      const refused = await upload(via, url, [file(INFECTED, 'invoice.pdf')])
      assert.equal(refused.statusCode, 422, refused.body)
      assert.match(String(refused.headers['content-type']), /^application\/problem\+json/)
      const problem = refused.json()
      assert.equal(problem.type, '/problems/malware-found')
      assert.match(problem.detail, new RegExp(`found ${SIGNATURE.replace(/\./g, '\\.')}(\\.UNOFFICIAL)? in the file`))
      assert.match(problem.detail, /not stored/)
      assert.equal((await blobsOf(INFECTED)).length, 0)
      assert.deepEqual(await listed(url), [a.id])

      // clamd itself saw both streams: the clean one as OK, the other as the signature.
      const log = await readFile(clamd.log, 'utf8')
      assert.match(log, /stream\([^)]*\): OK/)
      assert.match(log, new RegExp(`stream\\([^)]*\\): ${SIGNATURE.replace(/\./g, '\\.')}(\\.UNOFFICIAL)? FOUND`))
    })
  }

  test("a file past clamd's StreamMaxLength is 503 with Retry-After (clamd refused to scan it), nothing stored", async () => {
    const req = await draft(s.requester.api, s.A)
    const url = `/api/v3/requests/${req.id}/attachments/`
    const line = `Long notes of ${Date.now()}, one line after another.\n`
    const big = Buffer.from(line.repeat(Math.ceil((STREAM_MAX * 2) / line.length)))
    const r = await upload('tcp', url, [file(big, 'notes.txt')])
    assert.equal(r.statusCode, 503, r.body)
    assert.ok(Number(r.headers['retry-after']) > 0, 'Retry-After says when to try again')
    assert.equal(r.json().type, '/problems/unavailable')
    assert.match(r.json().detail, /virus scanner is not available .*so nothing was stored/)
    // clamd's refusal, or (when it closed the connection before its answer could be read) that it closed it.
    assert.match(r.json().detail, /INSTREAM size limit exceeded|closed the connection before the whole file was sent/)
    assert.equal((await blobsOf(big)).length, 0)
    assert.deepEqual(await listed(url), [])
    // clamd answered before the whole file was sent: the service stopped sending and closed the spooled file.
    assert.deepEqual(await spoolsLeftOpen(), [])
    // clamd still serves the next upload.
    const small = await upload('tcp', url, [file(`short notes ${Date.now()}`, 'notes.txt')])
    assert.equal(small.statusCode, 201, small.body)
    assert.equal(small.json().data.scan_status, 'clean')
  })

  test('clamd stopped: 503 with Retry-After over TCP and the socket, never stored unscanned; back again, uploads pass', async () => {
    const req = await draft(s.requester.api, s.A)
    const url = `/api/v3/requests/${req.id}/attachments/`
    await clamd.stop()
    const bytes = pdf(`sent while clamd is down ${Date.now()}`)
    for (const [via, cause] of [
      ['tcp', /\(ECONNREFUSED\)/],
      ['socket', /\((ENOENT|ECONNREFUSED)\)/],
    ] as const) {
      const r = await upload(via, url, [file(bytes, 'quote.pdf')])
      assert.equal(r.statusCode, 503, `${via}: ${r.body}`)
      assert.ok(Number(r.headers['retry-after']) > 0, 'Retry-After says when to try again')
      assert.equal(r.json().type, '/problems/unavailable')
      assert.match(r.json().detail, /virus scanner is not available/)
      assert.match(r.json().detail, cause)
      assert.match(r.json().detail, /nothing was stored; try again/)
    }
    assert.equal((await blobsOf(bytes)).length, 0)
    assert.deepEqual(await listed(url), [])

    clamd = await startClamd(dir, clamd.port)
    started.push(clamd)
    for (const via of ['tcp', 'socket'] as const) {
      const r = await upload(via, url, [file(bytes, `quote-${via}.pdf`)])
      assert.equal(r.statusCode, 201, `${via}: ${r.body}`)
      assert.equal(r.json().data.scan_status, 'clean')
    }
    assert.equal((await listed(url)).length, 2)
  })
})
