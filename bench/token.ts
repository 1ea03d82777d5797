/**
 * POST /oauth/token (client_credentials, JSON body) against the real server on PostgreSQL (its own process),
 * beside the raw floor in the same run (node:http + the service's SQL, captured, + the same HMAC check and
 * JWT signer). Then the timing side channel: "unknown client" and "wrong secret" requests, one at a time,
 * alternating, against the server; the difference of their medians must stay under 1 ms.
 * `BENCH_BASE=<built checkouts, bench/ copied in>` measures their servers and floors in the same rounds (bench/lib/base.ts).
 * Run: npm run bench -- token   (BENCH_CONNECTIONS=50  BENCH_SECONDS=10  BENCH_RUNS=3  BENCH_TIMING_SAMPLES=2000)
 */
import { findByClientId } from '../src/applications/repository.ts'
import { startBases } from './lib/base.ts'
import { captureRequest, indexOf, statementsOf, writeSpec } from './lib/capture.ts'
import { serveAndWait, serveTo } from './lib/serve.ts'
import { main } from './lib/cleanup.ts'
import { describeMachine, measure, type Measured } from './lib/load.ts'
import { startFloor, startServer } from './lib/process.ts'
import { fmt, median, medians, row, verdict } from './lib/report.ts'
import { request } from './lib/request.ts'
import { apiHeaders, seedTenant } from './lib/seed.ts'
import { BASE_DOMAIN, envNumber, POOL_MAX, RUNS, SECONDS, SECRETS, serverEnv, WARMUP_SECONDS } from './lib/settings.ts'
import { configFor, openRecorded, scratchDatabase, storeEnv, type Store } from './lib/store.ts'

const PATH = '/oauth/token'
const connections = envNumber('BENCH_CONNECTIONS', 50)
const samples = envNumber('BENCH_TIMING_SAMPLES', 2000)

await main(async () => {
  const store: Store = { engine: 'postgres', url: await scratchDatabase('token') }
  const { config, keys } = configFor(store)
  const recorded = await openRecorded(store)
  const tenant = await seedTenant(recorded.database.db, keys, config, 'small', 0)
  const body = (id: string, secret: string) =>
    JSON.stringify({
      client_id: id,
      client_secret: secret,
      audience: config.API_AUDIENCE,
      grant_type: 'client_credentials',
    })
  const valid = body(tenant.clientId, tenant.clientSecret)
  const headers = { host: tenant.host, 'content-type': 'application/json' }

  const [lookup] = await statementsOf(recorded, () => findByClientId(recorded.database.db, tenant.clientId))
  const captured = await captureRequest(recorded, store, { method: 'POST', url: PATH, headers, body: valid })
  await recorded.database.close()
  console.log(`a token request runs ${captured.statements.length} statement(s)`)
  const spec = writeSpec('token', {
    engine: 'postgres',
    url: store.url,
    poolMax: POOL_MAX,
    signingKey: SECRETS.TOKEN_SIGNING_KEY,
    pepper: SECRETS.SECRET_PEPPER,
    issuer: config.TOKEN_ISSUER,
    audience: config.API_AUDIENCE,
    token: {
      statements: captured.statements,
      lookup: indexOf(captured.statements, lookup!, 'client lookup'),
      clientId: tenant.clientId,
    },
  })

  const server = await startServer(
    serverEnv({
      ...storeEnv(store),
      BASE_DOMAIN,
      RATE_LIMIT_PER_MINUTE: '0',
      TOKEN_FAILURES_PER_CLIENT: '1000000000',
      TOKEN_FAILURES_PER_ADDRESS: '1000000000',
    }),
  )
  const floor = await startFloor(spec)

  // Both answer alike, and the floor's token is one the server accepts.
  for (const target of [server, floor]) {
    const r = await request(target.base, { method: 'POST', path: PATH, headers, body: valid })
    const answer = JSON.parse(r.body) as { access_token?: string; scope?: string; token_type?: string }
    if (r.status !== 200 || answer.token_type !== 'Bearer') throw new Error(`${target.name}: ${r.status} ${r.body}`)
    const use = await request(server.base, {
      path: '/api/v3/vendors/',
      headers: { ...apiHeaders(tenant), authorization: `Bearer ${answer.access_token}` },
    })
    if (use.status !== 200) throw new Error(`the server refuses the ${target.name}'s token: ${use.status} ${use.body}`)
  }
  // Serve mode (another build's run with BENCH_BASE naming this checkout): it measures; this waits.
  const served = { headers, body: valid }
  if (serveTo() !== undefined) await serveAndWait([server, floor], served)
  const bases = await startBases<typeof served>('bench/token.ts')
  console.log(`server and floor issue tokens the server accepts; ${describeMachine(connections)}`)

  // Every build's server and floor (each with its own client), in the same rounds.
  const builds = [{ label: 'this build', targets: [server, floor], info: served }, ...bases]
  const targets = builds.flatMap((b) => b.targets.map((target) => ({ target, ...b.info })))
  const one = (t: (typeof targets)[number], seconds: number) =>
    measure(t.target, { path: PATH, method: 'POST', headers: t.headers, body: t.body, connections, seconds }).then(
      (m) => {
        if (m.errors > 0 || m.answered !== m.ok)
          throw new Error(`${t.target.name}: ${m.answered - m.ok} non-2xx, ${m.errors} errors`)
        return m
      },
    )
  for (const t of targets) await one(t, WARMUP_SECONDS)
  const runs: Record<string, Measured[]> = {}
  const ratios = new Map<string, number[]>()
  for (let run = 0; run < RUNS; run++) {
    for (const t of targets) (runs[t.target.name] ??= []).push(await one(t, SECONDS))
    for (const b of builds)
      ratios.set(b.label, [
        ...(ratios.get(b.label) ?? []),
        runs[b.targets[0]!.name]!.at(-1)!.rps / runs[b.targets[1]!.name]!.at(-1)!.rps,
      ])
  }
  const s = medians(runs.server!)
  for (const t of targets) console.log(row(`${t.target.name}, POST /oauth/token`, medians(runs[t.target.name]!)))
  for (const b of builds)
    console.log(
      `INFO  ${b.label}: server/floor ${fmt((medians(runs[b.targets[0]!.name]!).rps / medians(runs[b.targets[1]!.name]!).rps) * 100, 1)} % of medians; median of the runs' ratios ${fmt(median(ratios.get(b.label)!) * 100, 1)} % (${ratios
        .get(b.label)!
        .map((r) => fmt(r * 100, 1))
        .join(', ')})`,
    )
  verdict(`server ${fmt(s.rps)} tokens/s (target ≥ 3,000)`, s.rps >= 3000)
  for (const b of bases) {
    const ours = median(ratios.get('this build')!)
    const theirs = median(ratios.get(b.label)!)
    verdict(
      `this build's ratio ${fmt(ours * 100, 1)} % vs ${b.label} ${fmt(theirs * 100, 1)} % (no slower)`,
      ours >= theirs * 0.98,
    )
  }

  // Side channel: one request at a time, alternating, so both kinds see the same conditions.
  const timeOne = async (payload: string) => {
    const r = await request(server.base, { method: 'POST', path: PATH, headers, body: payload })
    if (r.status !== 401) throw new Error(`expected 401, got ${r.status}: ${r.body}`)
    return r.ms
  }
  for (let i = 0; i < 200; i++) await timeOne(body('pc_warmup', 'x'))
  const unknown: number[] = []
  const wrong: number[] = []
  const deadline = Date.now() + 120_000
  for (let i = 0; i < samples && Date.now() < deadline; i++) {
    unknown.push(await timeOne(body(`pc_unknown${i % 50}`, 'wrong-secret-value')))
    wrong.push(await timeOne(body(tenant.clientId, 'wrong-secret-value')))
  }
  const difference = Math.abs(median(unknown) - median(wrong))
  console.log(
    `median unknown client ${fmt(median(unknown), 3)} ms, wrong secret ${fmt(median(wrong), 3)} ms (${unknown.length} each, sequential)`,
  )
  verdict(`timing difference ${fmt(difference, 3)} ms (target < 1 ms)`, difference < 1)
  await server.stop()
  await floor.stop()
})
