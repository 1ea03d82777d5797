/**
 * Start to /readyz of the real `procurement serve` process, as `npm start` runs it (compiled when dist/ is
 * current): the embedded engine's first start (it builds the database) and its restarts, and PostgreSQL
 * (a scratch database; its first, migrating start is left out of the median). The server's CPU time (user +
 * system) until then is shown too — on a shared machine it varies far less than the wall time — and its RSS;
 * idle RSS and its growth under load are bench/memory.ts's.
 * Run: npm run bench -- startup   (BENCH_ROUNDS=3; BENCH_DATABASE_URL is the admin connection)
 */
import {
  cpuMs,
  envNumber,
  fmt,
  main,
  median,
  rssMb,
  scratchDatabase,
  scratchDir,
  serverEnv,
  startServer,
  verdict,
} from './lib.ts'

const rounds = envNumber('BENCH_ROUNDS', 3)

interface Start {
  ms: number
  cpu: number
  mb: number
}

async function start(env: Record<string, string>): Promise<Start> {
  const server = await startServer(env)
  // Read at once: the server is idle from /readyz on, so its CPU time stays what start-up took.
  const cpu = cpuMs(server.pid)
  const mb = rssMb(server.pid)
  await server.stop()
  return { ms: server.readyMs, cpu, mb }
}

function report(name: string, runs: Start[], targetMs: number) {
  const ms = median(runs.map((r) => r.ms))
  verdict(
    `${name}: start to /readyz ${fmt(ms)} ms (median of ${runs.length}; target ≤ ${fmt(targetMs)} ms), CPU ${fmt(median(runs.map((r) => r.cpu)))} ms, RSS then ${fmt(median(runs.map((r) => r.mb)))} MB`,
    ms <= targetMs,
  )
}

await main(async () => {
  // Single-tenant, as a fresh install runs (the embedded engine seeds its demo tenant on the first start).
  const embedded = serverEnv({ DATA_DIR: scratchDir('startup') })
  delete embedded.TOKEN_SIGNING_KEY
  delete embedded.SECRET_PEPPER
  report('embedded, first start', [await start(embedded)], 8000)
  const restarts = []
  for (let i = 0; i < rounds; i++) restarts.push(await start(embedded))
  report('embedded, restart', restarts, 1500)

  const postgres = serverEnv({ DATABASE_URL: await scratchDatabase('startup') })
  await start(postgres)
  const runs = []
  for (let i = 0; i < rounds; i++) runs.push(await start(postgres))
  report('PostgreSQL (after the first, migrating start)', runs, 1000)
})
