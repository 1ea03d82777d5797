/**
 * Token endpoint benchmark, against a real listening server on a fresh embedded database (or PostgreSQL
 * with BENCH_DATABASE_URL):
 *  1. throughput: autocannon POSTs to /oauth/token, beside a raw baseline (GET /healthz on the same server),
 *     so the result is also a ratio that means something on any machine;
 *  2. timing side channel: alternating "unknown client" and "wrong secret" requests, one at a time, and the
 *     difference of their median latencies (must stay under 1 ms).
 * Run: npm run bench -- token   (BENCH_SECONDS=10 by default)
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import autocannon from 'autocannon'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { openPglite } from '../src/db/database.ts'
import { migrateToLatest } from '../src/db/migrate.ts'
import { serverKeys } from '../src/keys.ts'
import { insertWithCredentials as createApplication } from '../src/applications/service.ts'
import { createSampleTenant } from '../src/seed/demo.ts'
import { scratchPostgres } from './scratch-db.ts'

const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'procurement-bench-'))
const url = process.env.BENCH_DATABASE_URL
const config = loadConfig({
  DATA_DIR: dir,
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent',
  TOKEN_FAILURES_PER_CLIENT: '1000000000',
  TOKEN_FAILURES_PER_ADDRESS: '1000000000',
  ...(url ? { DATABASE_URL: url, TOKEN_SIGNING_KEY: 'k'.repeat(40), SECRET_PEPPER: 'p'.repeat(40) } : {}),
})
const database = url ? await scratchPostgres(url) : await openPglite()
await migrateToLatest(database.db)
const keys = serverKeys(config)
const domain = `bench${Date.now()}`
const tenantId = await database.db.transaction().execute((tx) => createSampleTenant(tx, domain, 'Bench'))
const admin = await database.db
  .selectFrom('users')
  .select('id')
  .where('tenant_id', '=', tenantId)
  .where('email', '=', 'admin@example.com')
  .executeTakeFirstOrThrow()
const creds = await createApplication(database.db, keys.pepper, { tenantId, userId: admin.id })
const app = await buildApp({ config, database, keys })
await app.listen({ port: 0, host: '127.0.0.1' })
const address = app.server.address()
const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`

const body = (id: string, secret: string) =>
  JSON.stringify({
    client_id: id,
    client_secret: secret,
    audience: config.API_AUDIENCE,
    grant_type: 'client_credentials',
  })

async function cannon(title: string, options: autocannon.Options) {
  const result = await autocannon({ connections: 10, duration: seconds, ...options })
  const ok = result['2xx']
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${title}: ${result.non2xx} non-2xx answers, ${result.errors} errors`)
  console.log(
    `${title.padEnd(28)} ${result.requests.average.toFixed(0).padStart(7)} req/s   p50 ${result.latency.p50} ms   p99 ${result.latency.p99} ms   2xx ${ok}   non-2xx ${result.non2xx}`,
  )
  return result.requests.average
}

console.log(
  `engine: ${database.engine}, ${seconds}s per run, 10 connections, node ${process.version}, ${os.cpus().length} cpus`,
)
const baseline = await cannon('baseline GET /healthz', { url: `${base}/healthz` })
const tokens = await cannon('POST /oauth/token (valid)', {
  url: `${base}/oauth/token`,
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: body(creds.client_id, creds.client_secret),
})
console.log(
  `token requests per second: ${tokens.toFixed(0)} (${((tokens / baseline) * 100).toFixed(1)}% of the raw baseline)`,
)

// Side channel: one request at a time, alternating, so both kinds see the same conditions.
const samples = Number(process.env.BENCH_TIMING_SAMPLES ?? 2000)
const unknown: number[] = []
const wrong: number[] = []
async function timeOne(payload: string): Promise<number> {
  const start = process.hrtime.bigint()
  const response = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: payload,
  })
  await response.arrayBuffer()
  if (response.status !== 401) throw new Error(`expected 401, got ${response.status}`)
  return Number(process.hrtime.bigint() - start) / 1e6
}
for (let i = 0; i < 200; i++) await timeOne(body('pc_warmup', 'x')) // warm-up
for (let i = 0; i < samples; i++) {
  unknown.push(await timeOne(body(`pc_unknown${i % 50}`, 'wrong-secret-value')))
  wrong.push(await timeOne(body(creds.client_id, 'wrong-secret-value')))
}
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}
const difference = Math.abs(median(unknown) - median(wrong))
console.log(
  `median unknown client ${median(unknown).toFixed(3)} ms, wrong secret ${median(wrong).toFixed(3)} ms, difference ${difference.toFixed(3)} ms (${samples} each)`,
)
console.log(difference < 1 ? 'timing: OK (difference under 1 ms)' : 'timing: FAIL (difference of 1 ms or more)')

await app.close()
await database.close()
fs.rmSync(dir, { recursive: true, force: true })
if (difference >= 1) process.exitCode = 1
