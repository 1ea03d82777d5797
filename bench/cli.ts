/**
 * The operator's command, `node bin/procurement.cjs …`, as a shell runs it: spawn to exit of `--version`,
 * `--help`, and `clients create` answered by a running embedded server through its control socket — beside
 * the floor, a bare `node -e 0`, in the same run and interleaved with it (one of each in turn, `BENCH_RUNS`
 * rounds, default 9). Reported as medians, wall time and CPU time (user + system of the finished child, from
 * this process's cutime and cstime), and as ratios to the floor's wall time.
 * `BENCH_BASE=<another checkout>` also runs that checkout's bin/procurement.cjs the same way (before/after).
 * Run: npm run bench -- cli
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import { main, scratchDir } from './lib/cleanup.ts'
import { commandOf, startServerAt } from './lib/process.ts'
import { fmt, median, verdict } from './lib/report.ts'
import { envNumber, ROOT, serverEnv } from './lib/settings.ts'

const rounds = envNumber('BENCH_RUNS', 9)
const base = process.env.BENCH_BASE
const TICK_MS = 10

/** CPU time of this process's finished (waited-for) children, in ms: cutime + cstime of /proc/self/stat. */
function childrenCpuMs(): number {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[13]) + Number(fields[14])) * TICK_MS
}

interface Run {
  ms: number
  cpu: number
}

async function timed(args: string[], env: Record<string, string>): Promise<Run> {
  const cpuBefore = childrenCpuMs()
  const begin = performance.now()
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.tmpdir(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout.on('data', (c: Buffer) => (out += c.toString()))
  child.stderr.on('data', (c: Buffer) => (out += c.toString()))
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)))
  const ms = performance.now() - begin
  if (code !== 0) throw new Error(`node ${args.join(' ')} exited with ${code}:\n${out}`)
  return { ms, cpu: childrenCpuMs() - cpuBefore }
}

interface Case {
  name: string
  args: string[]
  env: Record<string, string>
  /** The limit as a multiple of the floor's wall time, or in ms. */
  limit?: { floors: number } | { ms: number }
}

await main(async () => {
  const checkouts = [{ label: 'this checkout', root: ROOT }, ...(base ? [{ label: 'base', root: base }] : [])]
  const cases: Case[] = [{ name: 'floor: node -e 0', args: ['-e', '0'], env: {} }]
  for (const { label, root } of checkouts) {
    const bin = commandOf(root)
    const suffix = checkouts.length > 1 ? ` (${label})` : ''
    // The server answers `clients create` while it holds DATA_DIR: the command asks it through control.sock.
    const dataDir = scratchDir('cli')
    const env = serverEnv({ DATA_DIR: dataDir })
    await startServerAt(root, env, `server${suffix}`)
    cases.push(
      { name: `--version${suffix}`, args: [bin, '--version'], env: {}, limit: { floors: 2 } },
      { name: `--help${suffix}`, args: [bin, '--help'], env: {}, limit: { floors: 2 } },
      {
        name: `clients create, server running${suffix}`,
        args: [bin, 'clients', 'create', '--email', 'admin@example.com', '--json'],
        env,
        limit: { ms: 500 },
      },
    )
  }
  const runs = new Map<string, Run[]>(cases.map((c) => [c.name, []]))
  for (let round = 0; round < rounds; round++) for (const c of cases) runs.get(c.name)!.push(await timed(c.args, c.env))

  const floor = median(runs.get(cases[0]!.name)!.map((r) => r.ms))
  console.log(
    `${rounds} rounds, each case once per round in turn; medians; load average ${os.loadavg()[0]!.toFixed(1)}`,
  )
  for (const c of cases) {
    const ms = median(runs.get(c.name)!.map((r) => r.ms))
    const cpu = median(runs.get(c.name)!.map((r) => r.cpu))
    const line = `${c.name}: ${fmt(ms)} ms (${fmt(ms / floor, 2)}× the floor), CPU ${fmt(cpu)} ms`
    if (c.limit === undefined) console.log(`      ${line}`)
    else if ('floors' in c.limit)
      verdict(`${line}; target ≤ ${c.limit.floors}× the floor`, ms <= c.limit.floors * floor)
    else verdict(`${line}; target ≤ ${fmt(c.limit.ms)} ms`, ms <= c.limit.ms)
  }
})
