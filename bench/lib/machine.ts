/**
 * The machine, from /proc: CPU time and resident memory of a process and its descendants, and how busy the
 * machine is (to tell what others did during a run, and to start a run in a quiet moment).
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import { setTimeout as sleep } from 'node:timers/promises'
import { fmt } from './report.ts'
import { envNumber } from './settings.ts'

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
