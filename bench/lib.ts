/**
 * What every out-of-process benchmark shares: the real server (`node bin/procurement.cjs serve`) and the raw
 * floor (bench/floor/server.ts) as child processes, the load generator as a third (wrk when on PATH, else
 * autocannon's CLI), CPU time and RSS of a process tree read from /proc, throw-away databases, seed data, and
 * the capture of the SQL the service runs for one request (so the floor replays exactly that).
 * Everything this module starts is stopped again on exit, also on an error or Ctrl-C.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { Kysely, PostgresDialect, sql, type LogEvent } from 'kysely'
import pg from 'pg'
import { insertWithCredentials } from '../src/applications/service.ts'
import { buildApp } from '../src/app.ts'
import { loadConfig, type Config } from '../src/config.ts'
import { pgdataPaths } from '../src/db/data-dir.ts'
import { openDatabase, type Database } from '../src/db/database.ts'
import { everyone, listenPostgres } from '../src/db/listener.ts'
import { pglitePool } from '../src/db/pglite-pool.ts'
import type { DB } from '../src/db/schema.ts'
import { serverKeys, type ServerKeys } from '../src/keys.ts'
import { VENDOR_LOOKUP_TABLES, type VendorLookupTable } from '../src/lookups/repository.ts'
import { signAccessToken } from '../src/oauth/tokens.ts'
import { createSampleTenant } from '../src/seed/demo.ts'
import { prepareDatabase } from '../src/seed/prepare.ts'
import type { FloorSpec, Statement } from './floor/spec.ts'

export type { FloorSpec, Statement } from './floor/spec.ts'

export const ROOT = path.resolve(import.meta.dirname, '..')
const BIN = path.join(ROOT, 'bin/procurement.cjs')
const FLOOR = path.join(ROOT, 'bench/floor/server.ts')

/** A number from the environment, or the default. */
export function envNumber(name: string, fallback: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isFinite(value)) throw new Error(`${name} must be a number, not ${raw}`)
  return value
}

export const SECONDS = envNumber('BENCH_SECONDS', 10)
export const RUNS = envNumber('BENCH_RUNS', 3)
export const WARMUP_SECONDS = envNumber('BENCH_WARMUP_SECONDS', 3)
/** The admin connection: scratch databases are made on its server. */
export const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
export const POOL_MAX = envNumber('BENCH_POOL_MAX', 10)
/** The secrets both the server and the floor get (with PostgreSQL the server insists on them). */
export const SECRETS = {
  TOKEN_SIGNING_KEY: 'bench-token-signing-key-0123456789abcdef',
  SECRET_PEPPER: 'bench-secret-pepper-0123456789abcdef0123',
}
/** Multi-tenant mode, so one database can hold tenants of different sizes: `<domain>.bench.test` is a tenant. */
export const BASE_DOMAIN = 'bench.test'

// ---------------------------------------------------------------------------------------------------------
// Clean-up: whatever is registered runs once, in reverse order, at the end, on an error and on a signal.

const cleanups: (() => Promise<void> | void)[] = []
const children = new Set<ChildProcess>()
export function onCleanup(fn: () => Promise<void> | void): void {
  // Something started while cleaning up (the benchmark body runs on after a signal) is undone at once.
  if (cleaning !== undefined) void cleaning.then(fn)
  else cleanups.push(fn)
}

let cleaning: Promise<void> | undefined
/** One clean-up for everyone who asks (the end of `main` and a signal may both): each step runs once, in order. */
function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    while (cleanups.length > 0) {
      try {
        await cleanups.pop()!()
      } catch (error) {
        console.error(`clean-up: ${(error as Error).message}`)
      }
    }
  })()
  return cleaning
}
// Last resort (e.g. process.exit elsewhere): no child outlives this process.
process.on('exit', () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
})
// A stop often arrives twice (from the process group and forwarded by bench/run.ts): the second must not cut
// the clean-up short, which takes at most the server's 15 s to stop and a DROP DATABASE.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (cleaning !== undefined) return
    console.error(`\n${signal}: stopping`)
    void cleanUp().finally(() => process.exit(130))
  })
}

/** Runs a benchmark's body, then cleans up; a thrown error is printed and makes the exit status 1. */
export async function main(body: () => Promise<void>): Promise<void> {
  try {
    await body()
  } catch (error) {
    // After a signal the body fails against stopped processes: that is no news.
    if (cleaning === undefined) console.error(error instanceof Error ? (error.stack ?? error.message) : error)
    process.exitCode = 1
  } finally {
    await cleanUp()
  }
}

// ---------------------------------------------------------------------------------------------------------
// Processes.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export interface Running {
  readonly name: string
  readonly pid: number
  readonly base: string
  /** Milliseconds from spawn to the first 200 from /readyz. */
  readonly readyMs: number
  /** The last few kilobytes the process wrote. */
  output(): string
  /** SIGTERM, then SIGKILL after 15 s; resolves when it has exited. */
  stop(): Promise<void>
}

/** Spawns `args` under this node, waits for "listening on http://…" and then a 200 from /readyz. */
async function startProcess(
  name: string,
  args: string[],
  env: Record<string, string>,
  command = process.execPath,
): Promise<Running> {
  const begin = performance.now()
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.tmpdir(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.add(child)
  let out = ''
  const keep = (chunk: Buffer) => {
    out += chunk.toString()
    if (out.length > 16384) out = out.slice(-8192)
  }
  child.stdout.on('data', keep)
  child.stderr.on('data', keep)
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  void exited.then(() => children.delete(child))
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
    await exited
    clearTimeout(timer)
  }
  onCleanup(stop)
  const deadline = Date.now() + envNumber('BENCH_START_TIMEOUT_SECONDS', 120) * 1000
  const fail = (why: string) => new Error(`${name} ${why}:\n${out.trim()}`)
  let base: string | undefined
  while (base === undefined) {
    base = /listening on (http:\/\/\S+)/.exec(out)?.[1]
    if (child.exitCode !== null) throw fail(`exited with ${child.exitCode}`)
    if (Date.now() > deadline) throw fail('did not start in time')
    if (base === undefined) await sleep(5)
  }
  for (;;) {
    const ready = await fetch(`${base}/readyz`).then(
      async (r) => (await r.arrayBuffer(), r.status === 200),
      () => false,
    )
    if (ready) break
    if (child.exitCode !== null) throw fail(`exited with ${child.exitCode}`)
    if (Date.now() > deadline) throw fail('was not ready in time')
    await sleep(5)
  }
  return { name, pid: child.pid!, base, readyMs: performance.now() - begin, output: () => out, stop }
}

/** The settings every benchmark server gets on top of the caller's (see docs/benchmarks.md). */
export function serverEnv(extra: Record<string, string>): Record<string, string> {
  const passed: Record<string, string> = {}
  // The cluster mode, where the server has it; ignored by one that does not.
  if (process.env.BENCH_WORKERS !== undefined) passed.WORKERS = process.env.BENCH_WORKERS
  // Node's own options for the server only (say, --heapsnapshot-signal=SIGUSR2 to look inside it).
  if (process.env.BENCH_NODE_OPTIONS !== undefined) passed.NODE_OPTIONS = process.env.BENCH_NODE_OPTIONS
  return {
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    DATABASE_POOL_MAX: String(POOL_MAX),
    ...SECRETS,
    ...passed,
    ...extra,
  }
}

/** bin/procurement.cjs's own test: dist/procurement.js is used when it is at least as new as every file under src/. */
function compiledIsFresh(): boolean {
  const newest = (dir: string): number =>
    Math.max(
      0,
      ...fs.readdirSync(dir, { withFileTypes: true }).map((e) => {
        const p = path.join(dir, e.name)
        return e.isDirectory() ? newest(p) : fs.statSync(p).mtimeMs
      }),
    )
  try {
    return fs.statSync(path.join(ROOT, 'dist/procurement.js')).mtimeMs >= newest(path.join(ROOT, 'src'))
  } catch {
    return false
  }
}

let warned = false
function warnIfStale(): void {
  if (!warned && !compiledIsFresh()) {
    warned = true
    console.log('WARNING: dist/ is older than src/, so the server runs through tsx: run `npm run build` first')
  }
}

/** The real server, as `npm start` runs it (the compiled dist/ when it is current). */
export function startServer(env: Record<string, string>, name = 'server'): Promise<Running> {
  warnIfStale()
  // E.g. BENCH_SERVER_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof': the server profiled under the load.
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean)
  return startProcess(name, [...nodeArgs, BIN, 'serve'], env)
}

/**
 * The real server as `startServer` starts it, but inside the control group whose `cgroup.procs` (or, cgroup
 * v1, `tasks`) file is `procs`: a shell writes its own pid there, then becomes node (the same pid), so the
 * server and everything it starts are in the group from their first instruction.
 */
export function startServerInGroup(procs: string, env: Record<string, string>, name = 'server'): Promise<Running> {
  warnIfStale()
  const script = 'echo $$ > "$1" && shift && exec "$@"'
  return startProcess(name, ['-c', script, 'sh', procs, process.execPath, BIN, 'serve'], env, '/bin/sh')
}

/** A checkout's command: bin/procurement.cjs, or bin/procurement.js in a checkout from before it was CommonJS. */
export function commandOf(root: string): string {
  const current = path.join(root, 'bin/procurement.cjs')
  return fs.existsSync(current) ? current : path.join(root, 'bin/procurement.js')
}

/** The server of another checkout of this project (its own command), e.g. an earlier commit's. */
export const startServerAt = (root: string, env: Record<string, string>, name: string): Promise<Running> =>
  startProcess(name, [commandOf(root), 'serve'], env)

/**
 * The operator's command, `node bin/procurement.cjs <args>` (the compiled dist/ when it is current), with only
 * `env` (as the server gets it, e.g. `serverEnv(…)`), to set data up the way an operator does; what it
 * printed on stdout. It must finish within `limitSeconds` and exit with 0. On the embedded engine it cannot
 * run while a server holds the same DATA_DIR.
 */
export async function runCli(args: string[], env: Record<string, string>, limitSeconds = 120): Promise<string> {
  warnIfStale()
  const clean = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.tmpdir(), ...env }
  const { stdout } = await runChild(process.execPath, [BIN, ...args], limitSeconds, clean, false)
  return stdout
}

/** A plain JavaScript file under plain node, started like the server (e.g. bench/floor/start-pglite.js). */
export const startScript = (name: string, file: string, env: Record<string, string>) => startProcess(name, [file], env)

/** The raw floor (bench/floor/server.ts) for the spec written to `specFile`. */
export const startFloor = (specFile: string) =>
  startProcess('floor', ['--import', 'tsx', FLOOR, specFile], { NODE_ENV: 'production' })

/** The process and its descendants (a cluster's workers), from /proc. */
function tree(pid: number): number[] {
  const parents = new Map<number, number[]>()
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)])
    } catch {
      // gone meanwhile
    }
  }
  const all = [pid]
  for (let i = 0; i < all.length; i++) all.push(...(parents.get(all[i]!) ?? []))
  return all
}

const TICK_MS = 1000 / Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim() || 100)

/** User + system CPU time of the process and its descendants, in milliseconds (resolution: one clock tick). */
export function cpuMs(pid: number): number {
  let ticks = 0
  for (const p of tree(pid)) {
    try {
      const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      ticks += Number(fields[11]) + Number(fields[12]) // utime, stime (fields 14 and 15 of stat)
    } catch {
      // gone meanwhile
    }
  }
  return ticks * TICK_MS
}

/** The peak resident set size of one process so far (VmHWM), in MB. */
export function peakRssMb(pid: number): number {
  return Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024
}

/** Resident set size of the process and its descendants, in MB. */
export function rssMb(pid: number): number {
  let kb = 0
  for (const p of tree(pid)) {
    try {
      kb += Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0)
    } catch {
      // gone meanwhile
    }
  }
  return kb / 1024
}

// ---------------------------------------------------------------------------------------------------------
// Load: a generator in its own process.

export interface Load {
  url: string
  method?: 'GET' | 'POST'
  headers?: Record<string, string>
  body?: string
  connections: number
  seconds: number
  /** autocannon only: send exactly this many requests (then `seconds` is only the time limit). */
  amount?: number
}

export interface LoadResult {
  /** Answers with a 2xx status, and all answers. */
  ok: number
  answered: number
  /** Requests sent; with a duration, sent − answered were in flight when the generator stopped. */
  sent: number
  seconds: number
  rps: number
  p50: number
  p99: number
  errors: number
}

const GENERATOR =
  process.env.BENCH_LOADGEN ?? (spawnSync('sh', ['-c', 'command -v wrk']).status === 0 ? 'wrk' : 'autocannon')

export const loadGenerator = (): string => GENERATOR

/** Runs the generator as a child process and parses its report; throws on a generator failure. */
export async function load(options: Load): Promise<LoadResult> {
  if (!new URL(options.url).hostname.startsWith('127.')) throw new Error(`not a loopback address: ${options.url}`)
  if (GENERATOR === 'wrk' && options.amount === undefined) return wrk(options)
  const args = [
    path.join(ROOT, 'node_modules/autocannon/autocannon.js'),
    '--json',
    '-n',
    // Seconds before an unanswered request counts as an error (autocannon's default, 10, unless set).
    '-t',
    String(envNumber('BENCH_REQUEST_TIMEOUT_SECONDS', 10)),
    '-c',
    String(options.connections),
    ...(options.amount !== undefined ? ['-a', String(options.amount)] : ['-d', String(options.seconds)]),
    '-m',
    options.method ?? 'GET',
    ...Object.entries(options.headers ?? {}).flatMap(([k, v]) => ['-H', `${k}=${v}`]),
    ...(options.body !== undefined ? ['-b', options.body] : []),
    options.url,
  ]
  const { stdout, stderr } = await runChild(process.execPath, args, options.seconds + 60)
  let r: {
    duration: number
    errors: number
    timeouts: number
    '2xx': number
    non2xx: number
    latency: { p50: number; p99: number }
    requests: { total: number; sent: number }
  }
  try {
    r = JSON.parse(stdout) as typeof r
  } catch {
    throw new Error(`autocannon printed no report: ${stderr.trim() || stdout.trim()}`)
  }
  return {
    ok: r['2xx'],
    answered: r['2xx'] + r.non2xx,
    sent: r.requests.sent,
    seconds: r.duration,
    rps: r['2xx'] / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts,
  }
}

const WRK_SCRIPT = `
local method, body, headers = os.getenv("WRK_METHOD"), os.getenv("WRK_BODY"), os.getenv("WRK_HEADERS")
wrk.method = method
if body ~= "" then wrk.body = body end
for line in headers:gmatch("[^\\n]+") do
  local k, v = line:match("^([^=]+)=(.*)$")
  -- wrk sends its own "Host"; a lower-case key would be a second Host header (refused with 400).
  if k:lower() == "host" then k = "Host" end
  wrk.headers[k] = v
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRK {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"errors":%d,"status":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect + e.read + e.write + e.timeout, e.status))
end
`

/**
 * wrk, one thread per core, with a Lua script for the request and a JSON last line. wrk counts answers of
 * 400 and above as status errors; so here every answer below 400 is taken as a success.
 */
let wrkScript: string | undefined
async function wrk(options: Load): Promise<LoadResult> {
  wrkScript ??= path.join(scratchDir('wrk'), 'request.lua')
  fs.writeFileSync(wrkScript, WRK_SCRIPT)
  const script = wrkScript
  const threads = Math.min(options.connections, 2)
  const { stdout } = await runChild(
    'wrk',
    ['-t', String(threads), '-c', String(options.connections), '-d', `${options.seconds}s`, '-s', script, options.url],
    options.seconds + 60,
    {
      WRK_METHOD: options.method ?? 'GET',
      WRK_BODY: options.body ?? '',
      WRK_HEADERS: Object.entries(options.headers ?? {})
        .map(([k, v]) => `${k}=${v}`)
        .join('\n'),
    },
  )
  const line = /^WRK (\{.*\})$/m.exec(stdout)?.[1]
  if (line === undefined) throw new Error(`wrk printed no report: ${stdout}`)
  const r = JSON.parse(line) as Record<'requests' | 'duration_us' | 'p50_us' | 'p99_us' | 'errors' | 'status', number>
  const seconds = r.duration_us / 1e6
  const ok = r.requests - r.status
  return {
    ok,
    answered: r.requests,
    sent: r.requests,
    seconds,
    rps: ok / seconds,
    p50: r.p50_us / 1000,
    p99: r.p99_us / 1000,
    errors: r.errors,
  }
}

/**
 * A child that must finish within `limitSeconds` (killed otherwise); resolves with what it printed. Its
 * environment is this process's with `env` on top, or (`inherit` false) `env` alone.
 */
export function runChild(
  command: string,
  args: string[],
  limitSeconds: number,
  env: Record<string, string> = {},
  inherit = true,
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: inherit ? { ...process.env, ...env } : env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    children.add(child)
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
    child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-8192)))
    const timer = setTimeout(() => child.kill('SIGKILL'), limitSeconds * 1000)
    child.once('error', reject)
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      children.delete(child)
      if (code === 0) resolve({ stdout, stderr })
      else reject(new Error(`${command} failed (${signal ?? code}): ${stderr.trim()}`))
    })
  })
}

/**
 * How busy the machine is, to tell what others did during a run: all CPU time (/proc/stat), this process with
 * its descendants (the reaped ones count in cutime/cstime), and PostgreSQL's processes (the server's load).
 */
export interface Snapshot {
  at: number
  busy: number
  ours: number
  postgres: Map<number, number>
}

export function snapshot(): Snapshot {
  const [user, nice, system, , , irq, softirq, steal] = fs
    .readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]!
    .split(/\s+/)
    .slice(1)
    .map(Number)
  const busy = (user! + nice! + system! + irq! + softirq! + steal!) * TICK_MS
  let ours = 0
  const postgres = new Map<number, number>()
  const mine = new Set(tree(process.pid))
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8')
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
      const f = stat
        .slice(stat.lastIndexOf(')') + 2)
        .split(' ')
        .map(Number)
      const own = (f[11]! + f[12]!) * TICK_MS
      if (mine.has(Number(entry))) ours += own + (f[13]! + f[14]!) * TICK_MS
      else if (comm === 'postgres') postgres.set(Number(entry), own)
    } catch {
      // gone meanwhile
    }
  }
  return { at: performance.now(), busy, ours, postgres }
}

/** The share of the machine (all cores) that neither this benchmark nor PostgreSQL used between a and b, in %. */
export function othersShare(a: Snapshot, b: Snapshot): number {
  let postgres = 0
  for (const [pid, ms] of b.postgres) postgres += ms - (a.postgres.get(pid) ?? 0)
  const others = b.busy - a.busy - (b.ours - a.ours) - postgres
  return Math.max(0, (others / ((b.at - a.at) * os.cpus().length)) * 100)
}

export interface Measured extends LoadResult {
  /** CPU time the measured process spent per 2xx answer, in ms. */
  cpuPerRequest: number
  /** What other processes on the machine used meanwhile, in % of all cores (see othersShare). */
  othersPct: number
}

/**
 * Waits (at most BENCH_QUIET_WAIT_SECONDS, default 60) until other processes use less than BENCH_QUIET_PCT
 * (default 10) % of the machine over a second: on a shared machine, a run then starts in a quiet moment.
 */
export async function awaitQuiet(): Promise<void> {
  const limit = envNumber('BENCH_QUIET_PCT', 10)
  const deadline = Date.now() + envNumber('BENCH_QUIET_WAIT_SECONDS', 60) * 1000
  for (;;) {
    const a = snapshot()
    await sleep(1000)
    const share = othersShare(a, snapshot())
    if (share < limit) return
    if (Date.now() > deadline) {
      console.log(`(the machine stayed busy: other processes used ${fmt(share)} % of it; measuring anyway)`)
      return
    }
  }
}

/** One load against `target`, with the CPU time `target` spent meanwhile. */
export async function measure(target: Running, options: Omit<Load, 'url'> & { path: string }): Promise<Measured> {
  await awaitQuiet()
  const start = snapshot()
  const before = cpuMs(target.pid)
  const result = await load({ ...options, url: `${target.base}${options.path}` })
  const cpu = cpuMs(target.pid) - before
  const othersPct = othersShare(start, snapshot())
  return { ...result, cpuPerRequest: cpu / Math.max(1, result.ok), othersPct }
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
onCleanup(() => agent.destroy())

/** One request over a kept-alive connection (node:http, so any Host header can be sent); with its time in ms. */
export function request(
  base: string,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint()
    const req = http.request(
      `${base}${options.path}`,
      { method: options.method ?? 'GET', headers: options.headers ?? {}, agent },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            ms: Number(process.hrtime.bigint() - start) / 1e6,
          }),
        )
        res.on('error', reject)
      },
    )
    req.setTimeout(30_000, () => req.destroy(new Error(`no answer from ${base}${options.path} in 30 s`)))
    req.on('error', reject)
    req.end(options.body)
  })
}

export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** The median of each figure over runs. */
export function medians(runs: readonly Measured[]): Measured {
  const m = (key: keyof Measured) => median(runs.map((r) => r[key]))
  return {
    ok: m('ok'),
    answered: m('answered'),
    sent: m('sent'),
    seconds: m('seconds'),
    rps: m('rps'),
    p50: m('p50'),
    p99: m('p99'),
    errors: m('errors'),
    cpuPerRequest: m('cpuPerRequest'),
    othersPct: m('othersPct'),
  }
}

export const fmt = (value: number, digits = 0): string =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })

/** One line per measured target. */
export function row(label: string, m: Measured): string {
  return `${label.padEnd(36)} ${fmt(m.rps).padStart(7)} req/s   p50 ${fmt(m.p50, 1).padStart(5)} ms   p99 ${fmt(m.p99, 1).padStart(5)} ms   CPU ${fmt(m.cpuPerRequest, 3)} ms/req   others ${fmt(m.othersPct)} %`
}

/** Prints a target's verdict (targets are reported, not asserted). */
export function verdict(what: string, ok: boolean): void {
  console.log(`${ok ? 'PASS' : 'MISS'}  ${what}`)
}

export function describeMachine(connections?: number): string {
  return [
    `node ${process.version}`,
    `${os.cpus().length} cores (shared by the generator, node and PostgreSQL)`,
    `generator ${GENERATOR}`,
    ...(connections !== undefined ? [`${connections} connections`] : []),
    `${SECONDS} s per run`,
    `${RUNS} runs (medians)`,
  ].join(', ')
}

// ---------------------------------------------------------------------------------------------------------
// Databases.

/** A PostgreSQL database made for this run (procurement_bench_*) and dropped at clean-up. */
export async function scratchDatabase(label: string): Promise<string> {
  const name = `procurement_bench_${label}_${process.pid}_${Date.now().toString(36)}`
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: ADMIN_URL })
    await client.connect()
    try {
      await client.query(statement)
    } finally {
      await client.end()
    }
  }
  await admin(`CREATE DATABASE "${name}"`)
  onCleanup(() => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`))
  const url = new URL(ADMIN_URL)
  url.pathname = `/${name}`
  return url.toString()
}

/** A fresh directory under the system's temporary one, removed at clean-up. */
export function scratchDir(label: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `procurement-bench-${label}-`))
  onCleanup(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** Where the data is: a PostgreSQL database, or an embedded data directory (DATA_DIR). */
export type Store = { engine: 'postgres'; url: string } | { engine: 'pglite'; dataDir: string }

/** The server's environment for a store. */
export const storeEnv = (store: Store): Record<string, string> =>
  store.engine === 'postgres' ? { DATABASE_URL: store.url } : { DATA_DIR: store.dataDir }

/** The configuration the server will have for this store, and its keys. */
export function configFor(
  store: Store,
  extra: Record<string, string> = {},
): { config: Readonly<Config>; keys: ServerKeys } {
  const config = loadConfig(serverEnv({ ...storeEnv(store), BASE_DOMAIN, DEMO_SEED: 'false', ...extra }))
  return { config, keys: serverKeys(config) }
}

/** The type parsers the service uses (src/db/database.ts): int8 as number, date and numeric as text. */
export const PARSERS: Record<number, (text: string) => unknown> = { 20: Number, 1082: (t) => t, 1700: (t) => t }

/**
 * The store opened through a Kysely whose every statement is recorded, and made ready the way the server
 * does it (migrations; an embedded data directory laid out as the server lays it out).
 */
export async function openRecorded(
  store: Store,
): Promise<{ database: Database; log: Statement[]; results: Statement[] }> {
  const log: Statement[] = []
  /** PostgreSQL only: every statement with the rows it returned, in the order the answers came. */
  const results: Statement[] = []
  const record = (event: LogEvent) => {
    if (event.level === 'query') log.push({ sql: event.query.sql, parameters: [...event.query.parameters] })
  }
  const { config } = configFor(store)
  if (store.engine === 'postgres') {
    const pool = new pg.Pool({
      connectionString: store.url,
      max: POOL_MAX,
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary'): unknown =>
          PARSERS[oid] ?? (pg.types.getTypeParser(oid, format) as unknown)) as typeof pg.types.getTypeParser,
      },
    })
    pool.on('connect', (client) => {
      const query = client.query.bind(client) as (text: unknown, values?: unknown[]) => unknown
      ;(client as unknown as { query: typeof query }).query = (text, values) => {
        const answer = query(text, values)
        if (typeof text === 'string' && answer instanceof Promise)
          answer.then(
            (r: { rows?: unknown[] }) =>
              results.push({ sql: text, parameters: [...(values ?? [])], rows: r.rows ?? [] }),
            () => undefined,
          )
        return answer
      }
    })
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }), log: record })
    const url = store.url
    const database: Database = {
      db,
      engine: 'postgres',
      listen: (subscribers) => Promise.resolve(listenPostgres(url, subscribers)),
      close: () => db.destroy(),
    }
    await prepareDatabase(database, config)
    return { database, log, results }
  }
  // The server builds DATA_DIR/pgdata on its first start; this does the same, through the same code.
  const made = await openDatabase(config, { command: 'bench', prepare: (d) => prepareDatabase(d, config) })
  await made.close()
  const { PGlite } = await import('@electric-sql/pglite')
  const pglite = await PGlite.create({ dataDir: pgdataPaths(store.dataDir).ready, parsers: PARSERS })
  const db = new Kysely<DB>({
    dialect: new PostgresDialect({ pool: pglitePool(Promise.resolve(pglite)) }),
    log: record,
  })
  return {
    database: {
      db,
      engine: 'pglite',
      async listen(subscribers) {
        const unlisten = await Promise.all(
          Object.entries(subscribers).map(([channel, s]) => pglite.listen(channel, (payload) => s.notify(payload))),
        )
        everyone(subscribers, 'up')
        return {
          fence: () => Promise.resolve(),
          close: () => Promise.all(unlisten.map((stop) => stop())).then(() => {}),
        }
      },
      async close() {
        await db.destroy()
        await pglite.close()
      },
    },
    log,
    results: [],
  }
}

export interface Tenant {
  id: number
  domain: string
  /** Host header that names the tenant in multi-tenant mode. */
  host: string
  adminId: number
  clientId: string
  clientSecret: string
  token: string
}

/** A tenant with the sample data, `vendors` vendors in all (bulk-loaded in one statement), an application and a token. */
export async function seedTenant(
  db: Kysely<DB>,
  keys: ServerKeys,
  config: Readonly<Config>,
  domain: string,
  vendors: number,
): Promise<Tenant> {
  const started = performance.now()
  const id = await db.transaction().execute((tx) => createSampleTenant(tx, domain, domain))
  const sample = Number(
    (
      await db
        .selectFrom('vendors')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('tenant_id', '=', id)
        .executeTakeFirstOrThrow()
    ).n,
  )
  if (vendors > sample) {
    // Each vendor names a term and method of every kind (cycling through the tenant's), as real ones do.
    const ids = async (table: VendorLookupTable) =>
      (await db.selectFrom(table).select('id').where('tenant_id', '=', id).orderBy('id').execute()).map((r) => r.id)
    const [pt, st, pm, sm] = await Promise.all(VENDOR_LOOKUP_TABLES.map(ids))
    const pick = (list: number[] | undefined) =>
      list === undefined || list.length === 0 ? sql`null` : sql`(${list}::int[])[1 + g % ${list.length}]`
    await sql`INSERT INTO vendors (tenant_id, name, external_id, active, type,
        payment_term_id, shipping_term_id, payment_method_id, shipping_method_id)
      SELECT ${id}, 'Vendor ' || g, 'X-' || g, g % 10 <> 0, 3 + g % 2, ${pick(pt)}, ${pick(st)}, ${pick(pm)}, ${pick(sm)}
      FROM generate_series(1, ${vendors - sample}) g`.execute(db)
  }
  await sql`VACUUM ANALYZE vendors`.execute(db)
  const admin = await db
    .selectFrom('users')
    .select('id')
    .where('tenant_id', '=', id)
    .where('email', '=', 'admin@example.com')
    .executeTakeFirstOrThrow()
  const app = await insertWithCredentials(db, keys.pepper, { tenantId: id, userId: admin.id }, 'benchmark')
  const row = await db
    .selectFrom('applications')
    .select('secret_version')
    .where('id', '=', app.id)
    .executeTakeFirstOrThrow()
  const { token } = await signAccessToken(keys, config, {
    tenantId: id,
    domain,
    userId: admin.id,
    applicationId: app.id,
    clientId: app.client_id,
    secretVersion: row.secret_version,
  })
  console.log(
    `seeded tenant ${domain}: ${fmt(Math.max(vendors, sample))} vendors in ${fmt((performance.now() - started) / 1000, 1)} s`,
  )
  return {
    id,
    domain,
    host: `${domain}.${BASE_DOMAIN}`,
    adminId: admin.id,
    clientId: app.client_id,
    clientSecret: app.client_secret,
    token,
  }
}

/** Headers of an API request as tenant `t`. */
export const apiHeaders = (t: Tenant): Record<string, string> => ({
  host: t.host,
  authorization: `Bearer ${t.token}`,
  'x-service-client': 'api',
})

export interface Captured {
  statements: Statement[]
  status: number
  body: string
}

/**
 * The statements the service runs for one request in steady state: the app is built in this process on the
 * recording database with the server's configuration, the request is made twice (the first may do one-off
 * work, such as a token's last-used stamp), and the second one's statements are kept.
 */
export async function captureRequest(
  recorded: { database: Database; log: Statement[] },
  store: Store,
  request: { method: 'GET' | 'POST'; url: string; headers: Record<string, string>; body?: string },
): Promise<Captured> {
  // The rate limiter's once-a-second sync is not per request; off here so it cannot fall into the window.
  const { config, keys } = configFor(store, { RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'silent' })
  const app = await buildApp({ config, database: recorded.database, keys })
  try {
    const inject = () =>
      app.inject({
        method: request.method,
        url: request.url,
        headers: request.headers,
        ...(request.body !== undefined ? { payload: request.body } : {}),
      })
    await inject()
    recorded.log.length = 0
    const response = await inject()
    const statements = [...recorded.log]
    if (response.statusCode >= 300)
      throw new Error(`capture: ${request.url} answered ${response.statusCode}: ${response.body}`)
    return { statements, status: response.statusCode, body: response.body }
  } finally {
    await app.close()
  }
}

/** The SQL a direct call makes (to find it among a request's statements). */
export async function statementsOf(recorded: { log: Statement[] }, call: () => Promise<unknown>): Promise<Statement[]> {
  recorded.log.length = 0
  await call()
  const statements = [...recorded.log]
  recorded.log.length = 0
  return statements
}

/** The index of `wanted` (same SQL text) in `statements`; an error that says what changed if it is absent. */
export function indexOf(statements: readonly Statement[], wanted: Statement, what: string): number {
  const index = statements.findIndex((s) => s.sql === wanted.sql)
  if (index < 0)
    throw new Error(
      `the service no longer runs the ${what} statement for this request; the request ran:\n${statements.map((s) => s.sql).join('\n')}`,
    )
  return index
}

/** JSON for a floor spec file: Buffers and Dates survive as tagged values. */
export function writeSpec(label: string, spec: FloorSpec): string {
  const file = path.join(scratchDir(`floor-${label}`), 'spec.json')
  fs.writeFileSync(
    file,
    JSON.stringify(spec, function (this: Record<string, unknown>, key, value: unknown) {
      const raw = this[key]
      if (Buffer.isBuffer(raw)) return { $buffer: raw.toString('base64') }
      if (raw instanceof Date) return { $date: raw.toISOString() }
      return value
    }),
  )
  return file
}
