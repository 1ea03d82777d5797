/**
 * Issue #31's list: `GET /api/v3/purchase-orders/` page 1 on PostgreSQL, in the default order and with a
 * status filter (`?status=issued`), as the tenant's administrator, for a tenant of BENCH_SMALL (10,000) orders
 * and one of BENCH_BIG (1,000,000), both bulk-loaded with generate_series (60 % issued, 20 % closed, 10 %
 * drafts, 10 % cancelled; the first 1,000 with two lines each). One request at a time per size and query
 * (BENCH_SEQUENTIAL per run, after one unmeasured request), alternating sizes, BENCH_RUNS runs; the median
 * latency per size, and the ratio 1M ÷ 10k. Target: ≤ 1.5×. `BENCH_EXPLAIN=1` prints the page statement's
 * plan at each size.
 * Run: npm run bench -- orders-list   (BENCH_RUNS=3  BENCH_SEQUENTIAL=20  BENCH_SMALL=10000  BENCH_BIG=1000000)
 */
import { sql, type Kysely } from 'kysely'
import pg from 'pg'
import { buildApp } from '../src/app.ts'
import type { DB } from '../src/db/schema.ts'
import { main } from './lib/cleanup.ts'
import { awaitQuiet } from './lib/machine.ts'
import { startServer } from './lib/process.ts'
import { fmt, median, verdict } from './lib/report.ts'
import { request } from './lib/request.ts'
import { apiHeaders, seedTenant, type Tenant } from './lib/seed.ts'
import { BASE_DOMAIN, envNumber, RUNS, serverEnv } from './lib/settings.ts'
import { configFor, openRecorded, scratchDatabase, storeEnv, type Store } from './lib/store.ts'

const SMALL = envNumber('BENCH_SMALL', 10_000)
const BIG = envNumber('BENCH_BIG', 1_000_000)
const SEQUENTIAL = envNumber('BENCH_SEQUENTIAL', 20)
const QUERIES = ['/api/v3/purchase-orders/', '/api/v3/purchase-orders/?status=issued']

/** `orders` orders in the tenant, 10,000 per statement. */
async function loadOrders(db: Kysely<DB>, tenant: Tenant, orders: number) {
  const started = performance.now()
  const t = tenant.id
  const { location, currency } = (
    await sql<{ location: number; currency: number }>`select id as location, currency_id as currency
      from locations where tenant_id = ${t} order by id limit 1`.execute(db)
  ).rows[0]!
  const vendors = (
    await sql<{ id: number }>`select id from vendors where tenant_id = ${t} and active order by id`.execute(db)
  ).rows.map((r) => r.id)
  for (let from = 1; from <= orders; from += 10_000) {
    const to = Math.min(orders, from + 9_999)
    await sql`insert into purchase_orders (tenant_id, number, status, version, receipt_status, vendor_id,
        location_id, currency_id, subtotal, tax, total, approved_total, created_by, issued_at, created_at, updated_at)
      select ${t}, 'PO-' || lpad(g::text, 7, '0'),
        case when g % 10 < 6 then 'issued' when g % 10 < 8 then 'closed' when g % 10 = 8 then 'draft' else 'cancelled' end,
        case when g % 10 < 8 then 1 else 0 end, 'none', (${vendors}::int[])[1 + g % ${vendors.length}],
        ${location}, ${currency}, 10 + g % 1000, 0, 10 + g % 1000,
        case when g % 10 < 8 then 10 + g % 1000 end, ${tenant.adminId},
        case when g % 10 < 8 then now() - make_interval(secs => ${orders} - g) end,
        now() - make_interval(secs => ${orders} - g), now() - make_interval(secs => ${orders} - g)
      from generate_series(${from}::int, ${to}::int) g`.execute(db)
  }
  await sql`insert into purchase_order_lines (tenant_id, order_id, position, description, quantity, unit_price,
      amount, tax)
    select po.tenant_id, po.id, p, 'Item ' || p, 2, 5, 10, 0
    from (select * from purchase_orders where tenant_id = ${t} order by id limit 1000) po, generate_series(1, 2) p`.execute(
    db,
  )
  await sql`insert into document_numbers (tenant_id, kind, last) values (${t}, 'purchase_order', ${orders})
    on conflict (tenant_id, kind) do update set last = excluded.last`.execute(db)
  console.log(`  ${fmt(orders)} orders in ${fmt((performance.now() - started) / 1000, 1)} s`)
}

await main(async () => {
  const store: Store = { engine: 'postgres', url: await scratchDatabase('orders_list') }
  const { config, keys } = configFor(store)
  const recorded = await openRecorded(store)
  const { db } = recorded.database
  const sizes: [string, number][] = [['small', SMALL], ...(BIG > 0 ? [['big', BIG] as [string, number]] : [])]
  const tenants = new Map<string, Tenant>()
  for (const [domain, n] of sizes) {
    const tenant = await seedTenant(db, keys, config, domain, 0)
    await loadOrders(db, tenant, n)
    tenants.set(domain, tenant)
  }
  // What each list's count must be (the sample tenant brings a few orders of its own).
  const expected = new Map<string, number>()
  for (const [domain] of sizes) {
    const t = tenants.get(domain)!.id
    const row = await sql<{ all: string; issued: string }>`select count(*) as all,
        count(*) filter (where status = 'issued') as issued from purchase_orders where tenant_id = ${t}`.execute(db)
    expected.set(`${QUERIES[0]} ${domain}`, Number(row.rows[0]!.all))
    expected.set(`${QUERIES[1]} ${domain}`, Number(row.rows[0]!.issued))
  }
  await sql`vacuum analyze purchase_orders`.execute(db)
  await sql`vacuum analyze purchase_order_lines`.execute(db)
  if (process.env.BENCH_EXPLAIN !== undefined) {
    const app = await buildApp({
      config: configFor(store, { RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'silent' }).config,
      database: recorded.database,
      keys,
    })
    for (const [domain] of sizes)
      for (const url of QUERIES) {
        await app.inject({ method: 'GET', url, headers: apiHeaders(tenants.get(domain)!) })
        recorded.log.length = 0
        await app.inject({ method: 'GET', url, headers: apiHeaders(tenants.get(domain)!) })
        const page = recorded.log.find((s) => /from "purchase_orders"/.test(s.sql))!
        const client = new pg.Client({ connectionString: (store as { url: string }).url })
        await client.connect()
        const plan = await client.query<{ 'QUERY PLAN': string }>(
          `explain (analyze, buffers) ${page.sql}`,
          page.parameters,
        )
        await client.end()
        console.log(`\nEXPLAIN ${domain} ${url}:\n${plan.rows.map((r) => r['QUERY PLAN']).join('\n')}`)
      }
    await app.close()
  }
  await recorded.database.close()
  const server = await startServer(
    serverEnv({ ...storeEnv(store), BASE_DOMAIN, RATE_LIMIT_PER_MINUTE: process.env.BENCH_RATE_LIMIT ?? '1000000000' }),
  )
  const times = new Map<string, number[]>()
  let checked = false
  for (let run = 0; run < RUNS; run++) {
    await awaitQuiet()
    for (const url of QUERIES)
      for (const [domain] of sizes) {
        const headers = apiHeaders(tenants.get(domain)!)
        const first = await request(server.base, { path: url, headers })
        if (first.status !== 200) throw new Error(`${domain} ${url}: ${first.status} ${first.body}`)
        if (!checked) {
          const body = JSON.parse(first.body) as { metadata: { pagination: { count: number } }; data: unknown[] }
          const count = expected.get(`${url} ${domain}`)
          if (body.metadata.pagination.count !== count)
            throw new Error(`${domain} ${url}: count ${body.metadata.pagination.count}, expected ${count}`)
          if (body.data.length !== 10) throw new Error(`${domain} ${url}: ${body.data.length} rows on page 1`)
          console.log(`${domain} ${url}: count ${fmt(body.metadata.pagination.count)}`)
        }
        const key = `${url} ${domain}`
        for (let i = 0; i < SEQUENTIAL; i++) {
          const r = await request(server.base, { path: url, headers })
          if (r.status !== 200) throw new Error(`${domain} ${url}: ${r.status} ${r.body}`)
          times.set(key, [...(times.get(key) ?? []), r.ms])
        }
      }
    checked = true
  }
  await server.stop()
  console.log(`\none request at a time, ${SEQUENTIAL} per size and query per run, ${RUNS} runs (medians of all)`)
  for (const url of QUERIES) {
    const small = median(times.get(`${url} small`)!)
    console.log(`${url.padEnd(42)} ${fmt(SMALL)}: ${fmt(small, 2)} ms`)
    if (BIG > 0) {
      const big = median(times.get(`${url} big`)!)
      console.log(`${url.padEnd(42)} ${fmt(BIG)}: ${fmt(big, 2)} ms`)
      verdict(
        `${url} page 1 at ${fmt(BIG)} orders ÷ at ${fmt(SMALL)}: ${fmt(big / small, 2)}× (target ≤ 1.5×)`,
        big / small <= 1.5,
      )
    }
  }
})
