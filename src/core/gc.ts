/**
 * V8's own collector, `gc`, taken once at start: the flag that exposes it is set, the function taken, the flag
 * reset, so nothing else in the process sees a `gc`. Used by idle-memory.ts (full collections when the server
 * goes quiet) and transfer-memory.ts (young collections while large files move).
 */
import v8 from 'node:v8'
import vm from 'node:vm'

export type Collect = (options?: {
  type: 'major' | 'minor'
  execution: 'sync' | 'async'
  flavor?: 'regular' | 'last-resort'
}) => void

let taken: Collect | null | undefined

/** The collector, or undefined where V8 will not give it. */
export function collector(): Collect | undefined {
  if (taken !== undefined) return taken ?? undefined
  taken = null
  try {
    v8.setFlagsFromString('--expose-gc')
    const gc = vm.runInNewContext('gc') as unknown
    if (typeof gc === 'function') taken = gc as Collect
  } catch {
    // No collector: callers do without.
  } finally {
    v8.setFlagsFromString('--no-expose-gc')
  }
  return taken ?? undefined
}
