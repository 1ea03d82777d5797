/**
 * Gives memory back while the process is idle. V8 collects its old generation only when allocation asks for
 * it, so a server that goes quiet after a burst keeps the garbage of that burst (tens of MB) for as long as
 * it stays quiet: the memory reducer that should shrink it does not run in a process that does nothing. Here,
 * once no request has come for `idleMs` (checked every `idleMs / 2`), one full collection runs (a few tens of
 * milliseconds, when nobody is waiting), and not again until requests have come and gone. Measured by
 * `npm run bench -- memory` (docs/benchmarks.md): after 1,000 requests, 161 → 128 MB on PostgreSQL.
 *
 * The collector is V8's own `gc`, taken once at start (the flag that exposes it is set, the function taken,
 * the flag reset: nothing else in the process sees a `gc`).
 */
import type { Server } from 'node:http'
import v8 from 'node:v8'
import vm from 'node:vm'

type Collect = (options: { type: 'major'; execution: 'sync' | 'async'; flavor?: 'regular' | 'last-resort' }) => void

function collector(): Collect | undefined {
  try {
    v8.setFlagsFromString('--expose-gc')
    const gc = vm.runInNewContext('gc') as unknown
    return typeof gc === 'function' ? (gc as Collect) : undefined
  } catch {
    return undefined
  } finally {
    v8.setFlagsFromString('--no-expose-gc')
  }
}

/** Watches `server`'s requests; after `idleMs` without one, collects once. Returns the function that stops it. */
export function releaseMemoryWhenIdle(server: Server, idleMs: number): () => void {
  const collect = collector()
  if (collect === undefined || idleMs <= 0) return () => {}
  let requests = 0
  let seen = -1
  let collected = false
  const onRequest = () => {
    requests++
    collected = false
  }
  server.on('request', onRequest)
  const timer = setInterval(() => {
    if (requests !== seen) {
      seen = requests
      return
    }
    if (collected) return
    collected = true
    // 'last-resort': collect until nothing more is freed, and compact, so that emptied pages go back.
    collect({ type: 'major', execution: 'sync', flavor: 'last-resort' })
  }, idleMs / 2)
  timer.unref()
  return () => {
    clearInterval(timer)
    server.off('request', onRequest)
  }
}
