/**
 * GET /api/v3/vendors/ page 1, against the real server (its own process) and, in the same run, the raw floor
 * (bench/floor/server.ts: node:http + jose + the same SQL, captured from the service, + JSON.stringify).
 * PostgreSQL (a scratch database) and the embedded engine (a scratch DATA_DIR; the floor reads a copy).
 * A tenant with BENCH_SMALL vendors (10,000) and, on PostgreSQL, one with BENCH_BIG (1,000,000).
 * `BENCH_BASE=<built checkouts, bench/ copied in>` measures their servers and floors in the same rounds (bench/lib/base.ts).
 * Run: npm run bench -- vendors-list   (BENCH_ENGINES=postgres,pglite  BENCH_CONNECTIONS=50  BENCH_SECONDS=10  BENCH_RUNS=3)
 */
import fs from 'node:fs'
import { isDeepStrictEqual } from 'node:util'
import { DEFAULT_PAGE_SIZE } from '../src/core/list-query.ts'
import { pgdataPaths } from '../src/db/data-dir.ts'
import { publicBase } from '../src/http/public-url.ts'
import { LookupCache } from '../src/lookups/cache.ts'
import { pageOfVendors } from '../src/vendors/repository.ts'
import { withLookups } from '../src/vendors/service.ts'
import type { FloorSpec } from './floor/spec.ts'
import { startBases } from './lib/base.ts'
import { serveAndWait, serveTo } from './lib/serve.ts'
import { captureRequest, indexOf, statementsOf, writeSpec } from './lib/capture.ts'
import { main, scratchDir } from './lib/cleanup.ts'
import { describeMachine, measure, type Measured } from './lib/load.ts'
import { startFloor, startServer, type Running } from './lib/process.ts'
import { fmt, median, medians, row, verdict } from './lib/report.ts'
import { request } from './lib/request.ts'
import { apiHeaders, seedTenant, type Tenant } from './lib/seed.ts'
import { BASE_DOMAIN, envNumber, POOL_MAX, RUNS, SECONDS, SECRETS, serverEnv, WARMUP_SECONDS } from './lib/settings.ts'
import { configFor, openRecorded, scratchDatabase, storeEnv, type Store } from './lib/store.ts'

const PATH = '/api/v3/vendors/'
const connections = envNumber('BENCH_CONNECTIONS', 50)
const small = envNumber('BENCH_SMALL', 10_000)

async function bench(engine: 'postgres' | 'pglite') {
  const big = envNumber('BENCH_BIG', engine === 'postgres' ? 1_000_000 : 0)
  console.log(`\n### ${engine === 'postgres' ? 'PostgreSQL' : 'embedded (PGlite)'}`)
  const store: Store =
    engine === 'postgres'
      ? { engine, url: await scratchDatabase('vendors') }
      : { engine, dataDir: scratchDir('vendors') }
  const { config, keys } = configFor(store)
  const recorded = await openRecorded(store)
  const { db } = recorded.database
  const tenants = [await seedTenant(db, keys, config, 'small', small)]
  if (big > 0) tenants.push(await seedTenant(db, keys, config, 'big', big))

  // The floor replays what the service runs for this request; the page statement is found by calling the
  // repository function the service calls, so a change to either is noticed here.
  const list: NonNullable<FloorSpec['list']> = { pageSize: DEFAULT_PAGE_SIZE, tenants: {} }
  for (const t of tenants) {
    const [page] = await statementsOf(recorded, () => pageOfVendors(db, t.id, {}))
    // The service reads the page's look-ups once, then from memory (lookups/cache.ts); the floor does the same
    // with the statement a cold cache runs (an unsubscribed cache always reads).
    const { rows } = await pageOfVendors(db, t.id, {})
    const [lookups] = await statementsOf(recorded, () => withLookups(db, new LookupCache(), t.id, rows))
    const captured = await captureRequest(recorded, store, { method: 'GET', url: PATH, headers: apiHeaders(t) })
    list.tenants[t.id] = {
      statements: captured.statements,
      page: indexOf(captured.statements, page!, 'page'),
      ...(lookups === undefined ? {} : { lookups }),
      linkBase: publicBase(config, t.domain) ?? '',
    }
    if (t === tenants[0])
      console.log(
        `a request runs ${captured.statements.length} statement(s):\n${captured.statements.map((s) => `  ${s.sql.slice(0, 150)}…`).join('\n')}`,
      )
  }
  await recorded.database.close()

  let floorStore: { url: string } | { dataDir: string }
  if (store.engine === 'postgres') floorStore = { url: store.url }
  else {
    // The server locks its data directory: the floor reads a copy, taken before either starts.
    const copy = scratchDir('vendors-floor')
    fs.cpSync(pgdataPaths(store.dataDir).ready, copy, { recursive: true })
    floorStore = { dataDir: copy }
  }
  const spec: FloorSpec = {
    engine,
    ...floorStore,
    poolMax: POOL_MAX,
    signingKey: SECRETS.TOKEN_SIGNING_KEY,
    pepper: SECRETS.SECRET_PEPPER,
    issuer: config.TOKEN_ISSUER,
    audience: config.API_AUDIENCE,
    list,
  }
  const server = await startServer(
    serverEnv({
      ...storeEnv(store),
      BASE_DOMAIN,
      RATE_LIMIT_PER_MINUTE: process.env.BENCH_RATE_LIMIT ?? '1000000000',
    }),
  )
  const floor = await startFloor(writeSpec('vendors', spec))

  // Same answer from both (parsed: the server writes keys in its schema's order).
  for (const t of tenants) {
    const [a, b] = [
      await request(server.base, { path: PATH, headers: apiHeaders(t) }),
      await request(floor.base, { path: PATH, headers: apiHeaders(t) }),
    ]
    if (a.status !== 200 || b.status !== 200)
      throw new Error(`status: server ${a.status}, floor ${b.status}: ${a.body} ${b.body}`)
    if (!isDeepStrictEqual(JSON.parse(a.body), JSON.parse(b.body)))
      throw new Error(
        `the floor's JSON differs from the server's:\nserver ${a.body.slice(0, 400)}\nfloor  ${b.body.slice(0, 400)}`,
      )
  }
  // Serve mode (another build's run with BENCH_BASE naming this checkout): it measures; this waits.
  const served = tenants.map((t) => ({ domain: t.domain, headers: apiHeaders(t) }))
  if (serveTo() !== undefined) await serveAndWait([server, floor], served)
  const bases = await startBases<typeof served>('bench/vendors-list.ts', { BENCH_ENGINES: engine })
  console.log(`server and floor give the same JSON; ${describeMachine(connections)}`)

  // Every build's server and floor, each with its own tenants' headers (same domains), in the same rounds.
  const builds = [{ label: 'this build', targets: [server, floor], info: served }, ...bases]
  const targets = builds.flatMap((b) => b.targets.map((target) => ({ target, tenants: b.info })))
  const one = (target: Running, t: { domain: string; headers: Record<string, string> }, seconds: number) =>
    measure(target, { path: PATH, headers: t.headers, connections, seconds }).then((m) => {
      if (m.errors > 0 || m.answered !== m.ok)
        throw new Error(`${target.name}: ${m.answered - m.ok} non-2xx, ${m.errors} errors`)
      return m
    })
  for (const { target, tenants: ts } of targets) for (const t of ts) await one(target, t, WARMUP_SECONDS)
  const results = new Map<string, Measured[]>()
  /** Each run's server/floor ratio per build (small tenant), for the median of ratios. */
  const ratios = new Map<string, number[]>()
  for (let run = 0; run < RUNS; run++) {
    for (const [i] of tenants.entries())
      for (const { target, tenants: ts } of targets) {
        const key = `${target.name} ${ts[i]!.domain}`
        results.set(key, [...(results.get(key) ?? []), await one(target, ts[i]!, SECONDS)])
      }
    for (const b of builds) {
      const last = (name: string) => results.get(`${name} ${b.info[0]!.domain}`)!.at(-1)!.rps
      ratios.set(b.label, [...(ratios.get(b.label) ?? []), last(b.targets[0]!.name) / last(b.targets[1]!.name)])
    }
  }
  await server.stop()
  await floor.stop()

  const m = (target: string, t: Tenant) => medians(results.get(`${target} ${t.domain}`)!)
  for (const t of tenants) {
    const n = t === tenants[0] ? small : big
    for (const b of builds) {
      const [s, f] = b.targets as [Running, Running]
      console.log(row(`${s.name}, ${fmt(n)} vendors`, m(s.name, t)))
      console.log(row(`${f.name},  ${fmt(n)} vendors`, m(f.name, t)))
    }
  }
  const ratio = m('server', tenants[0]!).rps / m('floor', tenants[0]!).rps
  for (const b of builds)
    console.log(
      `INFO  ${b.label}: server/floor ${fmt((m(b.targets[0]!.name, tenants[0]!).rps / m(b.targets[1]!.name, tenants[0]!).rps) * 100, 1)} % of medians; median of the runs' ratios ${fmt(median(ratios.get(b.label)!) * 100, 1)} % (${ratios
        .get(b.label)!
        .map((r) => fmt(r * 100, 1))
        .join(', ')})`,
    )
  const target = engine === 'postgres' ? 0.8 : 0.7
  verdict(`server/floor ${fmt(ratio * 100, 1)} % (target ≥ ${target * 100} %)`, ratio >= target)
  for (const b of bases) {
    const theirs = median(ratios.get(b.label)!)
    const ours = median(ratios.get('this build')!)
    verdict(
      `this build's ratio ${fmt(ours * 100, 1)} % vs ${b.label} ${fmt(theirs * 100, 1)} % (no slower)`,
      ours >= theirs * 0.98,
    )
  }
  const cpu = m('server', tenants[0]!).cpuPerRequest
  if (engine === 'postgres') verdict(`server CPU ${fmt(cpu, 3)} ms/request (target ≤ 0.4 ms)`, cpu <= 0.4)
  else console.log(`INFO  server CPU ${fmt(cpu, 3)} ms/request (the embedded engine runs inside it; no target)`)
  if (tenants[1] !== undefined) {
    const slower = m('server', tenants[0]!).rps / m('server', tenants[1]).rps
    verdict(
      `page 1 of ${fmt(big)} vendors takes ${fmt(slower, 2)}× the time of ${fmt(small)} (target ≤ 1.5×)`,
      slower <= 1.5,
    )
  }
}

await main(async () => {
  for (const engine of (process.env.BENCH_ENGINES ?? 'postgres,pglite').split(',')) {
    if (engine !== 'postgres' && engine !== 'pglite')
      throw new Error(`BENCH_ENGINES: postgres or pglite, not ${engine}`)
    await bench(engine)
  }
})
