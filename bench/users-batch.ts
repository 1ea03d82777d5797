/**
 * Batch user creation: POST /api/v3/users/ with 1,000 users, end to end through HTTP, on the embedded
 * database and (with BENCH_DATABASE_URL) on PostgreSQL. Reports the time per batch over BENCH_RUNS runs
 * (each a fresh set of e-mails), beside a baseline: the same request with one bad item, which validates
 * all 1,000 and writes nothing — the difference is the cost of writing. In-process (app.inject): this one
 * measures the service's batch path, not HTTP, so it needs no separate server or load generator.
 * Run: npm run bench -- users-batch   (PostgreSQL: a scratch database on BENCH_DATABASE_URL's server)
 */
import os from 'node:os'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { openPglite, type Database } from '../src/db/database.ts'
import { vacuumAnalyze } from '../src/db/maintenance.ts'
import { migrateToLatest } from '../src/db/migrate.ts'
import type { ServerKeys } from '../src/keys.ts'
import { insertWithCredentials as createApplication } from '../src/applications/service.ts'
import { signAccessToken } from '../src/oauth/tokens.ts'
import { createSampleTenant } from '../src/seed/demo.ts'
import { main, scratchPostgres } from './lib.ts'

const runs = Number(process.env.BENCH_RUNS ?? 10)
const keys: ServerKeys = { signingKey: new Uint8Array(32).fill(7), pepper: Buffer.alloc(32, 9) }

async function measure(database: Database) {
  const config = loadConfig({ LOG_LEVEL: 'silent' })
  await migrateToLatest(database.db)
  const tenantId = await database.db.transaction().execute((tx) => createSampleTenant(tx, 'bench', 'Bench'))
  const admin = await database.db
    .selectFrom('users')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('email', '=', 'admin@example.com')
    .executeTakeFirstOrThrow()
  const role = await database.db
    .selectFrom('roles')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('name', '=', 'Buyer')
    .executeTakeFirstOrThrow()
  const location = await database.db
    .selectFrom('locations')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .orderBy('id')
    .executeTakeFirstOrThrow()
  const application = await createApplication(database.db, keys.pepper, { tenantId, userId: admin.id })
  const appRow = await database.db
    .selectFrom('applications')
    .select(['id', 'secret_version'])
    .where('client_id', '=', application.client_id)
    .executeTakeFirstOrThrow()
  const { token } = await signAccessToken(keys, config, {
    tenantId,
    domain: 'bench',
    userId: admin.id,
    applicationId: appRow.id,
    clientId: application.client_id,
    secretVersion: appRow.secret_version,
  })
  const app = await buildApp({ config, database, keys })
  const batch = (run: number) =>
    Array.from({ length: 1000 }, (_, i) => ({
      email: `u${run}-${i}@bench.example.com`,
      first_name: `U${i}`,
      role_id: role.id,
      home_location: location.id,
      locations: [location.id],
    }))
  const post = async (payload: object[]) => {
    const start = process.hrtime.bigint()
    const response = await app.inject({
      method: 'POST',
      url: '/api/v3/users/',
      payload,
      headers: { authorization: `Bearer ${token}`, 'x-service-client': 'api' },
    })
    return { ms: Number(process.hrtime.bigint() - start) / 1e6, status: response.statusCode }
  }
  // As autovacuum would soon after the first batch on PostgreSQL, and the service's maintenance timer does
  // on the embedded engine: otherwise every batch runs on the statistics of an empty table.
  await post(batch(-1))
  await vacuumAnalyze(database)
  const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!
  const created: number[] = []
  const rejected: number[] = []
  for (let run = 0; run < runs; run++) {
    const bad = batch(1000 + run)
    bad[999] = { ...bad[999]!, role_id: 999999 }
    const r = await post(bad)
    if (r.status !== 400) throw new Error(`baseline expected 400, got ${r.status}`)
    rejected.push(r.ms)
    const c = await post(batch(run))
    if (c.status !== 201) throw new Error(`expected 201, got ${c.status}`)
    created.push(c.ms)
  }
  console.log(
    `${database.engine.padEnd(8)} 1,000-user batch: median ${median(created).toFixed(0)} ms (min ${Math.min(...created).toFixed(0)}, max ${Math.max(...created).toFixed(0)}); ` +
      `validate-only baseline ${median(rejected).toFixed(0)} ms; writing costs ${(median(created) / median(rejected)).toFixed(1)}× the validation`,
  )
  await app.close()
  await database.close()
}

await main(async () => {
  console.log(`${runs} runs each, node ${process.version}, ${os.cpus().length} cpus`)
  await measure(await openPglite())
  await measure(await scratchPostgres('users'))
})
