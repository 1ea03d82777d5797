/**
 * Runs test files, a few at a time, each in a process of its own (node's test runner in that process, spec
 * reporter), and times each file from its process's start to its exit: set-up, hooks and start-up included.
 * Also its CPU time (user + system, with the servers and commands it started): on a machine shared with other
 * work the wall time says more about the others than about the tests, the CPU time much less.
 * A file's output is printed whole when it ends, so two files never interleave. The slowest files (by the last
 * run's times, kept in .cache/test-timings.json) start first, so that no long file starts at the end of a run
 * while the other slots sit idle; a checkout that has not run yet orders them by test/timings.json.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

export interface FileResult {
  file: string
  ms: number
  /** CPU time of the file's process and every process it waited for, in ms. */
  cpuMs: number
  code: number
  counts: Record<string, number>
}

const root = path.resolve(import.meta.dirname, '../..')
const timingsPath = path.join(root, '.cache', 'test-timings.json')
/** A run's timings kept with the code, for a checkout that has not run the suite yet (a fresh clone, CI). */
const committedTimingsPath = path.join(root, 'test', 'timings.json')
const COUNTERS = ['tests', 'pass', 'fail', 'cancelled', 'skipped', 'todo'] as const

function lastTimings(): Record<string, number> {
  for (const file of [timingsPath, committedTimingsPath]) {
    try {
      return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, number>
    } catch {
      // not there (or not readable): the next, or none
    }
  }
  return {}
}

function saveTimings(results: FileResult[]): void {
  const timings = { ...lastTimings() }
  for (const r of results) timings[r.file] = Math.round(r.ms)
  fs.mkdirSync(path.dirname(timingsPath), { recursive: true })
  fs.writeFileSync(timingsPath, `${JSON.stringify(timings, null, 2)}\n`)
}

/** The spec reporter's closing counters of one file (`ℹ pass 12` …). */
function countsOf(output: string): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const name of COUNTERS) {
    const match = new RegExp(`^ℹ ${name} (\\d+)$`, 'm').exec(output)
    counts[name] = match ? Number(match[1]) : 0
  }
  return counts
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`

/**
 * CPU time of this process's reaped children so far (cutime + cstime of /proc/self/stat, which include the
 * children's own reaped children), in ms; 0 where there is no /proc. It grows only when a child is reaped, so
 * the growth seen at a child's exit is that child's.
 */
function childrenCpuMs(): number {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[13]) + Number(fields[14])) * 10 // clock ticks of 10 ms (USER_HZ on Linux)
  } catch {
    return 0
  }
}

export async function runFiles(
  files: string[],
  options: { runId: string; nodeOptions: string[]; concurrency: number },
): Promise<FileResult[]> {
  const last = lastTimings()
  // Files never timed first (they may be slow), then the slowest.
  const queue = [...files].sort((a, b) => (last[b] ?? Infinity) - (last[a] ?? Infinity) || a.localeCompare(b))
  const results: FileResult[] = []
  const running = new Set<ChildProcess>()
  let reaped = childrenCpuMs()
  let stopped = false
  const stop = (signal: NodeJS.Signals) => {
    stopped = true
    for (const child of running) child.kill(signal)
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)

  const runOne = (file: string) =>
    new Promise<FileResult>((resolve) => {
      const started = performance.now()
      const child = spawn(process.execPath, ['--import', 'tsx', '--test-reporter=spec', ...options.nodeOptions, file], {
        env: { ...process.env, TEST_RUN_ID: options.runId },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      running.add(child)
      let output = ''
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
      let cpuMs = 0
      child.on('exit', () => {
        const now = childrenCpuMs()
        cpuMs = now - reaped
        reaped = now
      })
      child.on('close', (exitCode, signal) => {
        running.delete(child)
        const ms = performance.now() - started
        const code = exitCode ?? (signal ? 1 : 0)
        process.stdout.write(
          `\n── ${file} (${seconds(ms)}, CPU ${seconds(cpuMs)}${code === 0 ? '' : `, exit ${code}`})\n${output}`,
        )
        resolve({ file, ms, cpuMs, code, counts: countsOf(output) })
      })
    })

  const worker = async () => {
    for (let file = queue.shift(); file !== undefined && !stopped; file = queue.shift())
      results.push(await runOne(file))
  }
  await Promise.all(Array.from({ length: Math.min(options.concurrency, files.length) }, worker))
  process.off('SIGINT', stop)
  process.off('SIGTERM', stop)
  if (!stopped) saveTimings(results)
  return results
}

export function printSummary(results: FileResult[], wallMs: number): void {
  const total = Object.fromEntries(COUNTERS.map((name) => [name, 0])) as Record<string, number>
  for (const r of results) for (const name of COUNTERS) total[name]! += r.counts[name] ?? 0
  const failed = results.filter((r) => r.code !== 0)
  const sum = results.reduce((s, r) => s + r.ms, 0)
  const cpu = results.reduce((s, r) => s + r.cpuMs, 0)
  const slowest = [...results].sort((a, b) => b.ms - a.ms).slice(0, 10)
  console.log('\n── summary')
  console.log(COUNTERS.map((name) => `${name} ${total[name]}`).join(', '))
  console.log(
    `${results.length} files in ${seconds(wallMs)} (sum of the files' times ${seconds(sum)}, their CPU time ${seconds(cpu)})`,
  )
  console.log('ten slowest files (time, CPU time):')
  for (const r of slowest) console.log(`  ${seconds(r.ms).padStart(8)}  ${seconds(r.cpuMs).padStart(8)}  ${r.file}`)
  if (failed.length > 0) console.log(`failed: ${failed.map((r) => r.file).join(', ')}`)
}
