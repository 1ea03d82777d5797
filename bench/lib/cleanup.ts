/**
 * Clean-up: whatever is registered runs once, in reverse order, at the end, on an error and on a signal; and
 * no child process (see `track`) outlives the benchmark. `main` runs a benchmark's body under it.
 */
import type { ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

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

/** Kills `child` when this process exits without cleaning up (a last resort); forgets it once it has exited. */
export function track(child: ChildProcess): void {
  children.add(child)
  child.once('exit', () => children.delete(child))
}

/** A fresh directory under the system's temporary one, removed at clean-up. */
export function scratchDir(label: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `procurement-bench-${label}-`))
  onCleanup(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}
