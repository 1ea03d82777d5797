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
 * machine it varies far less than the wall time). Where the machine lets this process make a memory control
 * group (cgroup v1's memory controller, or v2's with the controller enabled; root), one more first start runs
 * inside a group limited to 512 MB of memory and swap together, as a small container is: it must answer
 * /readyz, the sign-in page and the API, and the group must record no OOM kill.
 * `BENCH_BASE=<another checkout, built>` also starts that checkout's server the same way, in the same rounds.
 * Run: npm run build && npm run bench -- startup   (BENCH_DATABASE_URL is the admin connection)
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { main, onCleanup, scratchDir } from './lib/cleanup.ts'
import { cpuMs, peakRssMb } from './lib/machine.ts'
import { startScript, startServer, startServerAt, startServerInGroup, type Running } from './lib/process.ts'
import { fmt, median, verdict } from './lib/report.ts'
import { envNumber, ROOT, serverEnv } from './lib/settings.ts'
import { scratchDatabase } from './lib/store.ts'

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

/** The container's limit (`BENCH_CONTAINER_MB`: a lower one shows that the group's limit is enforced). */
const CONTAINER_LIMIT_MB = envNumber('BENCH_CONTAINER_MB', 512)

/** A memory control group of this run's own, limited to `mb` of memory and swap together; or why there is none. */
interface MemoryGroup {
  /** The file a process writes its pid to, to join. */
  procs: string
  /** How the group's limit is set, for the report. */
  kind: string
  /** The group's peak usage in MB (page cache included), where the kernel keeps it. */
  peakMb(): number | undefined
  /** OOM kills in the group so far. */
  oomKills(): number
  remove(): void
}

function memoryGroup(mb: number): MemoryGroup | string {
  const bytes = String(mb * 1024 * 1024)
  const read = (file: string) => fs.readFileSync(file, 'utf8')
  const v1 = '/sys/fs/cgroup/memory'
  const v2 = '/sys/fs/cgroup'
  try {
    if (fs.existsSync(path.join(v1, 'memory.limit_in_bytes'))) {
      const dir = path.join(v1, `procurement-bench-${process.pid}`)
      fs.mkdirSync(dir)
      fs.writeFileSync(path.join(dir, 'memory.limit_in_bytes'), bytes)
      const swap = path.join(dir, 'memory.memsw.limit_in_bytes')
      if (fs.existsSync(swap)) fs.writeFileSync(swap, bytes)
      return {
        procs: path.join(dir, 'tasks'),
        kind: fs.existsSync(swap) ? 'cgroup v1, memory and swap' : 'cgroup v1, memory (no swap accounting)',
        peakMb: () => Number(read(path.join(dir, 'memory.max_usage_in_bytes'))) / 1024 / 1024,
        oomKills: () => Number(/^oom_kill (\d+)/m.exec(read(path.join(dir, 'memory.oom_control')))?.[1] ?? 0),
        remove: () => fs.rmdirSync(dir),
      }
    }
    if (read(path.join(v2, 'cgroup.controllers')).split(/\s+/).includes('memory')) {
      const dir = path.join(v2, `procurement-bench-${process.pid}`)
      fs.mkdirSync(dir)
      fs.writeFileSync(path.join(dir, 'memory.max'), bytes)
      fs.writeFileSync(path.join(dir, 'memory.swap.max'), '0')
      return {
        procs: path.join(dir, 'cgroup.procs'),
        kind: 'cgroup v2, memory.max and no swap',
        peakMb: () =>
          fs.existsSync(path.join(dir, 'memory.peak'))
            ? Number(read(path.join(dir, 'memory.peak'))) / 1024 / 1024
            : undefined,
        oomKills: () => Number(/^oom_kill (\d+)/m.exec(read(path.join(dir, 'memory.events')))?.[1] ?? 0),
        remove: () => fs.rmdirSync(dir),
      }
    }
    return 'no memory controller here (neither cgroup v1 memory nor v2 with the memory controller)'
  } catch (error) {
    return `no memory control group could be made (${(error as Error).message})`
  }
}

/** A first start inside a 512 MB group (`BENCH_CONTAINER_MB`): ready, then asked for the sign-in page and the API, still alive, no OOM kill. */
async function firstStartInGroup(): Promise<void> {
  const group = memoryGroup(CONTAINER_LIMIT_MB)
  if (typeof group === 'string') {
    console.log(`      not measured: a first start under a ${CONTAINER_LIMIT_MB} MB memory limit: ${group}`)
    return
  }
  onCleanup(() => group.remove())
  const embedded = serverEnv({ DATA_DIR: scratchDir('startup-512') })
  delete embedded.TOKEN_SIGNING_KEY
  delete embedded.SECRET_PEPPER
  let running: Running
  try {
    running = await startServerInGroup(group.procs, embedded, `server in a ${CONTAINER_LIMIT_MB} MB group`)
  } catch (error) {
    const why = (error as Error).message.split('\n')[0]
    verdict(
      `embedded, first start under a ${CONTAINER_LIMIT_MB} MB limit (${group.kind}): ${why}; OOM kills ${group.oomKills()}`,
      false,
    )
    return
  }
  const peak = peakRssMb(running.pid)
  const answers = await Promise.all(
    ['/readyz', '/console/sign-in', '/api/v3/vendors/'].map((p) =>
      fetch(`${running.base}${p}`, { headers: { 'x-service-client': 'api' } }).then(
        async (r) => (await r.arrayBuffer(), r.status),
        () => 0,
      ),
    ),
  )
  const alive = (() => {
    try {
      process.kill(running.pid, 0)
      return true
    } catch {
      return false
    }
  })()
  await running.stop()
  const kills = group.oomKills()
  const groupPeak = group.peakMb()
  verdict(
    `embedded, first start under a ${CONTAINER_LIMIT_MB} MB limit (${group.kind}): ready in ${fmt(running.readyMs)} ms, ` +
      `VmHWM ${fmt(peak)} MB, the group's peak ${groupPeak === undefined ? 'not kept' : `${fmt(groupPeak)} MB`} ` +
      `(page cache included), /readyz, sign-in and the API answered ${answers.join(', ')}, ` +
      `${alive ? 'still running' : 'gone'} after them, OOM kills ${kills}`,
    alive && kills === 0 && answers[0] === 200 && answers[1] === 200 && answers[2] === 401,
  )
}

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
  await firstStartInGroup()
  if (base === undefined) return
  console.log(`base, ${base}:`)
  ratio('  embedded, first start', runs.baseFirst!, pgliteFloor, 3)
  ratio('  embedded, restart', runs.baseRestart!, pgliteFloor, 1.5)
  ratio('  PostgreSQL', runs.basePostgres!, postgresFloor, 2)
})
