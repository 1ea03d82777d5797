/**
 * POST /api/v3/vendors/ ({"name":"Bench vendor"}) against the real server on PostgreSQL, at 1 connection and
 * at 32, beside the raw floor (node:http + jose + the service's statements for the same request, captured,
 * in one transaction on one connection). Each run sends a fixed number of requests (about BENCH_SECONDS'
 * worth at the warm-up's rate), so afterwards the tenant's vendor count must have grown by exactly the
 * number of 201s. BENCH_WORKERS is passed to the server as WORKERS (its cluster mode, where it has one).
 * Run: npm run bench -- creates   (BENCH_SECONDS=10  BENCH_RUNS=3  BENCH_CREATE_CONNECTIONS=1,32)
 */
import { isDeepStrictEqual } from 'node:util'
import pg from 'pg'
import { publicBase } from '../src/http/public-url.ts'
import { captureRequest, writeSpec } from './lib/capture.ts'
import { main, onCleanup } from './lib/cleanup.ts'
import { describeMachine, loadGenerator, measure, type Measured } from './lib/load.ts'
import { startFloor, startServer, type Running } from './lib/process.ts'
import { fmt, medians, row, verdict } from './lib/report.ts'
import { request } from './lib/request.ts'
import { apiHeaders, seedTenant } from './lib/seed.ts'
import { BASE_DOMAIN, POOL_MAX, RUNS, SECONDS, SECRETS, serverEnv, WARMUP_SECONDS } from './lib/settings.ts'
import { configFor, openRecorded, scratchDatabase, storeEnv, type Store } from './lib/store.ts'

const PATH = '/api/v3/vendors/'
const BODY = JSON.stringify({ name: 'Bench vendor' })
const levels = (process.env.BENCH_CREATE_CONNECTIONS ?? '1,32').split(',').map(Number)

await main(async () => {
  const store: Store = { engine: 'postgres', url: await scratchDatabase('creates') }
  const { config, keys } = configFor(store)
  const recorded = await openRecorded(store)
  const { db } = recorded.database
  const tenant = await seedTenant(db, keys, config, 'small', 0)
  const headers = { ...apiHeaders(tenant), 'content-type': 'application/json' }
  const captured = await captureRequest(recorded, store, { method: 'POST', url: PATH, headers, body: BODY })
  const capturedId = (JSON.parse(captured.body) as { data: { id: number } }).data.id
  await recorded.database.close()
  const { statements } = captured
  const insert = statements.findIndex((s) => /^insert into "vendors"/i.test(s.sql))
  if (insert < 0) throw new Error('the service no longer inserts into vendors with one statement; see bench/creates.ts')
  // The insert returns the vendor as written (RETURNING *); the floor reads the answer from it too.
  if (!/returning \*$/i.test(statements[insert]!.sql.trim()))
    throw new Error('the vendor insert no longer returns the row; see bench/creates.ts')
  console.log(
    `a create runs ${statements.length} statement(s): ${statements.map((s) => s.sql.split(/\s/)[0]).join(', ')}`,
  )
  const spec = writeSpec('creates', {
    engine: 'postgres',
    url: store.url,
    poolMax: POOL_MAX,
    signingKey: SECRETS.TOKEN_SIGNING_KEY,
    pepper: SECRETS.SECRET_PEPPER,
    issuer: config.TOKEN_ISSUER,
    audience: config.API_AUDIENCE,
    create: {
      tenants: {
        [tenant.id]: {
          statements,
          insert,
          select: insert,
          capturedId,
          linkBase: publicBase(config, tenant.domain) ?? '',
        },
      },
    },
  })

  const server = await startServer(
    serverEnv({ ...storeEnv(store), BASE_DOMAIN, RATE_LIMIT_PER_MINUTE: process.env.BENCH_RATE_LIMIT ?? '1000000000' }),
  )
  const floor = await startFloor(spec)
  const counter = new pg.Client({ connectionString: store.url })
  counter.on('error', () => undefined)
  await counter.connect()
  onCleanup(() => counter.end())
  const count = async () =>
    Number(
      (await counter.query<{ n: string }>('SELECT count(*) AS n FROM vendors WHERE tenant_id = $1', [tenant.id]))
        .rows[0]!.n,
    )

  // The same vendor from both, but for its id and time stamp.
  const answers = []
  for (const target of [server, floor]) {
    const r = await request(target.base, { method: 'POST', path: PATH, headers, body: BODY })
    if (r.status !== 201) throw new Error(`${target.name}: ${r.status} ${r.body}`)
    const { data } = JSON.parse(r.body) as { data: Record<string, unknown> }
    delete data.id
    delete data.dateModified
    answers.push(data)
  }
  if (!isDeepStrictEqual(answers[0], answers[1]))
    throw new Error(`the floor's vendor differs: ${JSON.stringify(answers[0])} vs ${JSON.stringify(answers[1])}`)
  console.log(
    `server and floor create the same vendor; ${describeMachine()}, autocannon for fixed request counts${loadGenerator() === 'wrk' ? ' (wrk has none)' : ''}`,
  )

  const results = new Map<string, Measured[]>()
  let checked = 0
  for (const connections of levels) {
    const amounts = new Map<string, number>()
    for (const target of [server, floor]) {
      const warm = await measure(target, {
        path: PATH,
        method: 'POST',
        headers,
        body: BODY,
        connections,
        seconds: WARMUP_SECONDS,
      })
      amounts.set(target.name, Math.max(100, Math.round(warm.rps * SECONDS)))
    }
    /** The count once no write is still landing (a timed warm-up ends with requests in flight). */
    const settled = async () => {
      for (let last = await count(); ;) {
        await new Promise((resolve) => setTimeout(resolve, 300))
        const now = await count()
        if (now === last) return now
        last = now
      }
    }
    const one = async (target: Running) => {
      const before = await settled()
      const amount = amounts.get(target.name)!
      const m = await measure(target, {
        path: PATH,
        method: 'POST',
        headers,
        body: BODY,
        connections,
        seconds: SECONDS * 6,
        amount,
      })
      const grown = (await count()) - before
      if (m.errors > 0 || m.answered !== m.ok || grown !== m.ok)
        throw new Error(
          `${target.name} at ${connections}: ${m.ok} 201s, ${m.answered - m.ok} other answers, ${m.errors} errors, but ${grown} new vendors`,
        )
      checked += m.ok
      return m
    }
    for (let run = 0; run < RUNS; run++)
      for (const target of [server, floor]) {
        const key = `${target.name} ${connections}`
        results.set(key, [...(results.get(key) ?? []), await one(target)])
      }
  }
  await server.stop()
  await floor.stop()

  const m = (name: string, c: number) => medians(results.get(`${name} ${c}`)!)
  for (const c of levels) {
    console.log(row(`server, ${c} connection(s)`, m('server', c)))
    console.log(row(`floor,  ${c} connection(s)`, m('floor', c)))
  }
  console.log(`PASS  vendor count grew by exactly the number of 201s (${fmt(checked)} creates checked)`)
  const [low, high] = [levels[0]!, levels.at(-1)!]
  if (low !== high) {
    const scale = m('server', high).rps / m('server', low).rps
    verdict(`server ${high} vs ${low} connections: ${fmt(scale, 2)}× (target ≥ 3×)`, scale >= 3)
    verdict(
      `server at ${high} connections: ${fmt(m('server', high).rps)} creates/s (target ≥ 1,000)`,
      m('server', high).rps >= 1000,
    )
    console.log(`INFO  floor ${high} vs ${low} connections: ${fmt(m('floor', high).rps / m('floor', low).rps, 2)}×`)
  }
})
