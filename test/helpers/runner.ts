/**
 * Runs test files, a few at a time, each in a process of its own (node's test runner in that process, spec
 * reporter), and times each file from its process's start to its exit: set-up, hooks and start-up included.
 * A file's output is printed whole when it ends, so two files never interleave. The slowest files (by the last
 * run's times, kept in .cache/test-timings.json) start first, so that no long file starts at the end of a run
 * while the other slots sit idle.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

export interface FileResult {
  file: string
  ms: number
  code: number
  counts: Record<string, number>
}

const root = path.resolve(import.meta.dirname, '../..')
const timingsPath = path.join(root, '.cache', 'test-timings.json')
const COUNTERS = ['tests', 'pass', 'fail', 'cancelled', 'skipped', 'todo'] as const

function lastTimings(): Record<string, number> {
  try {
    return JSON.parse(fs.readFileSync(timingsPath, 'utf8')) as Record<string, number>
  } catch {
    return {}
  }
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

export async function runFiles(
  files: string[],
  options: { runId: string; nodeOptions: string[]; concurrency: number },
): Promise<FileResult[]> {
  const last = lastTimings()
  // Files never timed first (they may be slow), then the slowest.
  const queue = [...files].sort((a, b) => (last[b] ?? Infinity) - (last[a] ?? Infinity) || a.localeCompare(b))
  const results: FileResult[] = []
  const running = new Set<ChildProcess>()
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
      child.on('close', (exitCode, signal) => {
        running.delete(child)
        const ms = performance.now() - started
        const code = exitCode ?? (signal ? 1 : 0)
        process.stdout.write(`\n── ${file} (${seconds(ms)}${code === 0 ? '' : `, exit ${code}`})\n${output}`)
        resolve({ file, ms, code, counts: countsOf(output) })
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
  const slowest = [...results].sort((a, b) => b.ms - a.ms).slice(0, 10)
  console.log('\n── summary')
  console.log(COUNTERS.map((name) => `${name} ${total[name]}`).join(', '))
  console.log(`${results.length} files in ${seconds(wallMs)} (sum of the files' times ${seconds(sum)})`)
  console.log('ten slowest files:')
  for (const r of slowest) console.log(`  ${seconds(r.ms).padStart(8)}  ${r.file}`)
  if (failed.length > 0) console.log(`failed: ${failed.map((r) => r.file).join(', ')}`)
}
