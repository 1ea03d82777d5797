/**
 * Issue #49's read on PostgreSQL: `GET /api/v3/reports/spend/` by vendor and by month over 100,000 and then
 * 1,000,000 ledger entries (BENCH_REPORT_SIZES; `spent` entries inserted with generate_series straight into
 * ledger_entries, 10,000 a statement, against 10,000 bills of 200 vendors, dates over one year), the real
 * server in its own process beside the raw floor (bench/floor/server.ts) replaying the SQL the service ran for
 * the same request (captured by the harness) and writing the same JSON. Before measuring, both answers must be
 * the same JSON at each size. Each request is timed one at a time (BENCH_SEQUENTIAL, 7, after one unmeasured
 * request), server and floor alternating; the report takes seconds at 1M, longer than a load run.
 * Target: server ≤ 2 × the floor's time at the largest size.
 * Run: npm run bench -- reports   (BENCH_REPORT_SIZES=100000,1000000  BENCH_SEQUENTIAL=7; a smoke run:
 * BENCH_REPORT_SIZES=2000,10000 BENCH_SEQUENTIAL=3)
 */
import { isDeepStrictEqual } from 'node:util'
import { sql } from 'kysely'
import { operatorActor } from '../src/access/actor.ts'
import { publicBase } from '../src/http/public-url.ts'
import { runReport } from '../src/reports/service.ts'
import type { FloorSpec } from './floor/spec.ts'
import { captureRequest, indexOf, statementsOf, writeSpec } from './lib/capture.ts'
import { main } from './lib/cleanup.ts'
import { startFloor, startServer } from './lib/process.ts'
import { fmt, median, verdict } from './lib/report.ts'
import { request } from './lib/request.ts'
import { apiHeaders, seedTenant } from './lib/seed.ts'
import { BASE_DOMAIN, envNumber, POOL_MAX, SECRETS, serverEnv } from './lib/settings.ts'
import { configFor, openRecorded, scratchDatabase, storeEnv } from './lib/store.ts'

const SIZES = (process.env.BENCH_REPORT_SIZES ?? '100000,1000000')
  .split(',')
  .map((s) => Number(s.trim()))
  .filter((n) => Number.isInteger(n) && n > 0)
  .sort((a, b) => a - b)
const SEQUENTIAL = envNumber('BENCH_SEQUENTIAL', envNumber('BENCH_REPORT_REQUESTS', 7))
const VENDORS = 200
const BILLS = 10_000
const GROUPS = ['vendor', 'month']
const pathOf = (group: string) => `/api/v3/reports/spend/?group_by=${group}`

await main(async () => {
  if (SIZES.length === 0) throw new Error('BENCH_REPORT_SIZES names no size')
  const store = { engine: 'postgres' as const, url: await scratchDatabase('reports') }
  const { config, keys } = configFor(store)
  const recorded = await openRecorded(store)
  const { db } = recorded.database
  const tenant = await seedTenant(db, keys, config, 'small', VENDORS)
  const t = tenant.id
  const { location, currency } = (
    await sql<{ location: number; currency: number }>`select
      (select min(id) from locations where tenant_id = ${t}) as location,
      (select id from currencies where tenant_id = ${t} and name = 'USD') as currency`.execute(db)
  ).rows[0]!
  const vendors = (
    await db.selectFrom('vendors').select('id').where('tenant_id', '=', t).orderBy('id').limit(VENDORS).execute()
  ).map((r) => r.id)
  const firstBill = (
    await sql<{ id: number }>`with made as (
        insert into bills (tenant_id, number, number_key, vendor_id, location_id, currency_id, status, subtotal, tax,
          total, created_by)
        select ${t}, 'B-' || g, 'b-' || g, (${vendors}::int[])[1 + g % ${vendors.length}], ${location}, ${currency},
          'approved', 100, 0, 100, ${tenant.adminId}
        from generate_series(1, ${BILLS}) g returning id)
      select min(id) as id from made`.execute(db)
  ).rows[0]!.id
  const year = new Date().getUTCFullYear() - 1

  // The floor replays what the service runs for each grouping; the report's own statement is found by calling
  // the service the route calls, so a change to either is noticed here.
  const headers = apiHeaders(tenant)
  const actor = operatorActor({ id: t, domain: tenant.domain })
  const pages: NonNullable<FloorSpec['pages']> = {}
  for (const group of GROUPS) {
    const called = await statementsOf(recorded, () => runReport(db, actor, 'spend', { group_by: group }))
    const wanted = called.find((s) => /from ledger_entries e/.test(s.sql))
    if (wanted === undefined) throw new Error('the spend report no longer reads ledger_entries')
    const captured = await captureRequest(recorded, store, { method: 'GET', url: pathOf(group), headers })
    console.log(
      `${pathOf(group)} runs ${captured.statements.length} statement(s):\n${captured.statements.map((s) => `  ${s.sql.replace(/\s+/g, ' ').slice(0, 120)}…`).join('\n')}`,
    )
    pages[pathOf(group)] = {
      [t]: {
        statements: captured.statements,
        page: indexOf(captured.statements, wanted, 'spend report'),
        map: 'spend',
        group,
        linkBase: publicBase(config, tenant.domain) ?? '',
        body: JSON.parse(captured.body) as unknown,
      },
    }
  }
  await recorded.database.close()
  const spec = writeSpec('reports', {
    engine: 'postgres',
    url: store.url,
    poolMax: POOL_MAX,
    signingKey: SECRETS.TOKEN_SIGNING_KEY,
    pepper: SECRETS.SECRET_PEPPER,
    issuer: config.TOKEN_ISSUER,
    audience: config.API_AUDIENCE,
    pages,
  })
  const server = await startServer(
    serverEnv({ ...storeEnv(store), BASE_DOMAIN, RATE_LIMIT_PER_MINUTE: process.env.BENCH_RATE_LIMIT ?? '1000000000' }),
  )
  const floor = await startFloor(spec)

  // Entries are added while the server runs (a second connection; the server's is busy with nothing).
  const seeding = await openRecorded(store)
  const seedDb = seeding.database.db
  let entries = 0
  const lines: string[] = []
  const ratios = new Map<string, number>()
  try {
    for (const size of SIZES) {
      const started = performance.now()
      for (let from = entries + 1; from <= size; from += 10_000) {
        const to = Math.min(size, from + 9_999)
        await sql`insert into ledger_entries (tenant_id, stage, amount, currency, original_amount, rate, document_type,
            document_id, document_number, line_id, location_id, budget_date, reason)
          select ${t}, 'spent', ((g % 997) + 1) / 100.0, 'USD', ((g % 997) + 1) / 100.0, 1, 'bill',
            ${firstBill} + (g % ${BILLS}), 'B', g, ${location}, ${`${year}-01-01`}::date + (g % 365), 'billed'
          from generate_series(${from}::int, ${to}::int) g`.execute(seedDb)
      }
      entries = size
      await sql`vacuum analyze ledger_entries`.execute(seedDb)
      console.log(`${fmt(size)} ledger entries (inserted in ${fmt((performance.now() - started) / 1000, 1)} s)`)
      for (const group of GROUPS) {
        const path = pathOf(group)
        const [a, b] = [await request(server.base, { path, headers }), await request(floor.base, { path, headers })]
        if (a.status !== 200 || b.status !== 200)
          throw new Error(
            `${path}: server ${a.status}, floor ${b.status}: ${a.body.slice(0, 300)} ${b.body.slice(0, 300)}`,
          )
        if (!isDeepStrictEqual(JSON.parse(a.body), JSON.parse(b.body)))
          throw new Error(
            `${path}: the floor's JSON differs from the server's:\nserver ${a.body.slice(0, 600)}\nfloor  ${b.body.slice(0, 600)}`,
          )
        const rows = (JSON.parse(a.body) as { data: unknown[] }).data.length
        const times = { server: [] as number[], floor: [] as number[] }
        for (let i = 0; i < SEQUENTIAL; i++)
          for (const target of [server, floor]) {
            const answer = await request(target.base, { path, headers })
            if (answer.status !== 200) throw new Error(`${target.name} ${path}: ${answer.status}`)
            times[target.name as 'server' | 'floor'].push(answer.ms)
          }
        const s = median(times.server)
        const f = median(times.floor)
        ratios.set(`${size} ${group}`, s / f)
        lines.push(
          `${fmt(size).padStart(9)}  ${group.padEnd(7)} ${fmt(s, 1).padStart(10)} ${fmt(f, 1).padStart(9)}  ${fmt(s / f, 2)}× (${rows} rows)`,
        )
      }
    }
  } finally {
    await seeding.database.close()
    await server.stop()
    await floor.stop()
  }
  console.log(`  entries  group   server ms  floor ms  ratio (medians of ${SEQUENTIAL}, one at a time)`)
  for (const l of lines) console.log(l)
  const largest = SIZES[SIZES.length - 1]!
  for (const group of GROUPS) {
    const ratio = ratios.get(`${largest} ${group}`)!
    verdict(
      `spend by ${group} at ${fmt(largest)} ledger entries: ${fmt(ratio, 2)}× the floor's time (target ≤ 2×)`,
      ratio <= 2,
    )
  }
})
