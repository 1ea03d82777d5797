/**
 * `BENCH_BASE=<checkout>[,<checkout>…]`: the same benchmark against other builds of this project in the same
 * run, e.g. a build from before a change, so that the ratio to its floor is measured under the same conditions
 * as this build's.
 *
 * Each other checkout is a built copy (`npm run build`) with this checkout's bench/ copied into it: its
 * benchmark is started as a child in "serve" mode (`BENCH_SERVE_TO=<file>`), where it makes its own database,
 * seeds it with its own code, captures its own SQL for its own floor, starts its server and floor, writes where
 * they listen (and the headers to call them with) to the file, and waits. This process then measures every
 * build's server and floor in the same rounds, and stops the children at clean-up (each cleans up after
 * itself: servers stopped, scratch databases dropped).
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { onCleanup, scratchDir, track } from './cleanup.ts'
import type { Running } from './process.ts'
import type { Served } from './serve.ts'
import { envNumber } from './settings.ts'

/** The other checkouts named by BENCH_BASE (none when unset). */
export const baseRoots = (): string[] =>
  (process.env.BENCH_BASE ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => path.resolve(s))

/**
 * Starts `script` (a path under bench/, e.g. 'bench/vendors-list.ts') of each BENCH_BASE checkout in serve
 * mode with `env`, and resolves with what each serves: its targets named `<label> <target>` (the label is the
 * checkout's directory name).
 */
export async function startBases<T>(
  script: string,
  env: Record<string, string> = {},
): Promise<{ label: string; root: string; targets: Running[]; info: T }[]> {
  const started = []
  for (const root of baseRoots()) {
    const label = path.basename(root)
    const file = path.join(scratchDir('base'), 'served.json')
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, script)], {
      cwd: root,
      env: { ...process.env, BENCH_BASE: '', BENCH_SERVE_TO: file, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    track(child)
    let out = ''
    const keep = (chunk: Buffer) => {
      out = (out + chunk.toString()).slice(-16384)
    }
    child.stdout.on('data', keep)
    child.stderr.on('data', keep)
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
    onCleanup(async () => {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
      await exited
      clearTimeout(timer)
    })
    const deadline = Date.now() + envNumber('BENCH_BASE_SETUP_SECONDS', 1800) * 1000
    while (!fs.existsSync(file)) {
      if (child.exitCode !== null) throw new Error(`the benchmark of ${root} exited with ${child.exitCode}:\n${out}`)
      if (Date.now() > deadline) throw new Error(`the benchmark of ${root} did not get ready in time:\n${out}`)
      await sleep(200)
    }
    const served = JSON.parse(fs.readFileSync(file, 'utf8')) as Served<T>
    console.log(`${label}: ${out.trim().split('\n').slice(-12).join('\n  ')}`)
    started.push({
      label,
      root,
      info: served.info,
      targets: served.targets.map((t): Running => ({
        name: `${label} ${t.name}`,
        pid: t.pid,
        base: t.base,
        readyMs: 0,
        output: () => out,
        // Stopped with the child, at clean-up.
        stop: () => Promise.resolve(),
      })),
    })
  }
  return started
}
