/**
 * What the procure-to-pay write benchmarks share (bench/orders.ts, bench/bills.ts): a PostgreSQL tenant made
 * ready for them, templates made through the API in this process, fresh copies of a template cloned in bulk
 * with SQL (one per request, so every request does the same work on a resource of its own), the capture of
 * the statements (with the rows they returned) the service runs for one such request, and the measuring of
 * the server and the raw floor side by side on prepared resources, sent by bench/p2p/sender.ts.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { sql, type Kysely } from 'kysely'
import { buildApp } from '../../src/app.ts'
import type { DB } from '../../src/db/schema.ts'
import type { Statement } from '../floor/spec.ts'
import { writeSpec } from '../lib/capture.ts'
import { scratchDir } from '../lib/cleanup.ts'
import { awaitQuiet, cpuMs, othersShare, snapshot } from '../lib/machine.ts'
import { runChild, startFloor, startServer, type Running } from '../lib/process.ts'
import { fmt, median } from '../lib/report.ts'
import { request } from '../lib/request.ts'
import { apiHeaders, seedTenant, type Tenant } from '../lib/seed.ts'
import { BASE_DOMAIN, envNumber, POOL_MAX, ROOT, RUNS, SECRETS, serverEnv } from '../lib/settings.ts'
import { configFor, openRecorded, scratchDatabase, storeEnv, type Store } from '../lib/store.ts'
import type { Replay } from '../floor/spec.ts'
import type { Job, Sent } from './sender.ts'

/** Lines per order, request and bill (the issues' 50). */
export const LINES = envNumber('BENCH_LINES', 50)
/** Requests per target per run, each on its own prepared resource. */
export const PER_RUN = envNumber('BENCH_P2P_REQUESTS', 300)
export const CONNECTIONS = envNumber('BENCH_P2P_CONNECTIONS', 8)

/** Fresh resources a benchmark needs for `runs` runs: 2 to capture, 2 to check, the warm-ups and the runs. */
export const freshNeeded = (runs: number) => 4 + 2 * Math.min(100, PER_RUN) + 2 * runs * PER_RUN + 10

/** The first line of a write benchmark's output. */
export const header = () =>
  `node ${process.version}, ${os.cpus().length} cores (shared by the sender, node and PostgreSQL), ` +
  `${fmt(PER_RUN)} requests per target per run, ${CONNECTIONS} at a time, sent by bench/p2p/sender.ts, ${RUNS} runs (medians)`

export interface Req {
  method: 'POST'
  path: string
  body?: string
}

export interface P2P {
  store: Store
  db: Kysely<DB>
  tenant: Tenant
  recorded: Awaited<ReturnType<typeof openRecorded>>
  /** A request through the app built in this process (templates, capture); throws unless 2xx. */
  api(method: string, url: string, body?: unknown): Promise<{ data: Record<string, unknown> }>
  close(): Promise<void>
}

/**
 * A scratch database with the sample tenant, its ids started far apart per table (a captured id is then
 * never equal to another table's id, nor to a small number such as a line position), and its approval rules
 * made inactive (no document in these benchmarks waits for an approver; the same for server and floor).
 */
export async function prepare(label: string): Promise<P2P> {
  const store: Store = { engine: 'postgres', url: await scratchDatabase(label) }
  const { config, keys } = configFor(store)
  const recorded = await openRecorded(store)
  const { db } = recorded.database
  const tenant = await seedTenant(db, keys, config, 'small', 0)
  const tables = await sql<{ table_name: string }>`select c.table_name from information_schema.columns c
    where c.table_schema = 'public' and c.column_name = 'id'
      and (c.is_identity = 'YES' or c.column_default like 'nextval%') order by c.table_name`.execute(db)
  for (const [i, { table_name }] of tables.rows.entries())
    await sql`select setval(pg_get_serial_sequence(${table_name}, 'id'),
      greatest(${(i + 1) * 10_000_000}, (select coalesce(max(id), 1) from ${sql.table(table_name)})))`.execute(db)
  await sql`update approval_rules set active = false where tenant_id = ${tenant.id}`.execute(db)
  const app = await buildApp({
    config: configFor(store, { RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'silent' }).config,
    database: recorded.database,
    keys,
  })
  const headers = apiHeaders(tenant)
  return {
    store,
    db,
    tenant,
    recorded,
    async api(method, url, body) {
      const r = await app.inject({
        method: method as 'POST',
        url,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
      })
      if (r.statusCode >= 300) throw new Error(`${method} ${url}: ${r.statusCode} ${r.body}`)
      return r.json()
    },
    async close() {
      await app.close()
      await recorded.database.close()
    },
  }
}

/** Runs `bench` on a prepared scratch tenant (see prepare) and closes it, whatever happens. */
export async function onPrepared(label: string, bench: (p: P2P) => Promise<void>): Promise<void> {
  const p = await prepare(label)
  try {
    await bench(p)
  } finally {
    await p.close()
  }
}

/** The sample tenant's first active vendor and first location. */
export async function basics(p: P2P) {
  const vendor = await p.db
    .selectFrom('vendors')
    .select('id')
    .where('tenant_id', '=', p.tenant.id)
    .where('active', '=', true)
    .orderBy('id')
    .executeTakeFirstOrThrow()
  const location = await p.db
    .selectFrom('locations')
    .select('id')
    .where('tenant_id', '=', p.tenant.id)
    .orderBy('id')
    .executeTakeFirstOrThrow()
  return { vendor: vendor.id, location: location.id }
}

/** An issued order of LINES lines of `quantity` each (made and issued through the API). */
export async function issuedOrder(p: P2P, quantity: string) {
  const { vendor, location } = await basics(p)
  const lines = Array.from({ length: LINES }, (_, i) => ({
    description: `Item ${i + 1}`,
    quantity,
    unit_price: '5',
    tax_rate: '0',
  }))
  const order = (await p.api('POST', '/api/v3/purchase-orders/', { vendor, location, lines })).data
  const issued = (await p.api('POST', `/api/v3/purchase-orders/${order.id as number}/issue/`)).data
  if (issued.status !== 'issued') throw new Error(`the template order is ${issued.status as string}, not issued`)
  return issued as { id: number; number: string; lines: { id: number }[] }
}

/** `n` copies of order `template` (numbered `<number>-<g>`) with its lines: their ids, and each one's line ids by position. */
export async function cloneOrders(p: P2P, template: number, n: number) {
  const orders = await cloneRows(p.db, 'purchase_orders', p.tenant.id, template, n, { number: `t.number || '-' || g` })
  const lines = await cloneChildren(p.db, 'purchase_order_lines', 'order_id', p.tenant.id, template, orders)
  return { orders, lines }
}

/** Seconds since `started` (a `performance.now()`), as the set-up's log line writes them. */
export const secondsSince = (started: number) => fmt((performance.now() - started) / 1000, 1)

const columnsOf = async (db: Kysely<DB>, table: string) =>
  (
    await sql<{ column_name: string }>`select column_name from information_schema.columns
      where table_schema = 'public' and table_name = ${table} and column_name <> 'id'
        and is_generated = 'NEVER' order by ordinal_position`.execute(db)
  ).rows.map((r) => r.column_name)

/**
 * `n` copies of row `id` of `table` (tenant-scoped), in one statement; `override` gives an SQL expression per
 * column over the template `t` and the copy's number `g` (1…n). Returns the copies' ids, the g-th first.
 */
export async function cloneRows(
  db: Kysely<DB>,
  table: string,
  tenantId: number,
  id: number,
  n: number,
  override: Record<string, string> = {},
): Promise<number[]> {
  const columns = await columnsOf(db, table)
  const list = columns.map((c) => `"${c}"`).join(', ')
  const values = columns.map((c) => override[c] ?? `t."${c}"`).join(', ')
  const rows = await sql<{ id: number; g: number }>`with made as (
      insert into ${sql.table(table)} (${sql.raw(list)})
      select ${sql.raw(values)} from ${sql.table(table)} t, generate_series(1, ${n}) g
      where t.tenant_id = ${tenantId} and t.id = ${id} order by g returning id)
    select id, row_number() over (order by id)::int as g from made`.execute(db)
  return rows.rows.sort((a, b) => a.g - b.g).map((r) => r.id)
}

/**
 * Copies of the child rows of `parentColumn` = `templateParent` (ordered by `position`) under each of
 * `parents`; returns per parent its children's ids by position. `override` as in cloneRows, with `m.parent`
 * (the copy's parent) and `m.g` (its number) in scope.
 */
export async function cloneChildren(
  db: Kysely<DB>,
  table: string,
  parentColumn: string,
  tenantId: number,
  templateParent: number,
  parents: number[],
  override: Record<string, string> = {},
): Promise<number[][]> {
  const columns = await columnsOf(db, table)
  const list = columns.map((c) => `"${c}"`).join(', ')
  const values = columns.map((c) => (c === parentColumn ? 'm.parent' : (override[c] ?? `t."${c}"`))).join(', ')
  const rows = await sql<{
    id: number
    parent: number
    position: number
  }>`insert into ${sql.table(table)} (${sql.raw(list)})
      select ${sql.raw(values)} from ${sql.table(table)} t
        cross join unnest(${parents}::int[]) with ordinality as m(parent, g)
      where t.tenant_id = ${tenantId} and t.${sql.ref(parentColumn)} = ${templateParent}
      order by m.g, t.position
      returning id, ${sql.ref(parentColumn)} as parent, position`.execute(db)
  const byParent = new Map<number, { id: number; position: number }[]>()
  for (const r of rows.rows) byParent.set(r.parent, [...(byParent.get(r.parent) ?? []), r])
  return parents.map((p) => (byParent.get(p) ?? []).sort((a, b) => a.position - b.position).map((r) => r.id))
}

/**
 * The statements the service runs for `measured` in steady state, with the rows each returned: `warm` (the
 * same request on another fresh resource) first, since a first request may do one-off work.
 */
export async function captureFresh(p: P2P, warm: Req, measured: Req) {
  const send = (r: Req) => p.api(r.method, r.path, r.body === undefined ? undefined : JSON.parse(r.body))
  await send(warm)
  await new Promise((resolve) => setTimeout(resolve, 200))
  p.recorded.results.length = 0
  const body = await send(measured)
  const statements: Statement[] = [...p.recorded.results]
  p.recorded.results.length = 0
  // Statements the service ran outside the request (a cache's refresh) would show as reads without a begin.
  return { statements, body }
}

/** One fresh resource: the request for it, and the pairs (captured value → its value) the floor replaces. */
export interface Fresh {
  key: string
  request: Req
  pairs: [unknown, unknown][]
}

export interface Bench {
  label: string
  /** The route's path as a regular expression (its first group names the resource) or, with bodyKey, the body. */
  path: string
  bodyKey?: string
  /** The service's answer's status (201 unless said). */
  status?: number
  captured: { statements: Statement[]; body: unknown }
  fresh: Fresh[]
  /** The rows written (e.g. receipts of the tenant), to check that every 2xx wrote exactly one. */
  written(): Promise<number>
  /** What a single write must have done to its resource (checked after the first request to each target). */
  check(fresh: Fresh): Promise<void>
}

export interface Measured extends Sent {
  cpuPerRequest: number
  othersPct: number
}

async function measureOne(target: Running, requests: Req[], headers: Record<string, string>): Promise<Measured> {
  const file = path.join(scratchDir('p2p-job'), 'job.json')
  const job: Job = { base: target.base, headers, connections: CONNECTIONS, requests }
  fs.writeFileSync(file, JSON.stringify(job))
  await awaitQuiet()
  const start = snapshot()
  const before = cpuMs(target.pid)
  const { stdout } = await runChild(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'bench/p2p/sender.ts'), file],
    600,
  )
  const cpu = cpuMs(target.pid) - before
  const sent = JSON.parse(stdout) as Sent
  return { ...sent, cpuPerRequest: cpu / Math.max(1, sent.ok), othersPct: othersShare(start, snapshot()) }
}

export const line = (label: string, m: Measured) =>
  `${label.padEnd(12)} ${fmt(m.rps, 1).padStart(7)} req/s   p50 ${fmt(m.p50, 1).padStart(6)} ms   p99 ${fmt(m.p99, 1).padStart(6)} ms   CPU ${fmt(m.cpuPerRequest, 2)} ms/req   others ${fmt(m.othersPct)} %`

/**
 * Starts the server and the floor, checks one write on each, then `runs` runs of PER_RUN requests per
 * target (alternating), each on its own fresh resource; every 2xx must have written exactly one row.
 */
export async function runBench(p: P2P, bench: Bench, runs: number) {
  const { config } = configFor(p.store)
  const replay: Replay = {
    method: 'POST',
    path: bench.path,
    ...(bench.bodyKey === undefined ? {} : { bodyKey: bench.bodyKey }),
    statements: bench.captured.statements,
    status: bench.status ?? 201,
    body: bench.captured.body,
    resources: Object.fromEntries(bench.fresh.map((f) => [f.key, f.pairs])),
  }
  const spec = writeSpec(bench.label, {
    engine: 'postgres',
    url: (p.store as { url: string }).url,
    poolMax: POOL_MAX,
    signingKey: SECRETS.TOKEN_SIGNING_KEY,
    pepper: SECRETS.SECRET_PEPPER,
    issuer: config.TOKEN_ISSUER,
    audience: config.API_AUDIENCE,
    replay: [replay],
  })
  const server = await startServer(
    serverEnv({
      ...storeEnv(p.store),
      BASE_DOMAIN,
      RATE_LIMIT_PER_MINUTE: process.env.BENCH_RATE_LIMIT ?? '1000000000',
    }),
  )
  const floor = await startFloor(spec)
  const headers = apiHeaders(p.tenant)
  const queue = [...bench.fresh]
  const take = (n: number) => {
    if (queue.length < n) throw new Error(`${bench.label}: only ${queue.length} fresh resources left, ${n} wanted`)
    return queue.splice(0, n)
  }
  // One write through each, checked in the database.
  for (const target of [server, floor]) {
    const [f] = take(1)
    const r = await request(target.base, {
      method: 'POST',
      path: f!.request.path,
      headers: { ...headers, 'content-type': 'application/json' },
      ...(f!.request.body === undefined ? {} : { body: f!.request.body }),
    })
    if (r.status !== (bench.status ?? 201)) throw new Error(`${target.name}: ${r.status} ${r.body}`)
    await bench.check(f!)
  }
  console.log(`server and floor each made one write, checked in the database`)
  const warm = envNumber('BENCH_P2P_WARMUP', Math.min(100, PER_RUN))
  for (const target of [server, floor])
    await measureOne(
      target,
      take(warm).map((f) => f.request),
      headers,
    )
  const results = { server: [] as Measured[], floor: [] as Measured[] }
  let checked = 0
  for (let run = 0; run < runs; run++)
    for (const target of [server, floor]) {
      const before = await bench.written()
      const m = await measureOne(
        target,
        take(PER_RUN).map((f) => f.request),
        headers,
      )
      const grown = (await bench.written()) - before
      if (m.errors > 0 || m.ok !== PER_RUN || grown !== m.ok)
        throw new Error(
          `${target.name}: ${m.ok} 2xx of ${PER_RUN}, ${m.errors} errors, ${grown} written: ${m.failures.join(' | ')}`,
        )
      checked += m.ok
      results[target.name as 'server' | 'floor'].push(m)
      console.log(`run ${run + 1} ${line(target.name, m)}`)
    }
  await server.stop()
  await floor.stop()
  return { ...results, checked }
}

/** The median of each figure over runs. */
export function medianOf(runs: Measured[]): Measured {
  const m = (k: keyof Measured) => median(runs.map((r) => r[k] as number))
  return {
    ok: m('ok'),
    answered: m('answered'),
    errors: m('errors'),
    seconds: m('seconds'),
    rps: m('rps'),
    p50: m('p50'),
    p99: m('p99'),
    cpuPerRequest: m('cpuPerRequest'),
    othersPct: m('othersPct'),
    failures: [],
  }
}

/** Prints medians and the verdict against `target` (server ÷ floor). */
export function report(what: string, r: { server: Measured[]; floor: Measured[]; checked: number }, target = 0.5) {
  const s = medianOf(r.server)
  const f = medianOf(r.floor)
  console.log(line('server', s))
  console.log(line('floor', f))
  const ratio = s.rps / f.rps
  const perRun = r.server.map((m, i) => fmt(m.rps / r.floor[i]!.rps, 2)).join(', ')
  console.log(
    `${ratio >= target ? 'PASS' : 'MISS'}  ${what}: ${fmt(ratio, 2)}× the floor (target ≥ ${target}×; per run ${perRun})`,
  )
  console.log(`PASS  every 2xx wrote exactly one (${fmt(r.checked)} writes checked)`)
}
