/**
 * Memory of the real server (its own process; with WORKERS, the sum over its workers), PostgreSQL and the
 * embedded engine, each in turn:
 * - idle after use (the target): BENCH_STARTS starts (default 5), each serving 1,000 requests (vendor list,
 *   profile, token — from a generator in another process) and then left idle BENCH_IDLE_SECONDS; the median
 *   of the RSS read then;
 * - growth: one more start, RSS sampled every BENCH_SAMPLE_SECONDS under a sustained vendor-list load
 *   (BENCH_SOAK_SECONDS, 0 skips it; BENCH_SOAK_CONNECTIONS); the median of the last fifth of the soak
 *   against the median of the fifth after warm-up (which ends at a fifth of the soak, at most 60 s).
 * Run: npm run bench -- memory   (BENCH_STARTS=5  BENCH_SOAK_SECONDS=600  BENCH_ENGINES=postgres,pglite
 *   BENCH_MEMORY_DETAIL=1 prints where the idle memory is after each start)
 */
import fs from 'node:fs'
import { main, scratchDir } from './lib/cleanup.ts'
import { load } from './lib/load.ts'
import { rssMb } from './lib/machine.ts'
import { startServer } from './lib/process.ts'
import { fmt, median, verdict } from './lib/report.ts'
import { apiHeaders, seedTenant } from './lib/seed.ts'
import { BASE_DOMAIN, envNumber, serverEnv } from './lib/settings.ts'
import { configFor, openRecorded, scratchDatabase, storeEnv, type Store } from './lib/store.ts'

const soak = envNumber('BENCH_SOAK_SECONDS', 600)
const every = envNumber('BENCH_SAMPLE_SECONDS', 5)
// V8 shrinks the heap that start-up grew (compiling schemas, migrations) after about half a minute without
// work: RSS is read just after start and, as "idle", once that has had time to happen. The server's first
// housekeeping round runs 60 s after its start (on the embedded engine a VACUUM, whose compiled code and
// buffers are given back 20 s after it, like a request's): 100 s reads what an idle server settles at.
const idleWait = envNumber('BENCH_IDLE_SECONDS', 100)
const connections = envNumber('BENCH_SOAK_CONNECTIONS', 10)
const starts = envNumber('BENCH_STARTS', 5)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
/** BENCH_MEMORY_DETAIL=1: after each idle reading, where the resident memory is (smaps and V8's spaces). */
const detail = (process.env.BENCH_MEMORY_DETAIL ?? '') !== ''

/** Resident MB of the server's mappings, grouped by what they map; then V8's heap spaces from /metrics. */
async function printWhere(server: { pid: number; base: string }): Promise<void> {
  const groups = new Map<string, number>()
  let name = ''
  for (const line of fs.readFileSync(`/proc/${server.pid}/smaps`, 'utf8').split('\n')) {
    const mapping = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line)
    if (mapping !== null) {
      const path = mapping[1]!
      name = path === '' ? '(anonymous)' : path.startsWith('/') ? path.replace(/^.*\//, '') : path
      continue
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line)
    if (rss !== null) groups.set(name, (groups.get(name) ?? 0) + Number(rss[1]) / 1024)
  }
  const top = [...groups].sort((a, b) => b[1] - a[1]).slice(0, 8)
  console.log(`  resident by mapping: ${top.map(([n, mb]) => `${n} ${fmt(mb, 1)}`).join(', ')} MB`)
  const text = await (await fetch(`${server.base}/metrics`)).text()
  const spaces = [...text.matchAll(/^nodejs_heap_space_size_(total|used)_bytes\{space="(\w+)"\} (\d+)/gm)]
  const bySpace = new Map<string, { total: number; used: number }>()
  for (const [, kind, space, bytes] of spaces) {
    const entry = bySpace.get(space!) ?? { total: 0, used: 0 }
    entry[kind as 'total' | 'used'] = Number(bytes) / 2 ** 20
    bySpace.set(space!, entry)
  }
  const external = /^nodejs_external_memory_bytes (\d+)/m.exec(text)?.[1]
  console.log(
    `  V8 spaces (committed/used MB): ${[...bySpace].map(([n, v]) => `${n} ${fmt(v.total, 1)}/${fmt(v.used, 1)}`).join(', ')}; external ${fmt(Number(external ?? 0) / 2 ** 20, 1)} MB`,
  )
}

/** The issue's targets for idle RSS after 1,000 requests. */
const IDLE_TARGET_MB = { postgres: 100, pglite: 150 } as const

/** One start: 1,000 requests (three kinds, in turn), then idle; the RSS then. */
async function idleAfterUse(store: Store, tenant: Awaited<ReturnType<typeof seedTenant>>): Promise<number> {
  const server = await startServer(
    serverEnv({ ...storeEnv(store), BASE_DOMAIN, RATE_LIMIT_PER_MINUTE: process.env.BENCH_RATE_LIMIT ?? '1000000000' }),
  )
  try {
    for (const path of ['/api/v3/vendors/', '/api/v3/users/me/', '/api/v3/locations/']) {
      const amount = path === '/api/v3/vendors/' ? 334 : 333
      const result = await load({
        url: `${server.base}${path}`,
        headers: apiHeaders(tenant),
        connections,
        seconds: 60,
        amount,
      })
      if (result.answered !== result.ok) throw new Error(`${path}: ${result.answered - result.ok} non-2xx`)
      // On a busy machine a request can time out in the generator; the server still served the rest.
      if (result.errors > 0) console.log(`(${path}: ${result.errors} requests timed out or failed in the generator)`)
    }
    await sleep(idleWait * 1000)
    const rss = rssMb(server.pid)
    if (detail) await printWhere(server)
    return rss
  } finally {
    await server.stop()
  }
}

async function bench(engine: 'postgres' | 'pglite') {
  console.log(`\n### ${engine === 'postgres' ? 'PostgreSQL' : 'embedded (PGlite)'}`)
  const store: Store =
    engine === 'postgres' ? { engine, url: await scratchDatabase('memory') } : { engine, dataDir: scratchDir('memory') }
  const { config, keys } = configFor(store)
  const seeded = await openRecorded(store)
  const tenant = await seedTenant(seeded.database.db, keys, config, 'small', 10_000)
  await seeded.database.close()

  const idles: number[] = []
  for (let i = 0; i < starts; i++) idles.push(await idleAfterUse(store, tenant))
  const idleAfter = median(idles)
  console.log(
    `idle RSS after 1,000 requests and ${idleWait} s: median ${fmt(idleAfter)} MB of ${starts} starts (${idles.map((mb) => fmt(mb)).join(', ')})`,
  )
  verdict(
    `idle RSS after 1,000 requests ${fmt(idleAfter)} MB (target ≤ ${IDLE_TARGET_MB[engine]} MB)`,
    idleAfter <= IDLE_TARGET_MB[engine],
  )
  if (soak === 0) return

  const server = await startServer(
    serverEnv({ ...storeEnv(store), BASE_DOMAIN, RATE_LIMIT_PER_MINUTE: process.env.BENCH_RATE_LIMIT ?? '1000000000' }),
  )
  await sleep(5000)
  console.log(`RSS just after start ${fmt(rssMb(server.pid))} MB (5 s after /readyz, no request yet)`)
  await sleep(Math.max(0, idleWait - 5) * 1000)
  const idle = rssMb(server.pid)
  console.log(`idle RSS ${fmt(idle)} MB (${idleWait} s after /readyz, no request yet)`)

  const samples: { at: number; mb: number }[] = []
  const begin = performance.now()
  const running = load({
    url: `${server.base}/api/v3/vendors/`,
    headers: apiHeaders(tenant),
    connections,
    seconds: soak,
  })
  let done = false
  void running.then(
    () => (done = true),
    () => (done = true),
  )
  while (!done && performance.now() - begin < (soak + 60) * 1000) {
    await Promise.race([sleep(every * 1000), running.catch(() => undefined)])
    if (!done) samples.push({ at: (performance.now() - begin) / 1000, mb: rssMb(server.pid) })
  }
  const result = await running
  await server.stop()
  if (result.errors > 0 || result.answered !== result.ok)
    throw new Error(`${result.answered - result.ok} non-2xx, ${result.errors} errors under load`)
  // RSS saws up and down with garbage collection: compare medians of windows, not single samples.
  const warmAt = Math.min(60, soak / 5)
  const window = Math.max(every, soak / 5)
  const after = samples.filter((s) => s.at >= warmAt && s.at < warmAt + window).map((s) => s.mb)
  const last = samples.filter((s) => s.at > samples.at(-1)!.at - window).map((s) => s.mb)
  if (after.length === 0 || last.length === 0) throw new Error('too few RSS samples: lengthen BENCH_SOAK_SECONDS')
  const [warm, end] = [median(after), median(last)]
  const peak = Math.max(...samples.map((s) => s.mb))
  const growth = (end / warm - 1) * 100
  console.log(
    `under load (${connections} connections, ${soak} s, ${fmt(result.rps)} req/s): RSS after warm-up ${fmt(warm)} MB (median of ${fmt(warmAt)}–${fmt(warmAt + window)} s), end ${fmt(end)} MB (median of the last ${fmt(window)} s), peak ${fmt(peak)} MB`,
  )
  console.log(`samples (s: MB): ${samples.map((s) => `${fmt(s.at)}: ${fmt(s.mb)}`).join(', ')}`)
  console.log(`(idle RSS of this start before any request: ${fmt(idle)} MB)`)
  verdict(`RSS growth end vs after warm-up ${fmt(growth, 1)} % (target < 10 %)`, growth < 10)
}

await main(async () => {
  for (const engine of (process.env.BENCH_ENGINES ?? 'postgres,pglite').split(',')) {
    if (engine !== 'postgres' && engine !== 'pglite')
      throw new Error(`BENCH_ENGINES: postgres or pglite, not ${engine}`)
    await bench(engine)
  }
})
