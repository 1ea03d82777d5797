/** What a benchmark prints: medians over runs, numbers, one line per target, and verdicts. */
import type { Measured } from './load.ts'

export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** The median of each figure over runs. */
export function medians(runs: readonly Measured[]): Measured {
  const m = (key: keyof Measured) => median(runs.map((r) => r[key]))
  return {
    ok: m('ok'),
    answered: m('answered'),
    sent: m('sent'),
    seconds: m('seconds'),
    rps: m('rps'),
    p50: m('p50'),
    p99: m('p99'),
    errors: m('errors'),
    cpuPerRequest: m('cpuPerRequest'),
    othersPct: m('othersPct'),
  }
}

export const fmt = (value: number, digits = 0): string =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })

/** One line per measured target. */
export function row(label: string, m: Measured): string {
  return `${label.padEnd(36)} ${fmt(m.rps).padStart(7)} req/s   p50 ${fmt(m.p50, 1).padStart(5)} ms   p99 ${fmt(m.p99, 1).padStart(5)} ms   CPU ${fmt(m.cpuPerRequest, 3)} ms/req   others ${fmt(m.othersPct)} %`
}

/** Prints a target's verdict (targets are reported, not asserted). */
export function verdict(what: string, ok: boolean): void {
  console.log(`${ok ? 'PASS' : 'MISS'}  ${what}`)
}
