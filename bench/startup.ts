/**
 * Start to /readyz of the real `procurement serve` process, as `npm start` runs it (compiled when dist/ is
 * current), beside its floors in the same run, round by round (`BENCH_ROUNDS`, default 5):
 * - the embedded engine's first start (a new DATA_DIR each round: the build's database with the demo, copied), with
 *   its peak resident memory (VmHWM of /proc/<pid>/status once it is ready) against the 400 MB limit;
 * - an embedded restart (the first start's DATA_DIR again);
 * - PostgreSQL (a scratch database; its first, migrating start is left out);
 * - the floors: bench/floor/start-pglite.js (node, PGlite opening an existing data directory, `select 1`,
 *   node:http) and bench/floor/start-postgres.js (node, one pg connection, `select 1`, node:http), each
 *   measured the same way, from spawn to the first 200 from its /readyz.
 * Reported as medians and as ratios to the floors: first start ≤ 3× and restart ≤ 1.5× the PGlite floor,
 * PostgreSQL ≤ 2× its floor. The server's CPU time (user + system) until ready is shown too (on a shared
 * machine it varies far less than the wall time). A run under a 512 MB memory limit is not made here: see
 * docs/benchmarks.md (startup) for why, and for how to make one by hand.
 * `BENCH_BASE=<another checkout, built>` also starts that checkout's server the same way, in the same rounds.
 * Run: npm run build && npm run bench -- startup   (BENCH_DATABASE_URL is the admin connection)
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {
  cpuMs,
  envNumber,
  fmt,
  main,
  median,
  peakRssMb,
  ROOT,
  scratchDatabase,
  scratchDir,
  serverEnv,
  startScript,
  startServer,
  startServerAt,
  verdict,
  type Running,
} from './lib.ts'

const rounds = envNumber('BENCH_ROUNDS', 5)
const base = process.env.BENCH_BASE
const PEAK_LIMIT_MB = 400

interface Start {
  ms: number
  cpu: number
  peak: number
}

async function measured(started: Promise<Running>): Promise<Start> {
  const running = await started
  // Read at once: the process is idle from /readyz on, so its CPU time stays what start-up took.
  const result = { ms: running.readyMs, cpu: cpuMs(running.pid), peak: peakRssMb(running.pid) }
  await running.stop()
  return result
}

/** A migrated PGlite data directory for the floor to open: the build's template, copied. */
function pgliteDirForFloor(): string {
  const template = path.join(ROOT, 'dist/embedded-template')
  if (!fs.existsSync(template)) throw new Error('dist/embedded-template is missing: run `npm run build` first')
  const dir = path.join(scratchDir('startup-floor'), 'pgdata')
  fs.cpSync(template, dir, { recursive: true })
  return dir
}

const medianOf = (runs: Start[], key: keyof Start) => median(runs.map((r) => r[key]))

await main(async () => {
  const floorDir = pgliteDirForFloor()
  const postgresUrl = await scratchDatabase('startup')
  const postgres = serverEnv({ DATABASE_URL: postgresUrl })
  await measured(startServer(postgres)) // the first, migrating start
  const runs: Record<string, Start[]> = {
    pgliteFloor: [],
    first: [],
    restart: [],
    postgresFloor: [],
    postgres: [],
    baseFirst: [],
    baseRestart: [],
    basePostgres: [],
  }
  for (let round = 0; round < rounds; round++) {
    // Single-tenant, as a fresh install runs (the embedded engine seeds its demo tenant on the first start).
    const embedded = serverEnv({ DATA_DIR: scratchDir('startup') })
    delete embedded.TOKEN_SIGNING_KEY
    delete embedded.SECRET_PEPPER
    const floorScript = path.join(ROOT, 'bench/floor/start-pglite.js')
    runs.pgliteFloor!.push(await measured(startScript('PGlite floor', floorScript, { DATA_DIR: floorDir })))
    runs.first!.push(await measured(startServer(embedded)))
    runs.restart!.push(await measured(startServer(embedded)))
    const pgFloor = path.join(ROOT, 'bench/floor/start-postgres.js')
    runs.postgresFloor!.push(await measured(startScript('PostgreSQL floor', pgFloor, { DATABASE_URL: postgresUrl })))
    runs.postgres!.push(await measured(startServer(postgres)))
    if (base !== undefined) {
      const baseEmbedded = { ...embedded, DATA_DIR: scratchDir('startup-base') }
      runs.baseFirst!.push(await measured(startServerAt(base, baseEmbedded, 'base server')))
      runs.baseRestart!.push(await measured(startServerAt(base, baseEmbedded, 'base server')))
      runs.basePostgres!.push(await measured(startServerAt(base, postgres, 'base server')))
    }
  }

  const line = (name: string, r: Start[]) =>
    `${name}: ${fmt(medianOf(r, 'ms'))} ms to /readyz, CPU ${fmt(medianOf(r, 'cpu'))} ms, peak RSS ${fmt(medianOf(r, 'peak'))} MB`
  console.log(`${rounds} rounds, medians; load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores`)
  const pgliteFloor = medianOf(runs.pgliteFloor!, 'ms')
  const postgresFloor = medianOf(runs.postgresFloor!, 'ms')
  console.log(`      ${line('floor, PGlite opening an existing directory', runs.pgliteFloor!)}`)
  console.log(`      ${line('floor, node:http + pg connect', runs.postgresFloor!)}`)
  const ratio = (name: string, r: Start[], floor: number, limit: number) => {
    const x = medianOf(r, 'ms') / floor
    verdict(`${line(name, r)}; ${fmt(x, 2)}× its floor (target ≤ ${limit}×)`, x <= limit)
  }
  ratio('embedded, first start (copies the build’s database with the demo in it)', runs.first!, pgliteFloor, 3)
  const peak = medianOf(runs.first!, 'peak')
  verdict(
    `embedded, first start: peak resident memory (VmHWM) ${fmt(peak)} MB, highest ${fmt(Math.max(...runs.first!.map((r) => r.peak)))} MB (target ≤ ${PEAK_LIMIT_MB} MB)`,
    Math.max(...runs.first!.map((r) => r.peak)) <= PEAK_LIMIT_MB,
  )
  ratio('embedded, restart', runs.restart!, pgliteFloor, 1.5)
  ratio('PostgreSQL (after the first, migrating start)', runs.postgres!, postgresFloor, 2)
  if (base === undefined) return
  console.log(`base, ${base}:`)
  ratio('  embedded, first start', runs.baseFirst!, pgliteFloor, 3)
  ratio('  embedded, restart', runs.baseRestart!, pgliteFloor, 1.5)
  ratio('  PostgreSQL', runs.basePostgres!, postgresFloor, 2)
})
