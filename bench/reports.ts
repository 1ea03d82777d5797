/**
 * Issue #49's read on PostgreSQL: the spend report by vendor and by month over 100k and then 1M ledger
 * entries (inserted with generate_series straight into ledger_entries, against 10,000 bills of 200 vendors),
 * beside a raw floor in the same run — the same SQL (captured from the report's own query) through node:http
 * + pg, answering JSON. The report side is a node:http server calling the report service (permissions, filter
 * parsing, the Kysely query, rows and totals, the JSON form) as a superuser; Fastify and bearer
 * authentication are not in either path. Target: report ≤ 2 × the floor at 1M.
 * Run: npx tsx bench/reports.ts   (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres;
 * BENCH_REPORT_REQUESTS=7 per measure, the median is reported)
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { CompiledQuery } from 'kysely'
import { sql } from 'kysely'
import pg from 'pg'
import { operatorActor } from '../src/access/actor.ts'
import { openPostgres } from '../src/db/database.ts'
import { migrateToLatest } from '../src/db/migrate.ts'
import { reportJson, runReport } from '../src/reports/service.ts'
import { createTenant } from '../src/tenants/service.ts'

const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const REQUESTS = Number(process.env.BENCH_REPORT_REQUESTS ?? 7)
const NAME = `bench_reports_${process.pid}`

async function withAdmin(statement: string) {
  const client = new pg.Client({ connectionString: ADMIN_URL })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}

const listen = (handler: http.RequestListener) =>
  new Promise<http.Server>((resolve) => {
    const server = http.createServer(handler).listen(0, '127.0.0.1', () => resolve(server))
  })

function get(server: http.Server, path: string): Promise<{ ms: number; body: string }> {
  const { port } = server.address() as AddressInfo
  const started = process.hrtime.bigint()
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path }, (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (c: string) => (body += c))
        res.on('end', () => {
          if (res.statusCode !== 200) reject(new Error(`${path}: ${res.statusCode} ${body}`))
          else resolve({ ms: Number(process.hrtime.bigint() - started) / 1e6, body })
        })
      })
      .on('error', reject)
  })
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

async function main() {
  await withAdmin(`CREATE DATABASE ${NAME}`)
  const url = new URL(ADMIN_URL)
  url.pathname = `/${NAME}`
  const database = openPostgres({ url: url.toString(), timeoutMs: 60_000 })
  const pool = new pg.Pool({ connectionString: url.toString(), max: 4 })
  const servers: http.Server[] = []
  try {
    await migrateToLatest(database.db)
    const db = database.db
    const tenant = await createTenant(db, {
      domain: 'bench',
      name: 'Bench',
      adminEmail: 'admin@bench.test',
      adminFirstName: 'B',
    })
    const t = tenant.tenantId
    const location = (
      await db.selectFrom('locations').select('id').where('tenant_id', '=', t).executeTakeFirstOrThrow()
    ).id
    const currency = (
      await db.selectFrom('currencies').select('id').where('tenant_id', '=', t).executeTakeFirstOrThrow()
    ).id
    await sql`insert into vendors (tenant_id, name) select ${t}, 'Vendor ' || g from generate_series(1, 200) g`.execute(
      db,
    )
    const firstVendor = (
      await db
        .selectFrom('vendors')
        .select((e) => e.fn.min('id').as('id'))
        .where('tenant_id', '=', t)
        .executeTakeFirstOrThrow()
    ).id
    await sql`insert into bills (tenant_id, number, number_key, vendor_id, location_id, currency_id, status, subtotal, tax, total, created_by)
      select ${t}, 'B-' || g, 'b-' || g, ${firstVendor} + (g % 200), ${location}, ${currency}, 'approved', 100, 0, 100, ${tenant.adminUserId}
      from generate_series(1, 10000) g`.execute(db)
    const firstBill = (
      await db
        .selectFrom('bills')
        .select((e) => e.fn.min('id').as('id'))
        .where('tenant_id', '=', t)
        .executeTakeFirstOrThrow()
    ).id

    const actor = { ...operatorActor({ id: t, domain: 'bench' }) }
    const captured = new Map<string, CompiledQuery>()

    servers.push(
      await listen((req, res) => {
        const query = Object.fromEntries(new URL(req.url!, 'http://x').searchParams)
        runReport(database.db, actor, 'spend', query)
          .then((result) => {
            res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reportJson(result)))
          })
          .catch((error: Error) => res.writeHead(500).end(error.message))
      }),
    )
    servers.push(
      await listen((req, res) => {
        const group = new URL(req.url!, 'http://x').searchParams.get('group_by') ?? 'vendor'
        const query = captured.get(group)!
        pool
          .query(query.sql, query.parameters as unknown[])
          .then((r) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: r.rows })))
          .catch((error: Error) => res.writeHead(500).end(error.message))
      }),
    )
    const [report, floor] = servers as [http.Server, http.Server]

    // Capture the compiled SQL of each grouping by running it once through a logging Kysely.
    const { Kysely, PostgresDialect } = await import('kysely')
    for (const group of ['vendor', 'month']) {
      const logging = new Kysely<never>({
        dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url.toString(), max: 1 }) }),
        log: (event) => {
          if (event.level === 'query' && /ledger_entries/.test(event.query.sql)) captured.set(group, event.query)
        },
      })
      await runReport(logging as never, actor, 'spend', { group_by: group })
      await logging.destroy()
    }

    let entries = 0
    console.log('entries  group    report ms  floor ms  ratio')
    for (const target of [100_000, 1_000_000]) {
      await sql`insert into ledger_entries (tenant_id, stage, amount, currency, original_amount, rate, document_type,
          document_id, document_number, line_id, location_id, budget_date, reason)
        select ${t}, 'spent', ((g % 997) + 1) / 100.0, 'USD', ((g % 997) + 1) / 100.0, 1, 'bill',
          ${firstBill} + (g % 10000), 'B', g, ${location}, date '2026-01-01' + (g % 365), 'billed'
        from generate_series(${entries + 1}::int, ${target}::int) g`.execute(db)
      entries = target
      await sql`analyze ledger_entries`.execute(db)
      for (const group of ['vendor', 'month']) {
        const path = `/?group_by=${group}`
        const a = await get(report, path)
        const b = await get(floor, path)
        const rows = (JSON.parse(a.body) as { data: unknown[] }).data.length
        if (rows !== (JSON.parse(b.body) as { data: unknown[] }).data.length) throw new Error('the floor disagrees')
        const ours: number[] = []
        const raw: number[] = []
        for (let i = 0; i < REQUESTS; i++) {
          ours.push((await get(report, path)).ms)
          raw.push((await get(floor, path)).ms)
        }
        const r = median(ours)
        const f = median(raw)
        console.log(
          `${String(entries).padStart(7)}  ${group.padEnd(7)} ${r.toFixed(1).padStart(10)} ${f.toFixed(1).padStart(9)}  ${(r / f).toFixed(2)}× (${rows} rows)`,
        )
      }
    }
  } finally {
    for (const s of servers) s.close()
    await pool.end()
    await database.close()
    await withAdmin(`DROP DATABASE IF EXISTS ${NAME}`)
  }
}

await main()
