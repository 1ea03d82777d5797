/**
 * Batch user creation: one 1,000-user POST /api/v3/users/ per run against the real server (its own process,
 * `node bin/procurement.cjs serve`), sent over HTTP from this process: the embedded engine (a scratch
 * DATA_DIR), then PostgreSQL (a scratch database). Reports the time per batch, from sending the request to
 * the last byte of the answer, over BENCH_RUNS runs (10; each a fresh set of e-mails), beside a baseline:
 * the same request with one bad item, which validates all 1,000 and writes nothing — the difference is the
 * cost of writing. One request at a time, so it needs no load generator.
 * Run: npm run bench -- users-batch   (PostgreSQL: a scratch database on BENCH_DATABASE_URL's server)
 */
import os from 'node:os'
import { vacuumAnalyze } from '../src/db/maintenance.ts'
import { main, scratchDir } from './lib/cleanup.ts'
import { awaitQuiet } from './lib/machine.ts'
import { startServer, type Running } from './lib/process.ts'
import { median } from './lib/report.ts'
import { request } from './lib/request.ts'
import { apiHeaders, seedTenant } from './lib/seed.ts'
import { BASE_DOMAIN, envNumber, serverEnv } from './lib/settings.ts'
import { configFor, openRecorded, scratchDatabase, storeEnv, type Store } from './lib/store.ts'

const runs = envNumber('BENCH_RUNS', 10)
const PATH = '/api/v3/users/'

async function measure(engine: 'pglite' | 'postgres') {
  const store: Store =
    engine === 'postgres' ? { engine, url: await scratchDatabase('users') } : { engine, dataDir: scratchDir('users') }
  // The data is made before the server starts (the embedded server locks its data directory): the database
  // built and migrated by the server's own start-up code, the sample tenant with an application and a token.
  const { config, keys } = configFor(store)
  const recorded = await openRecorded(store)
  const { db } = recorded.database
  const tenant = await seedTenant(db, keys, config, 'bench', 0)
  const role = await db
    .selectFrom('roles')
    .select('id')
    .where('tenant_id', '=', tenant.id)
    .where('name', '=', 'Buyer')
    .executeTakeFirstOrThrow()
  const location = await db
    .selectFrom('locations')
    .select('id')
    .where('tenant_id', '=', tenant.id)
    .orderBy('id')
    .executeTakeFirstOrThrow()
  await recorded.database.close()

  const env = serverEnv({
    ...storeEnv(store),
    BASE_DOMAIN,
    DEMO_SEED: 'false',
    RATE_LIMIT_PER_MINUTE: process.env.BENCH_RATE_LIMIT ?? '1000000000',
  })
  const headers = { ...apiHeaders(tenant), 'content-type': 'application/json' }
  const batch = (run: number) =>
    Array.from({ length: 1000 }, (_, i) => ({
      email: `u${run}-${i}@bench.example.com`,
      first_name: `U${i}`,
      role_id: role.id,
      home_location: location.id,
      locations: [location.id],
    }))
  const post = async (server: Running, users: object[], expected: number) => {
    const body = JSON.stringify(users)
    const r = await request(server.base, { method: 'POST', path: PATH, headers, body })
    if (r.status !== expected) throw new Error(`expected ${expected}, got ${r.status}: ${r.body.slice(0, 400)}`)
    return r.ms
  }
  const withOneBad = (run: number) => {
    const bad = batch(run)
    bad[999] = { ...bad[999]!, role_id: 999999 }
    return bad
  }
  const userCount = async (server: Running) => {
    const r = await request(server.base, { path: `${PATH}?page_size=1`, headers: apiHeaders(tenant) })
    if (r.status !== 200) throw new Error(`user list: ${r.status}: ${r.body.slice(0, 400)}`)
    return (JSON.parse(r.body) as { metadata: { pagination: { count: number } } }).metadata.pagination.count
  }

  let server = await startServer(env)
  // One batch, then VACUUM (ANALYZE), as autovacuum would soon after it on PostgreSQL and the server's
  // maintenance round does on the embedded engine (a minute after start, then every 10 minutes): otherwise
  // every batch runs on the statistics of an empty table. The server is stopped for it, since the embedded
  // one holds its data directory, and started again.
  await post(server, batch(-1), 201)
  await server.stop()
  const again = await openRecorded(store)
  await vacuumAnalyze(again.database)
  await again.database.close()
  server = await startServer(env)
  // The restarted server's first requests compile validators and warm its code paths: not measured.
  await post(server, withOneBad(-3), 400)
  await post(server, batch(-2), 201)

  const before = await userCount(server)
  await awaitQuiet()
  const created: number[] = []
  const rejected: number[] = []
  for (let run = 0; run < runs; run++) {
    rejected.push(await post(server, withOneBad(1000 + run), 400))
    created.push(await post(server, batch(run), 201))
  }
  // All or nothing: the baseline's batches wrote no user.
  const grown = (await userCount(server)) - before
  if (grown !== runs * 1000)
    throw new Error(`the tenant's users grew by ${grown}, not by the ${runs * 1000} of the accepted batches`)
  await server.stop()
  console.log(
    `${engine.padEnd(8)} 1,000-user batch: median ${median(created).toFixed(0)} ms (min ${Math.min(...created).toFixed(0)}, max ${Math.max(...created).toFixed(0)}); ` +
      `validate-only baseline ${median(rejected).toFixed(0)} ms; writing costs ${(median(created) / median(rejected)).toFixed(1)}× the validation`,
  )
}

await main(async () => {
  console.log(
    `${runs} runs each, node ${process.version}, ${os.cpus().length} cpus; the server in its own process, requests over HTTP`,
  )
  await measure('pglite')
  await measure('postgres')
})
