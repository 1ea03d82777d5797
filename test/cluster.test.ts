/**
 * Cluster mode (WORKERS > 1) as an operator runs it: the real command on PostgreSQL with two workers — one
 * port, two pids, the start-up lines once, /metrics summed over the workers (and not held up by a stuck one),
 * the token brake counted across workers, a killed worker replaced, SIGTERM stopping everything — and what
 * happens when it cannot be: no DATABASE_URL, an unreachable database, workers that keep failing to start.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'
import Fastify from 'fastify'
import { Counter, Registry } from 'prom-client'
import { AttemptCounter, attemptsHost, RemoteAttempts } from '../src/access/attempts.ts'
import { metrics, metricsHost, recordRequests } from '../src/http/metrics.ts'
import { RouteMetrics } from '../src/http/route-metrics.ts'
import { engineUnderTest, testDatabase, type TestDatabase } from './helpers/db.ts'
import { run, runToEnd, type Running } from './helpers/process.ts'

const KEYS = { TOKEN_SIGNING_KEY: 'k'.repeat(40), SECRET_PEPPER: 'p'.repeat(40) }
const LISTENING = /listening on (http:\/\/\S+) \(2 workers\)/
const CREDENTIALS = /Client ID: (\S+)\nClient Secret: (\S+)/
const FAILURES_PER_ADDRESS = 6

const count = (text: string, pattern: RegExp) => text.match(new RegExp(pattern.source, 'g'))?.length ?? 0

let sequence = 0

/** One request on a connection of its own (so the primary may hand it to any worker), tagged with a request id. */
function request(
  base: string,
  method: string,
  pathname: string,
  body?: object,
): Promise<{ status: number; id: string; text: string }> {
  const id = `cluster-${process.pid}-${++sequence}`
  const payload = body === undefined ? undefined : JSON.stringify(body)
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}${pathname}`,
      {
        method,
        agent: false,
        headers: {
          'x-request-id': id,
          connection: 'close',
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
        },
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (text += chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, id, text }))
      },
    )
    req.on('error', reject)
    req.end(payload)
  })
}

/** The pid that logged each request id (the per-request log line, LOG_LEVEL=info). */
function pidsOf(output: string, ids: string[]): number[] {
  const byId = new Map<string, number>()
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue
    const entry = JSON.parse(line) as { msg?: string; request_id?: string; pid?: number }
    if (entry.msg === 'request' && entry.request_id !== undefined && entry.pid !== undefined)
      byId.set(entry.request_id, entry.pid)
  }
  return ids.map((id) => {
    const pid = byId.get(id)
    assert.ok(pid !== undefined, `request ${id} was logged`)
    return pid
  })
}

/** Waits until the log lines of these requests are out (a worker writes its line after the response). */
async function servedBy(server: Running, ids: string[]): Promise<number[]> {
  for (const id of ids) await server.waitFor(new RegExp(`"request_id":"${id}"`), 10_000)
  return pidsOf(server.output(), ids)
}

/** How many requests to `route` the log says each pid answered. */
function answeredPerPid(output: string, route: string): Map<number, number> {
  const counts = new Map<number, number>()
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue
    const entry = JSON.parse(line) as { msg?: string; route?: string; pid?: number }
    if (entry.msg === 'request' && entry.route === route && entry.pid !== undefined)
      counts.set(entry.pid, (counts.get(entry.pid) ?? 0) + 1)
  }
  return counts
}

/** The value of one sample (`name{labels}`, written exactly as the exposition format has it) in a scrape. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

const HEALTHZ_COUNT = 'http_requests_total{method="GET",route="/healthz",status="200"}'
const HEALTHZ_DURATIONS = 'http_request_duration_seconds_count{method="GET",route="/healthz"}'

const tokenRequest = (base: string, clientId: string, clientSecret: string) =>
  request(base, 'POST', '/oauth/token', {
    grant_type: 'client_credentials',
    client_id: clientId,
    client_secret: clientSecret,
    audience: 'procurement-api',
  })

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('WORKERS=2 on PostgreSQL', { skip: engineUnderTest !== 'postgres' && 'PostgreSQL-only' }, () => {
  let database: TestDatabase
  let server: Running
  let base: string
  let workerPids: number[]
  let credentials: { id: string; secret: string }

  before(async () => {
    database = await testDatabase() // migrated, with no tenant: the primary seeds the demo tenant, once
    server = run(['serve'], {
      ...KEYS,
      DATABASE_URL: database.url!,
      WORKERS: '2',
      PORT: '0',
      DEMO_SEED: 'true',
      LOG_LEVEL: 'info',
      DATABASE_POOL_MAX: '3',
      TOKEN_FAILURES_PER_ADDRESS: String(FAILURES_PER_ADDRESS),
      TOKEN_FAILURES_PER_CLIENT: '1000',
    })
    base = (await server.waitFor(LISTENING, 90_000))[1]!
    const [, id, secret] = await server.waitFor(CREDENTIALS)
    credentials = { id: id!, secret: secret! }
    workerPids = []
    for (const n of [1, 2]) {
      const [, pid] = await server.waitFor(new RegExp(`"worker_pid":(\\d+),"workers":${n},"msg":"worker listening"`))
      workerPids.push(Number(pid))
    }
  })
  after(async () => {
    server?.child.kill('SIGKILL')
    for (const pid of workerPids ?? []) if (alive(pid)) process.kill(pid, 'SIGKILL')
    await database?.close()
  })

  test('one port, two worker processes; migrations, seed and the start-up lines once', async () => {
    assert.equal(workerPids.length, 2, server.output())
    assert.ok(!workerPids.includes(server.child.pid!), 'the workers are not the primary')
    const output = server.output()
    assert.equal(count(output, /Procurement service listening on/), 1, output)
    assert.equal(count(output, /Client Secret:/), 1, 'the demo secret is printed once')
    assert.equal(count(output, /Demo application for admin@example.com/), 1)
    const tenants = await database.db.selectFrom('tenants').select('domain').execute()
    assert.deepEqual(
      tenants.map((t) => t.domain),
      ['demo'],
      'the demo tenant was seeded once',
    )

    const answers = []
    for (let i = 0; i < 10; i++) answers.push(await request(base, 'GET', '/readyz'))
    assert.deepEqual(new Set(answers.map((a) => a.status)), new Set([200]))
    const pids = await servedBy(
      server,
      answers.map((a) => a.id),
    )
    assert.deepEqual(new Set(pids), new Set(workerPids), 'requests on fresh connections reach both workers')
  })

  test('/metrics sums every worker: each scrape counts every request, whichever worker answers it', async () => {
    const sent = []
    for (let i = 0; i < 12; i++) sent.push(await request(base, 'GET', '/healthz'))
    assert.deepEqual(new Set(sent.map((s) => s.status)), new Set([200]))
    const pids = await servedBy(
      server,
      sent.map((s) => s.id),
    )
    assert.deepEqual(new Set(pids), new Set(workerPids), 'both workers answered some of the requests')

    const scrapes = []
    for (let i = 0; i < 6; i++) scrapes.push(await request(base, 'GET', '/metrics'))
    assert.deepEqual(
      new Set(
        await servedBy(
          server,
          scrapes.map((s) => s.id),
        ),
      ),
      new Set(workerPids),
      'both workers answered scrapes',
    )
    for (const scrape of scrapes) {
      assert.equal(scrape.status, 200)
      assert.equal(sample(scrape.text, HEALTHZ_COUNT), sent.length, scrape.text)
      assert.equal(sample(scrape.text, HEALTHZ_DURATIONS), sent.length, 'histograms are summed too')
      assert.equal(sample(scrape.text, 'procurement_cluster_workers'), 2)
      assert.equal(sample(scrape.text, 'procurement_cluster_workers_answered'), 2)
      const versions = scrape.text.split('\n').filter((line) => line.startsWith('nodejs_version_info{'))
      assert.equal(versions.length, 1, 'one version line, not one per worker')
      assert.ok((sample(scrape.text, 'process_cpu_seconds_total') ?? 0) > 0)
      assert.doesNotMatch(scrape.text, /^process_start_time_seconds /m, 'no start time: the workers have one each')
    }
  })

  test('a worker that does not answer does not hang the scrape: the others are summed, and the gauge says so', async () => {
    const [stopped, running] = workerPids as [number, number]
    const served = answeredPerPid(server.output(), '/healthz')
    const started = Date.now()
    process.kill(stopped, 'SIGSTOP')
    // Started together: the stopped worker takes at most one of them (it never says it is free again).
    const scrapes = [1, 2, 3].map(() => request(base, 'GET', '/metrics'))
    try {
      const first = await Promise.race([
        ...scrapes,
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no scrape answered in 10 s')), 10_000)),
      ])
      assert.ok(Date.now() - started < 5000, `answered after ${Date.now() - started} ms`)
      assert.equal(first.status, 200)
      assert.equal(sample(first.text, 'procurement_cluster_workers'), 2)
      assert.equal(sample(first.text, 'procurement_cluster_workers_answered'), 1, first.text)
      assert.equal(sample(first.text, HEALTHZ_COUNT), served.get(running), 'the running worker’s own count')
    } finally {
      process.kill(stopped, 'SIGCONT')
    }
    // Once it runs again the stopped worker answers what it was handed, and every scrape sums both again.
    for (const scrape of await Promise.all(scrapes)) assert.equal(scrape.status, 200)
    const again = await request(base, 'GET', '/metrics')
    assert.equal(sample(again.text, 'procurement_cluster_workers_answered'), 2, again.text)
    assert.equal(sample(again.text, HEALTHZ_COUNT), (served.get(stopped) ?? 0) + (served.get(running) ?? 0))
  })

  test('the token brake counts failures across workers; the right secret still gets a token', async () => {
    const failing = []
    for (let i = 0; i < FAILURES_PER_ADDRESS; i++)
      failing.push(await tokenRequest(base, `pc_unknown${i}`, 'not-the-secret'))
    assert.deepEqual(
      failing.map((f) => f.status),
      Array<number>(FAILURES_PER_ADDRESS).fill(401),
      'the address gets its full allowance',
    )
    assert.equal(
      new Set(
        await servedBy(
          server,
          failing.map((f) => f.id),
        ),
      ).size,
      2,
      'failures fell on both workers',
    )

    const braked = []
    for (let i = 0; i < 4; i++) braked.push(await tokenRequest(base, `pc_other${i}`, 'not-the-secret'))
    assert.deepEqual(
      braked.map((b) => b.status),
      [429, 429, 429, 429],
      'past the allowance every worker answers 429',
    )
    assert.equal(
      new Set(
        await servedBy(
          server,
          braked.map((b) => b.id),
        ),
      ).size,
      2,
      'both workers braked',
    )

    const right = []
    for (let i = 0; i < 4; i++) right.push(await tokenRequest(base, credentials.id, credentials.secret))
    assert.deepEqual(
      right.map((r) => r.status),
      [200, 200, 200, 200],
      right.map((r) => r.text).join('\n'),
    )
    assert.equal(
      new Set(
        await servedBy(
          server,
          right.map((r) => r.id),
        ),
      ).size,
      2,
    )
  })

  test('a killed worker is replaced, with a log line; the brake outlives it', async () => {
    const [victim, survivor] = workerPids as [number, number]
    process.kill(victim, 'SIGKILL')
    await server.waitFor(new RegExp(`"worker_pid":${victim},"signal":"SIGKILL","msg":"worker exited unexpectedly`))
    const listeningPids = () =>
      [...server.output().matchAll(/"worker_pid":(\d+),"workers":\d+,"msg":"worker listening"/g)].map((m) =>
        Number(m[1]),
      )
    const deadline = Date.now() + 60_000
    while (listeningPids().length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
    const replacement = listeningPids().find((pid) => !workerPids.includes(pid))
    assert.ok(replacement !== undefined, server.output())
    workerPids.push(replacement)

    const answers = []
    for (let i = 0; i < 6; i++) answers.push(await request(base, 'GET', '/readyz'))
    assert.deepEqual(new Set(answers.map((a) => a.status)), new Set([200]))
    const pids = await servedBy(
      server,
      answers.map((a) => a.id),
    )
    assert.deepEqual(new Set(pids), new Set([survivor, replacement]))

    const braked = []
    for (let i = 0; i < 4; i++) braked.push(await tokenRequest(base, `pc_later${i}`, 'not-the-secret'))
    assert.deepEqual(
      braked.map((b) => b.status),
      [429, 429, 429, 429],
      'the counts live in the primary',
    )
  })

  test('SIGTERM to the primary lets in-flight requests finish, stops every worker, frees the port, exits 0', async () => {
    const port = Number(new URL(base).port)
    // A token request whose body is still arriving when the signal comes: it must still be answered.
    const body = JSON.stringify({
      grant_type: 'client_credentials',
      client_id: credentials.id,
      client_secret: credentials.secret,
      audience: 'procurement-api',
    })
    const inFlight = http.request(`${base}/oauth/token`, {
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
    })
    const answered = new Promise<number>((resolve, reject) => {
      inFlight.on('response', (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
      })
      inFlight.on('error', reject)
    })
    inFlight.write(body.slice(0, 10))
    await new Promise((resolve) => setTimeout(resolve, 500))
    server.child.kill('SIGTERM')
    await server.waitFor(/"signal":"SIGTERM".*"msg":"shutting down"/)
    await new Promise((resolve) => setTimeout(resolve, 500))
    inFlight.end(body.slice(10))
    assert.equal(await answered, 200, 'the request in flight was answered')
    assert.equal(await server.exited, 0, server.output())
    for (const pid of workerPids) assert.ok(!alive(pid), `worker ${pid} is gone`)
    const probe = net.createServer()
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject)
      probe.listen({ port, host: '127.0.0.1', exclusive: true }, resolve)
    })
    await new Promise((resolve) => probe.close(resolve))
  })
})

describe('the brake across processes, in parts', () => {
  const limits = { TOKEN_FAILURES_PER_CLIENT: 1000, TOKEN_FAILURES_PER_ADDRESS: 2, TOKEN_FAILURE_WINDOW_SECONDS: 60 }

  test('the primary answers failures per scope; anything else is not its business', () => {
    const answer = attemptsHost(limits)
    const ask = (id: number, scope: string) =>
      answer({ type: 'procurement:attempt-failed', id, scope, clientId: `c${id}`, address: '10.0.0.1' })
    assert.deepEqual(ask(1, 'token'), { type: 'procurement:attempt-failed', id: 1, wait: 0 })
    assert.equal(ask(2, 'token')?.wait, 0)
    assert.ok(ask(3, 'token')!.wait > 0, 'the third failure from the address is braked')
    assert.equal(ask(4, 'sign-in')?.wait, 0, 'sign-ins are counted apart')
    assert.equal(answer({ type: 'procurement:attempt-failed', id: 5, scope: 'other', address: 'x' }), undefined)
    assert.equal(answer({ type: 'something-else' }), undefined)
    assert.equal(answer('procurement:attempt-failed'), undefined)
  })

  test('with no primary to ask, a counter counts locally (fails safe)', async () => {
    const counter = new AttemptCounter(
      { perClient: 1000, perAddress: 2, windowSeconds: 60 },
      new RemoteAttempts('token'),
    )
    assert.equal(await counter.failed('a', '10.0.0.2'), 0)
    assert.equal(await counter.failed('b', '10.0.0.2'), 0)
    assert.ok((await counter.failed('c', '10.0.0.2')) > 0)
  })
})

describe('the cluster’s metrics, in parts', () => {
  /** One worker's metrics as it sends them to the primary: `getMetricsAsJSON()` of its registry. */
  const workerMetrics = (served: number) => {
    const registry = new Registry()
    const counter = new Counter({
      name: 'http_requests_total',
      help: 'h',
      labelNames: ['route'],
      registers: [registry],
    })
    counter.inc({ route: '/healthz' }, served)
    return registry.getMetricsAsJSON()
  }

  test('the primary merges what the workers sent, counts who answered, and shares a gather among scrapes', async () => {
    const perWorker: unknown[] = [await workerMetrics(2), await workerMetrics(3), 'not metrics']
    let gathers = 0
    const workers = {
      count: 4,
      gather: async () => {
        gathers += 1
        return perWorker
      },
    }
    const answer = metricsHost()
    assert.equal(answer({ type: 'procurement:attempt-failed' }, workers), undefined, 'not its business')
    const scrapes = await Promise.all([
      answer({ type: 'procurement:metrics' }, workers),
      answer({ type: 'procurement:metrics' }, workers),
    ])
    assert.equal(gathers, 1, 'two scrapes at once share one gather')
    for (const scrape of scrapes) {
      assert.equal(scrape?.type, 'procurement:metrics')
      assert.equal(sample(scrape.text, 'http_requests_total{route="/healthz"}'), 5)
      assert.equal(sample(scrape.text, 'procurement_cluster_workers'), 4)
      assert.equal(sample(scrape.text, 'procurement_cluster_workers_answered'), 2, 'only answers that are metrics')
    }
    await answer({ type: 'procurement:metrics' }, workers)
    assert.equal(gathers, 2, 'a later scrape gathers afresh')
  })

  test('a worker whose primary does not answer reports its own metrics, and the gauges say so', async () => {
    const app = Fastify()
    const routes = new RouteMetrics()
    recordRequests(app, routes)
    metrics(app, routes, { workers: 3 }) // in this process there is no primary to ask
    try {
      await app.inject('/metrics')
      const response = await app.inject('/metrics')
      assert.equal(response.statusCode, 200)
      assert.equal(sample(response.body, 'http_requests_total{method="GET",route="/metrics",status="200"}'), 1)
      assert.equal(sample(response.body, 'procurement_cluster_workers'), 3)
      assert.equal(sample(response.body, 'procurement_cluster_workers_answered'), 1)
    } finally {
      await app.close()
    }
  })
})

describe('when cluster mode cannot run', () => {
  test('WORKERS=2 without DATABASE_URL is refused in one line, before any database work', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procurement-cluster-'))
    try {
      const result = await runToEnd(['serve'], { WORKERS: '2', PORT: '0', DATA_DIR: dataDir })
      assert.equal(result.code, 1)
      assert.equal(
        result.output.trim(),
        'procurement: WORKERS=2 needs DATABASE_URL: the embedded database is served by one process. Unset WORKERS (or set it to 1), or set DATABASE_URL.',
      )
      assert.deepEqual(fs.readdirSync(dataDir), [], 'no embedded database was made')
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  })

  test('an unreachable PostgreSQL is said once, not once per worker', async () => {
    const result = await runToEnd(['serve'], {
      ...KEYS,
      WORKERS: '2',
      PORT: '0',
      DATABASE_TIMEOUT_MS: '2000',
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/procurement',
    })
    assert.equal(result.code, 1)
    assert.equal(
      result.output.trim(),
      'procurement: Cannot reach PostgreSQL at 127.0.0.1:1 (ECONNREFUSED): start it, or fix DATABASE_URL.',
    )
  })

  test('workers that keep failing to start: tried again, then the first error once and exit 1', async () => {
    const fixture = path.join(import.meta.dirname, 'helpers/cluster-fixture.ts')
    const child = spawn(process.execPath, ['--import', 'tsx', fixture], { stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
    assert.equal(code, 1, output)
    assert.equal(count(output, /procurement: Cannot start worker \d+: no database\./), 1, output)
    assert.equal(count(output, /"msg":"worker failed to start: trying again"/), 2, output)
    assert.equal(count(output, /"msg":"workers keep failing to start: stopping"/), 1, output)
    assert.doesNotMatch(output, /all workers listening/)
  })
})
