/**
 * Issue #48 on PostgreSQL, each part beside its raw floor in the same run (bench/floor/server.ts replaying the
 * SQL the service ran for the same request, captured by the harness):
 * - **submit**: `POST /api/v3/requests/{id}/submit/` of a 50-line (BENCH_LINES) draft request that matches 10
 *   (BENCH_BUDGETS) active budgets — its location, department and account, or "every" — so the submit plans
 *   the ledger, locks and reads the 10 budgets, and writes 50 entries and their totals in its transaction.
 *   Every request submits a draft of its own, cloned with SQL from a template made through the API; afterwards
 *   the requests submitted must be exactly the 2xx answers, and one submit per target is checked in the
 *   database (approved, one committed entry per line). Target: server ≥ 0.5 × the floor's rate.
 * - **figures**: `GET /api/v3/budgets/{id}/` (one budget with its computed figures) after BENCH_ENTRIES
 *   (1,000,000) ledger entries were inserted with generate_series (and their kept totals rebuilt from them),
 *   one request at a time (BENCH_SEQUENTIAL, 20, after one unmeasured request), server and floor alternating,
 *   and then under load (BENCH_CONNECTIONS, 10; BENCH_SECONDS, BENCH_RUNS). Target: server ≤ 2 × the floor's
 *   time (one at a time).
 * Run: npm run bench -- budgets   (BENCH_BUDGETS_PARTS=submit,figures  BENCH_P2P_REQUESTS=300
 * BENCH_P2P_CONNECTIONS=8  BENCH_ENTRIES=1000000  BENCH_SEQUENTIAL=20; a smoke run: BENCH_P2P_REQUESTS=20
 * BENCH_RUNS=1 BENCH_ENTRIES=10000 BENCH_SECONDS=2 BENCH_WARMUP_SECONDS=1)
 */
import { isDeepStrictEqual } from 'node:util'
import { sql } from 'kysely'
import { findBudget } from '../src/budgets/repository.ts'
import { publicBase } from '../src/http/public-url.ts'
import { captureRequest, indexOf, statementsOf, writeSpec } from './lib/capture.ts'
import { main } from './lib/cleanup.ts'
import { describeMachine, measure, type Measured } from './lib/load.ts'
import { startFloor, startServer } from './lib/process.ts'
import { fmt, median, medians, row, verdict } from './lib/report.ts'
import { request } from './lib/request.ts'
import { apiHeaders } from './lib/seed.ts'
import { BASE_DOMAIN, envNumber, POOL_MAX, RUNS, SECONDS, SECRETS, serverEnv, WARMUP_SECONDS } from './lib/settings.ts'
import { configFor, storeEnv } from './lib/store.ts'
import {
  basics,
  captureFresh,
  cloneChildren,
  cloneRows,
  freshNeeded,
  header,
  LINES,
  onPrepared,
  report,
  runBench,
  secondsSince,
  type Fresh,
  type P2P,
} from './p2p/harness.ts'

const parts = (process.env.BENCH_BUDGETS_PARTS ?? 'submit,figures').split(',')
const BUDGETS = envNumber('BENCH_BUDGETS', 10)
const ENTRIES = envNumber('BENCH_ENTRIES', 1_000_000)
const SEQUENTIAL = envNumber('BENCH_SEQUENTIAL', 20)
const connections = envNumber('BENCH_CONNECTIONS', 10)

/** This year, as budgets' periods (UTC). */
const year = new Date().getUTCFullYear()
const PERIOD = { period_start: `${year}-01-01`, period_end: `${year}-12-31` }

/** An account made through the API, the location's first department (null when it has none). */
async function places(p: P2P, code: string) {
  const { vendor, location } = await basics(p)
  const account = (await p.api('POST', '/api/v3/accounts/', { code, name: `Bench ${code}` })).data.id as number
  const department =
    (
      await p.db
        .selectFrom('departments')
        .select('id')
        .where('tenant_id', '=', p.tenant.id)
        .where('location_id', '=', location)
        .orderBy('id')
        .executeTakeFirst()
    )?.id ?? null
  return { vendor, location, account, department }
}

async function submit(p: P2P) {
  const { vendor, location, account, department } = await places(p, 'BENCH-1')
  // Budgets that all match the request: its location or every, its department or every, its account or every;
  // big enough that no submit takes one below zero (every submit then does the same work). The sample
  // tenant's own budgets are made inactive, so exactly these are checked.
  await sql`update budgets set active = false where tenant_id = ${p.tenant.id}`.execute(p.db)
  for (let i = 0; i < BUDGETS; i++)
    await p.api('POST', '/api/v3/budgets/', {
      name: `Bench budget ${i + 1}`,
      location: i % 2 === 0 ? location : null,
      department: department !== null && i % 3 === 0 && i % 2 === 0 ? department : null,
      account: i % 5 < 3 ? account : null,
      ...PERIOD,
      amount: '1000000000.00',
      action: i % 4 === 3 ? 'approve' : i % 4 === 2 ? 'block' : 'warn',
      ...(i % 4 === 3 ? { owner: await adminProfile(p) } : {}),
    })
  const make = async (lines: { quantity: string; unit_price: string }[]) =>
    (
      await p.api('POST', '/api/v3/requests/', {
        location,
        department,
        lines: lines.map((l, i) => ({ description: `Item ${i + 1}`, vendor, account, ...l })),
      })
    ).data as { id: number }
  // Something counted already, of an amount no line of the benchmark's has (the floor learns values by them).
  const earlier = await make([{ quantity: '1', unit_price: '1234.56' }])
  await p.api('POST', `/api/v3/requests/${earlier.id}/submit/`)
  const template = (await make(Array.from({ length: LINES }, () => ({ quantity: '2', unit_price: '5' })))).id
  const n = freshNeeded(RUNS)
  const started = performance.now()
  const drafts = await cloneRows(p.db, 'purchase_requests', p.tenant.id, template, n, { uuid: 'gen_random_uuid()' })
  const lines = await cloneChildren(p.db, 'request_lines', 'request_id', p.tenant.id, template, drafts)
  await sql`analyze`.execute(p.db)
  console.log(
    `submit: ${fmt(n)} ${LINES}-line draft requests cloned in ${secondsSince(started)} s; ${BUDGETS} budgets match each`,
  )
  const uuids = new Map(
    (
      await p.db
        .selectFrom('purchase_requests')
        .select(['id', 'uuid'])
        .where('tenant_id', '=', p.tenant.id)
        .where('id', 'in', drafts)
        .execute()
    ).map((r) => [r.id, r.uuid]),
  )
  const requestFor = (i: number) => ({ method: 'POST' as const, path: `/api/v3/requests/${drafts[i]}/submit/` })
  const captured = await captureFresh(p, requestFor(0), requestFor(1))
  const budgetReads = captured.statements.filter((s) => /from "budgets"/i.test(s.sql)).length
  if (budgetReads === 0) throw new Error('the submit no longer reads the budgets; the benchmark measures nothing')
  const locked = captured.statements.find((s) => /from "budgets"/i.test(s.sql) && /for update/i.test(s.sql))
  if (locked?.rows?.length !== BUDGETS)
    throw new Error(`the submit locked ${locked?.rows?.length ?? 0} budgets, not the ${BUDGETS} that match it`)
  const fresh: Fresh[] = drafts.slice(2).map((id, k) => {
    const i = k + 2
    return {
      key: String(id),
      request: requestFor(i),
      pairs: [
        [drafts[1], id],
        [`#${drafts[1]}`, `#${id}`],
        [uuids.get(drafts[1]!), uuids.get(id)],
        ...lines[1]!.map((l, j): [unknown, unknown] => [l, lines[i]![j]]),
      ],
    }
  })
  console.log(`a submit runs ${captured.statements.length} statements (${budgetReads} of them on budgets)`)
  const r = await runBench(
    p,
    {
      label: 'budgets-submit',
      path: '/api/v3/requests/(\\d+)/submit/',
      status: 200,
      captured,
      fresh,
      written: async () =>
        Number(
          (
            await sql<{ n: string }>`select count(*) as n from purchase_requests
              where tenant_id = ${p.tenant.id} and status <> 'draft'`.execute(p.db)
          ).rows[0]!.n,
        ),
      async check(f) {
        const id = Number(f.key)
        const row = await sql<{ status: string; entries: string; amount: string }>`select r.status,
            (select count(*) from ledger_entries e where e.tenant_id = r.tenant_id and e.document_type = 'request'
              and e.document_id = r.id and e.stage = 'committed') as entries,
            (select coalesce(sum(e.amount), 0)::text from ledger_entries e where e.tenant_id = r.tenant_id
              and e.document_type = 'request' and e.document_id = r.id) as amount
            from purchase_requests r where r.tenant_id = ${p.tenant.id} and r.id = ${id}`.execute(p.db)
        const { status, entries, amount } = row.rows[0]!
        if (status !== 'approved' || Number(entries) !== LINES || Number(amount) !== LINES * 10)
          throw new Error(`request ${id}: ${status}, ${entries} committed entries, ${amount} counted`)
      },
    },
    RUNS,
  )
  report(`POST /api/v3/requests/{id}/submit/ (${LINES} lines, ${BUDGETS} budgets)`, r)
}

const adminProfile = async (p: P2P) =>
  (
    await p.db
      .selectFrom('user_profiles')
      .select('id')
      .where('tenant_id', '=', p.tenant.id)
      .where('user_id', '=', p.tenant.adminId)
      .executeTakeFirstOrThrow()
  ).id

/**
 * ENTRIES ledger entries straight into ledger_entries (10,000 per statement): this year's dates, the tenant's
 * locations, the first location's departments (and none), five accounts (and none), the three stages (each cycling at its own pace, so that one budget matches some of each); then
 * the kept totals rebuilt from them, as the service would have kept them.
 */
async function seedEntries(p: P2P, accounts: number[]) {
  const t = p.tenant.id
  const locations = (
    await p.db.selectFrom('locations').select('id').where('tenant_id', '=', t).orderBy('id').execute()
  ).map((r) => r.id)
  const departments = [
    0,
    ...(
      await p.db
        .selectFrom('departments')
        .select('id')
        .where('tenant_id', '=', t)
        .where('location_id', '=', locations[0]!)
        .execute()
    ).map((r) => r.id),
  ]
  const places = [0, ...accounts]
  const started = performance.now()
  for (let from = 1; from <= ENTRIES; from += 10_000) {
    const to = Math.min(ENTRIES, from + 9_999)
    await sql`insert into ledger_entries (tenant_id, stage, amount, currency, original_amount, rate, document_type,
        document_id, document_number, line_id, location_id, department_id, account_id, budget_date, reason)
      select ${t}, (array['pending', 'committed', 'spent'])[1 + (g / 5) % 3], ((g % 997) + 1) / 100.0, 'USD',
        ((g % 997) + 1) / 100.0, 1, 'bill', 1 + g / 50, 'B-' || (1 + g / 50), g,
        (${locations}::int[])[1 + g % ${locations.length}],
        nullif((${departments}::int[])[1 + (g / 7) % ${departments.length}], 0),
        nullif((${places}::int[])[1 + (g / 11) % ${places.length}], 0),
        ${PERIOD.period_start}::date + (g % 365), 'billed'
      from generate_series(${from}::int, ${to}::int) g`.execute(p.db)
  }
  await sql`delete from ledger_totals where tenant_id = ${t}`.execute(p.db)
  await sql`insert into ledger_totals (tenant_id, budget_date, location_id, department_id, account_id, stage, amount)
    select tenant_id, budget_date, location_id, coalesce(department_id, 0), coalesce(account_id, 0), stage, sum(amount)
    from ledger_entries where tenant_id = ${t}
    group by tenant_id, budget_date, location_id, coalesce(department_id, 0), coalesce(account_id, 0), stage`.execute(
    p.db,
  )
  await sql`vacuum analyze ledger_entries`.execute(p.db)
  await sql`vacuum analyze ledger_totals`.execute(p.db)
  const totals = (
    await sql<{ n: string }>`select count(*) as n from ledger_totals where tenant_id = ${t}`.execute(p.db)
  ).rows[0]!.n
  console.log(
    `figures: ${fmt(ENTRIES)} ledger entries (${fmt(Number(totals))} kept totals) inserted in ${secondsSince(started)} s`,
  )
}

async function figures(p: P2P) {
  const { location, account, department } = await places(p, 'BENCH-2')
  const others = []
  for (const code of ['BENCH-3', 'BENCH-4', 'BENCH-5', 'BENCH-6']) others.push((await places(p, code)).account)
  const budget = (
    await p.api('POST', '/api/v3/budgets/', {
      name: 'Bench figures',
      location,
      department,
      account,
      ...PERIOD,
      amount: '50000000.00',
      action: 'warn',
    })
  ).data.id as number
  await seedEntries(p, [account, ...others])
  const path = `/api/v3/budgets/${budget}/`
  const headers = apiHeaders(p.tenant)
  const { config } = configFor(p.store)
  const [wanted] = await statementsOf(p.recorded, () => findBudget(p.db, p.tenant.id, budget))
  const captured = await captureRequest(p.recorded, p.store, { method: 'GET', url: path, headers })
  const page = indexOf(captured.statements, wanted!, 'budget')
  console.log(
    `${path} runs ${captured.statements.length} statement(s):\n${captured.statements.map((s) => `  ${s.sql.replace(/\s+/g, ' ').slice(0, 140)}…`).join('\n')}`,
  )
  const spec = writeSpec('budgets-figures', {
    engine: 'postgres',
    url: (p.store as { url: string }).url,
    poolMax: POOL_MAX,
    signingKey: SECRETS.TOKEN_SIGNING_KEY,
    pepper: SECRETS.SECRET_PEPPER,
    issuer: config.TOKEN_ISSUER,
    audience: config.API_AUDIENCE,
    pages: {
      [path]: {
        [p.tenant.id]: {
          statements: captured.statements,
          page,
          map: 'budget',
          linkBase: publicBase(config, p.tenant.domain) ?? '',
          body: JSON.parse(captured.body) as unknown,
        },
      },
    },
  })
  const server = await startServer(
    serverEnv({
      ...storeEnv(p.store),
      BASE_DOMAIN,
      RATE_LIMIT_PER_MINUTE: process.env.BENCH_RATE_LIMIT ?? '1000000000',
    }),
  )
  const floor = await startFloor(spec)
  const [a, b] = [await request(server.base, { path, headers }), await request(floor.base, { path, headers })]
  if (a.status !== 200 || b.status !== 200)
    throw new Error(`${path}: server ${a.status}, floor ${b.status}: ${a.body.slice(0, 300)} ${b.body.slice(0, 300)}`)
  if (!isDeepStrictEqual(JSON.parse(a.body), JSON.parse(b.body)))
    throw new Error(`${path}: the floor's JSON differs from the server's:\nserver ${a.body}\nfloor  ${b.body}`)
  const shown = (JSON.parse(a.body) as { data: { pending: string; committed: string; spent: string } }).data
  console.log(
    `server and floor give the same budget: pending ${shown.pending}, committed ${shown.committed}, spent ${shown.spent}`,
  )

  // One at a time, alternating (after one unmeasured request each).
  const times = { server: [] as number[], floor: [] as number[] }
  for (let i = 0; i <= SEQUENTIAL; i++)
    for (const target of [server, floor]) {
      const answer = await request(target.base, { path, headers })
      if (answer.status !== 200) throw new Error(`${target.name}: ${answer.status} ${answer.body.slice(0, 300)}`)
      if (i > 0) times[target.name as 'server' | 'floor'].push(answer.ms)
    }
  // Under load, for the rate and CPU per request.
  console.log(describeMachine(connections))
  const one = (target: typeof server, seconds: number) =>
    measure(target, { path, headers, connections, seconds }).then((m) => {
      if (m.errors > 0 || m.answered !== m.ok)
        throw new Error(`${target.name} ${path}: ${m.answered - m.ok} non-2xx, ${m.errors} errors`)
      return m
    })
  for (const target of [server, floor]) await one(target, WARMUP_SECONDS)
  const loaded = { server: [] as Measured[], floor: [] as Measured[] }
  for (let run = 0; run < RUNS; run++)
    for (const target of [server, floor]) loaded[target.name as 'server' | 'floor'].push(await one(target, SECONDS))
  await server.stop()
  await floor.stop()

  const s = median(times.server)
  const f = median(times.floor)
  console.log(row(`server ${path}`, medians(loaded.server)))
  console.log(row(`floor ${path}`, medians(loaded.floor)))
  console.log(
    `one at a time at ${fmt(ENTRIES)} entries: server median ${fmt(s, 2)} ms, floor ${fmt(f, 2)} ms (${SEQUENTIAL} each)`,
  )
  verdict(
    `GET ${path} (figures) at ${fmt(ENTRIES)} ledger entries takes ${fmt(s / f, 2)}× the floor's time (target ≤ 2×; under load ${fmt(medians(loaded.floor).rps / medians(loaded.server).rps, 2)}×)`,
    s / f <= 2,
  )
}

await main(async () => {
  console.log(header())
  for (const part of parts) {
    console.log(`\n### ${part}`)
    const bench = part === 'submit' ? submit : part === 'figures' ? figures : undefined
    if (bench === undefined) throw new Error(`no part ${part}; have submit, figures`)
    await onPrepared(`budgets${part.replace(/\W/g, '')}`, bench)
  }
})
