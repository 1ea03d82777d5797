/**
 * The processes a benchmark starts: the real server (this checkout's, in a control group, or another
 * checkout's), the operator's command, the raw floor (bench/floor/server.ts), a plain script, and any child
 * that must finish in time. Each is stopped again at clean-up.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { onCleanup, track } from './cleanup.ts'
import { envNumber, ROOT } from './settings.ts'

// bin/procurement.cjs, or bin/procurement.js in a checkout from before it was CommonJS (see `commandOf`).
const BIN = fs.existsSync(path.join(ROOT, 'bin/procurement.cjs'))
  ? path.join(ROOT, 'bin/procurement.cjs')
  : path.join(ROOT, 'bin/procurement.js')
const FLOOR = path.join(ROOT, 'bench/floor/server.ts')

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
  track(child)
  let out = ''
  const keep = (chunk: Buffer) => {
    out += chunk.toString()
    if (out.length > 16384) out = out.slice(-8192)
  }
  child.stdout.on('data', keep)
  child.stderr.on('data', keep)
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
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
    track(child)
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
    child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-8192)))
    const timer = setTimeout(() => child.kill('SIGKILL'), limitSeconds * 1000)
    child.once('error', reject)
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      if (code === 0) resolve({ stdout, stderr })
      else reject(new Error(`${command} failed (${signal ?? code}): ${stderr.trim()}`))
    })
  })
}
