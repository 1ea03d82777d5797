/**
 * Events and webhooks, on PostgreSQL, three measurements (docs/benchmarks.md):
 * 1. vendor creates with events (this checkout) against the same server without them (BENCH_EVENTS_BASE, by
 *    default the commit before events came in, extracted with `git archive` and built), 32 connections,
 *    alternating runs; each on its own database;
 * 2. delivery throughput: BENCH_DELIVERIES deliveries queued for one endpoint on a local receiver, sent by the
 *    server's worker, against a raw loop in a process of its own sending the same signed POSTs to the same
 *    kind of receiver with the same concurrency (8, the worker's per-endpoint limit);
 * 3. the feed's page (`GET /api/v3/events/?page_size=100`, first page and a page after a cursor half-way)
 *    for a tenant of 10,000 events and one of 1,000,000.
 * Run: npm run build && npm run bench -- events   (BENCH_SECONDS=10 BENCH_RUNS=3 BENCH_DELIVERIES=2000)
 */
import { execSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { sql } from 'kysely'
import { openPostgres } from '../src/db/database.ts'
import { eventId } from '../src/events/service.ts'
import { main, onCleanup, scratchDir } from './lib/cleanup.ts'
import { describeMachine, measure, type Measured } from './lib/load.ts'
import { startServer, startServerAt, type Running } from './lib/process.ts'
import { fmt, median, medians, row, verdict } from './lib/report.ts'
import { apiHeaders, seedTenant } from './lib/seed.ts'
import { BASE_DOMAIN, envNumber, ROOT, RUNS, SECONDS, serverEnv } from './lib/settings.ts'
import { configFor, openRecorded, scratchDatabase, storeEnv, type Store } from './lib/store.ts'

const DELIVERIES = envNumber('BENCH_DELIVERIES', 2000)
const CONNECTIONS = 32
const CREATE = { path: '/api/v3/vendors/', method: 'POST' as const, body: JSON.stringify({ name: 'Bench vendor' }) }

/** The checkout without events: BENCH_EVENTS_BASE, or the parent of the commit that added src/events/. */
function baseCheckout(): { dir: string; ref: string } {
  const added = execSync('git log --diff-filter=A --format=%H -- src/events/service.ts', {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .at(-1)
  const ref = process.env.BENCH_EVENTS_BASE ?? `${added}^`
  const dir = scratchDir('events-base')
  execSync(`git archive ${ref} | tar -x -C ${dir}`, { cwd: ROOT, shell: '/bin/sh' })
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'))
  execSync('npm run build --silent', { cwd: dir, stdio: 'ignore' })
  return { dir, ref: execSync(`git rev-parse --short ${ref}`, { cwd: ROOT, encoding: 'utf8' }).trim() }
}

async function creates(): Promise<void> {
  const base = baseCheckout()
  const withStore: Store = { engine: 'postgres', url: await scratchDatabase('events_with') }
  const withoutUrl = await scratchDatabase('events_without')
  const env = (url: string) =>
    serverEnv({ ...storeEnv({ engine: 'postgres', url }), BASE_DOMAIN, RATE_LIMIT_PER_MINUTE: '0' })
  // The earlier server migrates its own database.
  const without = await startServerAt(base.dir, env(withoutUrl), 'without events')
  const plain = openPostgres({ url: withoutUrl })
  onCleanup(() => plain.close())
  const { config, keys } = configFor(withStore)
  const recorded = await openRecorded(withStore)
  onCleanup(() => recorded.database.close())
  const tWith = await seedTenant(recorded.database.db, keys, config, 'evwith', 0)
  // Seeded by the earlier checkout's own code: this one's goes through the services, which record events into
  // a table the earlier schema does not have.
  // bench/lib.ts held it before it was split into bench/lib/.
  const seeding = ['bench/lib/seed.ts', 'bench/lib.ts'].find((file) => fs.existsSync(path.join(base.dir, file)))!
  const earlier = (await import(pathToFileURL(path.join(base.dir, seeding)).href)) as {
    seedTenant: typeof seedTenant
  }
  const tWithout = await earlier.seedTenant(plain.db, keys, config, 'evwithout', 0)
  const server = await startServer(env(withStore.url), 'with events')
  console.log(`without events: ${base.ref}; ${describeMachine(CONNECTIONS)}`)
  const results: Record<string, Measured[]> = { with: [], without: [] }
  for (let run = 0; run < RUNS; run++) {
    for (const [key, target, tenant] of [
      ['with', server, tWith],
      ['without', without, tWithout],
    ] as const) {
      const headers = { ...apiHeaders(tenant), 'content-type': 'application/json' }
      if (run === 0) await measure(target, { ...CREATE, headers, connections: CONNECTIONS, seconds: 3 })
      results[key]!.push(await measure(target, { ...CREATE, headers, connections: CONNECTIONS, seconds: SECONDS }))
    }
  }
  const events = await sql<{
    n: string
  }>`SELECT count(*) AS n FROM events WHERE tenant_id = ${tWith.id} AND type = 'vendor.created'`.execute(
    recorded.database.db,
  )
  const vendors = await sql<{ n: string }>`SELECT count(*) AS n FROM vendors WHERE tenant_id = ${tWith.id}`.execute(
    recorded.database.db,
  )
  const [w, wo] = [medians(results.with!), medians(results.without!)]
  console.log(row('creates with events', w))
  console.log(row('creates without events', wo))
  verdict(
    `one event per vendor: ${events.rows[0]!.n} events, ${vendors.rows[0]!.n} vendors`,
    events.rows[0]!.n === vendors.rows[0]!.n,
  )
  verdict(`creates with events ${fmt(w.rps / wo.rps, 2)}× without (target ≥ 0.85)`, w.rps / wo.rps >= 0.85)
  await server.stop()
  await without.stop()
}

/** A receiver that answers 204 and records when each request arrived. */
async function receiver() {
  const times: number[] = []
  const server = http.createServer((request, response) => {
    request.resume()
    request.on('end', () => {
      times.push(performance.now())
      response.writeHead(204).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  onCleanup(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, times }
}

/**
 * The raw loop, in a process of its own (bench/floor/webhook-sender.ts), as the worker is in the server's:
 * `bodies` as signed POSTs to `url`, `concurrency` at a time; returns POSTs per second.
 */
async function rawLoop(url: string, secret: string, bodies: { id: string; body: string }[], concurrency: number) {
  const job = path.join(scratchDir('webhook-sender'), 'job.json')
  fs.writeFileSync(job, JSON.stringify({ url, secret, concurrency, bodies }))
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/floor/webhook-sender.ts', job], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
    child.on('error', reject)
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`the raw loop exited with ${code}`))))
  })
  return (JSON.parse(output) as { rate: number }).rate
}

async function deliveries(): Promise<void> {
  const store: Store = { engine: 'postgres', url: await scratchDatabase('events_delivery') }
  const { config, keys } = configFor(store)
  const recorded = await openRecorded(store)
  onCleanup(() => recorded.database.close())
  const { db } = recorded.database
  const tenant = await seedTenant(db, keys, config, 'evdeliver', 0)
  const env = serverEnv({
    ...storeEnv(store),
    BASE_DOMAIN,
    RATE_LIMIT_PER_MINUTE: '0',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  })
  const serverRates: number[] = []
  const rawRates: number[] = []
  for (let run = 0; run < RUNS; run++) {
    const sink = await receiver()
    // Queued while no server runs: events and their deliveries written as a write writes them, in one statement.
    const secret = `whsec_${Buffer.alloc(32, run + 1).toString('base64')}`
    const endpoint = await db
      .insertInto('webhook_endpoints')
      .values({ tenant_id: tenant.id, url: sink.url, event_types: ['*'], secret })
      .returning('id')
      .executeTakeFirstOrThrow()
    await sql`
      WITH e AS (
        INSERT INTO events (tenant_id, type, object)
        SELECT ${tenant.id}, 'vendor.created', jsonb_build_object('id', g, 'name', 'Vendor ' || g, 'city', 'Chicago')
        FROM generate_series(1, ${DELIVERIES}) g RETURNING tenant_id, xid, seq, type)
      INSERT INTO webhook_deliveries (tenant_id, endpoint_id, event_xid, event_seq, event_type, next_attempt_at)
      SELECT tenant_id, ${endpoint.id}, xid, seq, type, now() FROM e`.execute(db)
    await sql`SELECT number_events(${tenant.id}::integer)`.execute(db)
    const rows = await sql<{ n: string; type: string; object: unknown; created_at: Date }>`
      SELECT e.n::text AS n, e.type, e.object, e.created_at FROM events e
      JOIN webhook_deliveries d ON d.event_xid = e.xid AND d.event_seq = e.seq AND d.endpoint_id = ${endpoint.id}`.execute(
      db,
    )
    const bodies = rows.rows.map((r) => {
      const id = eventId(r.n)
      return {
        id,
        body: JSON.stringify({ id, type: r.type, created_at: r.created_at.toISOString(), data: { object: r.object } }),
      }
    })
    const server: Running = await startServer(env)
    const deadline = Date.now() + 300_000
    while (sink.times.length < DELIVERIES && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
    await server.stop()
    if (sink.times.length < DELIVERIES) throw new Error(`only ${sink.times.length} of ${DELIVERIES} deliveries arrived`)
    const first = Math.min(...sink.times)
    const last = Math.max(...sink.times)
    serverRates.push((DELIVERIES / (last - first)) * 1000)
    const raw = await receiver()
    rawRates.push(await rawLoop(raw.url, secret, bodies, 8))
    await db.updateTable('webhook_endpoints').set({ enabled: false }).where('id', '=', endpoint.id).execute()
  }
  const [s, r] = [median(serverRates), median(rawRates)]
  console.log(`deliveries by the worker: ${fmt(s)} /s (runs ${serverRates.map((v) => fmt(v)).join(', ')})`)
  console.log(`raw loop, same signed POSTs, 8 at a time: ${fmt(r)} /s (runs ${rawRates.map((v) => fmt(v)).join(', ')})`)
  verdict(`delivery throughput ${fmt(s / r, 2)}× the raw loop (target ≥ 0.5)`, s / r >= 0.5)
}

async function feed(): Promise<void> {
  const store: Store = { engine: 'postgres', url: await scratchDatabase('events_feed') }
  const { config, keys } = configFor(store)
  const recorded = await openRecorded(store)
  onCleanup(() => recorded.database.close())
  const { db } = recorded.database
  const tenants = []
  for (const [name, count] of [
    ['feed10k', 10_000],
    ['feed1m', 1_000_000],
  ] as const) {
    const t = await seedTenant(db, keys, config, name, 0)
    const started = performance.now()
    // In transactions of 10,000 events each, as many writes would commit them.
    for (let done = 0; done < count; done += 10_000)
      await sql`INSERT INTO events (tenant_id, type, object)
        SELECT ${t.id}, 'vendor.created', jsonb_build_object('id', g, 'name', 'Vendor ' || g, 'city', 'Chicago')
        FROM generate_series(1, 10000) g`.execute(db)
    await sql`VACUUM ANALYZE events`.execute(db)
    await sql`SELECT number_events(${t.id}::integer)`.execute(db)
    const middle = await sql<{ n: string }>`SELECT n::text AS n FROM events
      WHERE tenant_id = ${t.id} ORDER BY n OFFSET ${count / 2} LIMIT 1`.execute(db)
    console.log(`${name}: ${fmt(count)} events in ${fmt((performance.now() - started) / 1000, 1)} s`)
    tenants.push({ name, t, after: eventId(middle.rows[0]!.n) })
  }
  const server = await startServer(serverEnv({ ...storeEnv(store), BASE_DOMAIN, RATE_LIMIT_PER_MINUTE: '0' }))
  for (const page of ['first', 'middle'] as const) {
    const results = new Map<string, Measured[]>()
    for (let run = 0; run < RUNS; run++)
      for (const { name, t, after } of tenants) {
        const path = `/api/v3/events/?page_size=100${page === 'middle' ? `&after=${after}` : ''}`
        const m = await measure(server, { path, headers: apiHeaders(t), connections: 10, seconds: SECONDS })
        if (m.ok !== m.answered) throw new Error(`${name}: ${m.answered - m.ok} answers were not 200`)
        results.set(name, [...(results.get(name) ?? []), m])
      }
    const [small, big] = [medians(results.get('feed10k')!), medians(results.get('feed1m')!)]
    console.log(row(`${page} page, 10,000 events`, small))
    console.log(row(`${page} page, 1,000,000 events`, big))
    verdict(`${page} page p50 at 1M ${fmt(big.p50 / small.p50, 2)}× 10k (target ≤ 1.5)`, big.p50 <= small.p50 * 1.5)
  }
  await server.stop()
}

const parts = (process.env.BENCH_EVENTS_PARTS ?? 'creates,deliveries,feed').split(',')
await main(async () => {
  if (parts.includes('creates')) await creates()
  if (parts.includes('deliveries')) await deliveries()
  if (parts.includes('feed')) await feed()
})
