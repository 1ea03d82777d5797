/**
 * Serve mode, the child's side of `BENCH_BASE` (bench/lib/base.ts): a benchmark run by another build's run
 * sets up as usual, reports where its server and floor listen, and waits to be stopped. Imports nothing of the
 * project, so that an older checkout's bench can take it as it is.
 */
import fs from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'

/** What a child in serve mode reports: its targets and whatever the benchmark needs to call them. */
export interface Served<T> {
  targets: { name: string; pid: number; base: string }[]
  info: T
}

/** In serve mode (a child of another build's run): the file to report to; undefined otherwise. */
export const serveTo = (): string | undefined => process.env.BENCH_SERVE_TO || undefined

/**
 * Serve mode: writes where `targets` listen and `info`, then waits until this process is stopped (its
 * clean-up stops the targets).
 */
export async function serveAndWait<T>(targets: { name: string; pid: number; base: string }[], info: T): Promise<never> {
  const file = serveTo()!
  const served: Served<T> = { targets: targets.map((t) => ({ name: t.name, pid: t.pid, base: t.base })), info }
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(served))
  fs.renameSync(`${file}.tmp`, file)
  for (;;) await sleep(60_000)
}
