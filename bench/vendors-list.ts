/**
 * List scalability: page 1 of an unfiltered vendor list for a tenant with 10,000 vendors and for one with
 * 1,000,000 (DECISIONS: within 2× — so `count` must not scan). Also a filtered page (which must count its
 * matches) and the raw baseline (GET /healthz on the same server), so the numbers read as ratios.
 * Run: npm run bench -- vendors-list   (BENCH_DATABASE_URL=postgres://… for PostgreSQL; BENCH_BIG=1000000)
 */
import os from 'node:os'
import autocannon from 'autocannon'
import { sql } from 'kysely'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { openPglite } from '../src/db/database.ts'
import { migrateToLatest } from '../src/db/migrate.ts'
import type { ServerKeys } from '../src/keys.ts'
import { insertWithCredentials as createApplication } from '../src/applications/service.ts'
import { signAccessToken } from '../src/oauth/tokens.ts'
import { createSampleTenant } from '../src/seed/demo.ts'
import { scratchPostgres } from './scratch-db.ts'

const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const big = Number(process.env.BENCH_BIG ?? 1_000_000)
const small = Number(process.env.BENCH_SMALL ?? 10_000)
const url = process.env.BENCH_DATABASE_URL
const config = loadConfig({
  LOG_LEVEL: 'silent',
  ...(url ? { DATABASE_URL: url, TOKEN_SIGNING_KEY: 'k'.repeat(40), SECRET_PEPPER: 'p'.repeat(40) } : {}),
})
const keys: ServerKeys = { signingKey: new Uint8Array(32).fill(7), pepper: Buffer.alloc(32, 9) }
const database = url ? await scratchPostgres(url) : await openPglite()
await migrateToLatest(database.db)

/** A tenant with `n` vendors (bulk-loaded in one statement) and a token for its admin. */
async function tenantWith(n: number, domain: string): Promise<string> {
  const tenantId = await database.db.transaction().execute((tx) => createSampleTenant(tx, domain, domain))
  const started = Date.now()
  await database.db.transaction().execute(async (tx) => {
    await sql`INSERT INTO vendors (tenant_id, name, external_id, active, type)
      SELECT ${tenantId}, 'Vendor ' || g, 'X-' || g, g % 10 <> 0, 3 + g % 2 FROM generate_series(1, ${n - 28}) g`.execute(
      tx,
    )
  })
  await sql`ANALYZE vendors`.execute(database.db)
  console.log(`loaded ${n} vendors for ${domain} in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  const admin = await database.db
    .selectFrom('users')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('email', '=', 'admin@example.com')
    .executeTakeFirstOrThrow()
  const app = await createApplication(database.db, keys.pepper, { tenantId, userId: admin.id })
  const client = await database.db
    .selectFrom('applications')
    .select(['id', 'secret_version'])
    .where('client_id', '=', app.client_id)
    .executeTakeFirstOrThrow()
  return (
    await signAccessToken(keys, config, {
      tenantId,
      domain,
      userId: admin.id,
      applicationId: client.id,
      clientId: app.client_id,
      secretVersion: client.secret_version,
    })
  ).token
}

const smallToken = await tenantWith(small, 'small')
const bigToken = await tenantWith(big, 'big')
const app = await buildApp({ config, database, keys })
await app.listen({ port: 0, host: '127.0.0.1' })
const address = app.server.address()
const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`

async function cannon(title: string, path: string, token?: string) {
  const headers = token ? { authorization: `Bearer ${token}`, 'x-service-client': 'api' } : {}
  const r = await autocannon({ url: `${base}${path}`, headers, connections: 10, duration: seconds })
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${title}: ${r.non2xx} non-2xx, ${r.errors} errors`)
  console.log(
    `${title.padEnd(44)} ${r.requests.average.toFixed(0).padStart(7)} req/s   p50 ${r.latency.p50} ms   p99 ${r.latency.p99} ms`,
  )
  return r
}

console.log(
  `engine: ${database.engine}, ${seconds}s per run, 10 connections, node ${process.version}, ${os.cpus().length} cpus`,
)
const baseline = await cannon('baseline GET /healthz', '/healthz')
const s = await cannon(`page 1, unfiltered, ${small} vendors`, '/api/v3/vendors/', smallToken)
const b = await cannon(`page 1, unfiltered, ${big} vendors`, '/api/v3/vendors/', bigToken)
await cannon(`page 1, active=true, ${small} vendors`, '/api/v3/vendors/?active=true', smallToken)
await cannon(`page 1, active=true, ${big} vendors`, '/api/v3/vendors/?active=true', bigToken)
const ratio = s.requests.average / b.requests.average
console.log(
  `unfiltered page 1: ${big} vendors take ${ratio.toFixed(2)}× the time of ${small} (limit 2×); ${((s.requests.average / baseline.requests.average) * 100).toFixed(1)}% of the raw baseline`,
)
console.log(ratio <= 2 ? 'scalability: OK' : 'scalability: FAIL')
await app.close()
await database.close()
if (ratio > 2) process.exitCode = 1
