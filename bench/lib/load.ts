/**
 * Load: a generator in its own process (wrk when on PATH, else autocannon's CLI), and one load against a
 * target with the CPU time the target spent meanwhile.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { scratchDir } from './cleanup.ts'
import { awaitQuiet, cpuMs, othersShare, snapshot } from './machine.ts'
import { runChild, type Running } from './process.ts'
import { envNumber, ROOT, RUNS, SECONDS } from './settings.ts'

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

export interface Measured extends LoadResult {
  /** CPU time the measured process spent per 2xx answer, in ms. */
  cpuPerRequest: number
  /** What other processes on the machine used meanwhile, in % of all cores (see othersShare). */
  othersPct: number
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

/** The conditions of the runs, for the line a benchmark's report starts with. */
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
