/**
 * Runs test files, a few at a time. Most share their process with others: a test process (node's test runner,
 * spec reporter; helpers/shared-process.ts) takes files from the queue one after another, each in a suite of
 * its own, and is replaced after 20. Starting a process for every file cost about 2 s of CPU a file (node,
 * tsx, loading the sources through tsx's hooks, PGlite's WebAssembly) and ran every file on code not yet
 * optimised: the embedded suite on one machine went from 541 s (1,066 s of CPU) to 295 s (583 s). A file
 * that says `// npm test: own process: <why>` still gets a process of its own.
 *
 * Each file is timed from its import to the end of its `after` hooks (a file alone: from its process's start
 * to its exit), with its CPU time (user + system, with the servers and commands it started): on a machine
 * shared with other work the wall time says more about the others than about the tests, the CPU time much less.
 * A file's output is printed whole when it ends, so two files never interleave. The slowest files (by the last
 * run's times, kept in .cache/test-timings.json) start first, so that no long file starts at the end of a run
 * while the other slots sit idle; a checkout that has not run yet orders them by test/timings.json.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import readline from 'node:readline'
import type { Readable } from 'node:stream'

export interface FileResult {
  file: string
  ms: number
  /** CPU time of the file's process and every process it waited for, in ms. */
  cpuMs: number
  code: number
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
export function childrenCpuMs(): number {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[13]) + Number(fields[14])) * 10 // clock ticks of 10 ms (USER_HZ on Linux)
  } catch {
    return 0
  }
}

/**
 * A file that must have a process of its own says so in a line of its own: `// npm test: own process: <why>`
 * (for example a test that changes V8's flags or measures the process's memory).
 */
const OWN_PROCESS = /^\/\/ npm test: own process\b/m
const ownProcess = (file: string) => OWN_PROCESS.test(fs.readFileSync(file, 'utf8').slice(0, 4000))

/** A shared process is replaced after this many files, so that what one leaks cannot pile up for long. */
const FILES_PER_PROCESS = 20

export interface RunResults {
  files: FileResult[]
  /** The reporter's closing counters, summed over every process. */
  counts: Record<string, number>
}

export async function runFiles(
  files: string[],
  options: {
    runId: string
    nodeOptions: string[]
    concurrency: number
    /** Where the files' output goes (stdout). */
    write?: (text: string) => void
    /** Keep this run's times for the next run's order (yes). */
    keepTimings?: boolean
  },
): Promise<RunResults> {
  const write = options.write ?? ((text: string) => void process.stdout.write(text))
  const last = lastTimings()
  // Files never timed first (they may be slow), then the slowest.
  const queue = [...files].sort((a, b) => (last[b] ?? Infinity) - (last[a] ?? Infinity) || a.localeCompare(b))
  const alone = new Set(queue.filter(ownProcess))
  const results: FileResult[] = []
  const counts = Object.fromEntries(COUNTERS.map((name) => [name, 0])) as Record<string, number>
  const addCounts = (output: string) => {
    const found = countsOf(output)
    for (const name of COUNTERS) counts[name]! += found[name] ?? 0
  }
  const running = new Set<ChildProcess>()
  let reaped = childrenCpuMs()
  let stopped = false
  const stop = (signal: NodeJS.Signals) => {
    stopped = true
    for (const child of running) child.kill(signal)
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
  const env = { ...process.env, TEST_RUN_ID: options.runId }
  /** A test process: node's test runner with the spec reporter, on `entry`; fd 3 is a pipe for shared-process.ts. */
  const spawnTest = (entry: string) =>
    spawn(process.execPath, ['--import', 'tsx', '--test-reporter=spec', ...options.nodeOptions, entry], {
      env,
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    })
  const print = (file: string, ms: number, cpuMs: number, code: number, output: string) =>
    write(`\n── ${file} (${seconds(ms)}, CPU ${seconds(cpuMs)}${code === 0 ? '' : `, exit ${code}`})\n${output}`)

  /** A file in a process of its own, timed from the process's start to its exit. */
  const runAlone = (file: string) =>
    new Promise<void>((resolve) => {
      const started = performance.now()
      const child = spawnTest(file)
      child.stdin.end()
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
        print(file, ms, cpuMs, code, output)
        addCounts(output)
        results.push({ file, ms, cpuMs, code })
        resolve()
      })
    })

  /**
   * Files one after another in one process (helpers/shared-process.ts), taken from the queue as it goes. Each
   * file's part of the output ends at the reporter's line for its suite (`✔ test/x.test.ts (…ms)`); it is
   * printed once that line and the file's times are both in. A file's time runs from its import to the end of
   * its `after` hooks; the process's own start is not in any file's time.
   */
  const runShared = (first: string) =>
    new Promise<void>((resolve) => {
      const child = spawnTest(path.join(root, 'test/helpers/shared-process.ts'))
      running.add(child)
      let output = ''
      let sent = 0
      let failed = false
      const pending: string[] = []
      const timed = new Map<string, { ms: number; cpuMs: number }>()
      const send = (file: string) => {
        pending.push(file)
        sent++
        child.stdin.write(`${file}\n`)
      }
      const next = () => {
        const index = sent < FILES_PER_PROCESS && !stopped ? queue.findIndex((f) => !alone.has(f)) : -1
        if (index === -1) child.stdin.end()
        else send(queue.splice(index, 1)[0]!)
      }
      /** Prints the files whose part of the output and whose times are both in, in the order they ran. */
      const flush = () => {
        for (let file = pending[0]; file !== undefined && timed.has(file); file = pending[0]) {
          const end = new RegExp(`^([✔✖﹣]) ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(.*\\n`, 'm').exec(output)
          if (end === null) return
          const { ms, cpuMs } = timed.get(file)!
          const cut = end.index + end[0].length
          const code = end[1] === '✖' ? 1 : 0
          failed ||= code !== 0
          print(file, ms, cpuMs, code, output.slice(0, cut))
          results.push({ file, ms, cpuMs, code })
          output = output.slice(cut)
          pending.shift()
        }
      }
      const onOutput = (chunk: Buffer) => {
        output += chunk.toString()
        flush()
      }
      child.stdout.on('data', onOutput)
      child.stderr.on('data', onOutput)
      readline.createInterface({ input: child.stdio[3] as Readable }).on('line', (line) => {
        const { file, ms, cpuMs } = JSON.parse(line) as { file: string; ms: number; cpuMs: number }
        timed.set(file, { ms, cpuMs })
        flush()
        next()
      })
      child.stdin.on('error', () => {}) // the process died: its files are reported at close
      child.on('exit', () => {
        reaped = childrenCpuMs()
      })
      child.on('close', (exitCode, signal) => {
        running.delete(child)
        flush()
        // The reporter's closing counters come after the last file's part (a process that died has none).
        addCounts(output)
        // A file that never finished (the process died in it), or output after the last file's line.
        for (const file of pending) {
          const { ms, cpuMs } = timed.get(file) ?? { ms: 0, cpuMs: 0 }
          print(
            file,
            ms,
            cpuMs,
            1,
            `${output}\n(the shared test process ended, ${signal ?? `exit ${exitCode}`}, before this file finished)\n`,
          )
          results.push({ file, ms, cpuMs, code: 1 })
          failed = true
          output = ''
        }
        // What the process printed after its last file: the closing counters (summed into the summary), and
        // anything else — a failure summary, a warning — which is shown.
        if (output.split('\n').some((line) => line.trim() !== '' && !line.startsWith('ℹ ')))
          write(`\n── the end of a shared process (exit ${exitCode ?? signal})\n${output}`)
        // A process that failed with every file passing (an error after its last file) still fails the run.
        if (exitCode !== 0 && !failed)
          results.push({ file: '(a shared test process)', ms: 0, cpuMs: 0, code: exitCode ?? 1 })
        resolve()
      })
      send(first)
    })

  const worker = async () => {
    for (let file = queue.shift(); file !== undefined && !stopped; file = queue.shift())
      await (alone.has(file) ? runAlone(file) : runShared(file))
  }
  await Promise.all(Array.from({ length: Math.min(options.concurrency, files.length) }, worker))
  process.off('SIGINT', stop)
  process.off('SIGTERM', stop)
  if (!stopped && options.keepTimings !== false) saveTimings(results)
  return { files: results, counts }
}

export function printSummary({ files: results, counts: total }: RunResults, wallMs: number): void {
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
