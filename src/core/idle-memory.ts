/**
 * Gives memory back while the process is idle. V8 collects its old generation only when allocation asks for
 * it, so a server that goes quiet after a burst keeps the garbage of that burst (tens of MB) for as long as
 * it stays quiet: the memory reducer that should shrink it does not run in a process that does nothing. Here,
 * once no request has come for `idleMs`, a few full collections run a second apart (a few tens of
 * milliseconds each, when nobody is waiting): the first frees the garbage, the later ones age the bytecode of
 * code that no longer runs until V8 drops it. Not again until requests have come and gone. Measured by
 * `npm run bench -- memory` (docs/benchmarks.md).
 *
 * The collector is V8's own `gc` (gc.ts). After the last collection, malloc's free pages go back to the system
 * too (native-memory.ts).
 */
import type { Server } from 'node:http'
import { collector } from './gc.ts'
import { giveBackFreedMemory } from './native-memory.ts'

/**
 * Full collections it takes for V8 to drop the bytecode of functions that did not run in between: a function's
 * bytecode ages by one at every full collection it does not run in, and is flushed past `--bytecode-old-age`
 * (5). Start-up code (migrations, route registration, schema compilation) then gives its bytecode back too.
 */
const ROUNDS = 6
/** Between two rounds, so that a request arriving meanwhile waits for one collection at most. */
const ROUND_GAP_MS = 1000

/** What `releaseMemoryWhenIdle` returns. */
export interface IdleRelease {
  /**
   * Background work just ran (housekeeping): it counts as a request, so the release runs again once the
   * process has been idle for the idle time after it. The embedded engine compiles the code of new work
   * (VACUUM, ANALYZE) on V8's threads, whose malloc arenas keep that memory until they are trimmed.
   */
  worked: () => void
  stop: () => void
}

/**
 * Watches `server`'s requests; after `idleMs` without one, collects: `ROUNDS` full collections a second
 * apart, stopped by the first request that comes, then malloc's free pages are given back.
 */
export function releaseMemoryWhenIdle(server: Server, idleMs: number): IdleRelease {
  const collect = collector()
  if (collect === undefined || idleMs <= 0) return { worked: () => {}, stop: () => {} }
  let requests = 0
  let lastRequestAt = Date.now()
  let rounds = 0
  const onRequest = () => {
    requests++
    rounds = 0
  }
  server.on('request', onRequest)
  let seen = requests
  const timer = setInterval(() => {
    if (requests !== seen) {
      seen = requests
      lastRequestAt = Date.now()
      return
    }
    if (rounds >= ROUNDS || Date.now() - lastRequestAt < idleMs) return
    rounds++
    // Without options, V8's `gc` is a full collection that also finds what only the stack seemed to hold
    // (with an options object it scans the stack conservatively and missed such garbage: test/idle-memory).
    // The last round is a 'last-resort' one: it collects until nothing more is freed and compacts, so that
    // emptied pages go back to the system; then what the collections freed outside V8's heap (buffers,
    // compilers' memory) leaves malloc's arenas.
    if (rounds < ROUNDS) collect()
    else {
      collect({ type: 'major', execution: 'sync', flavor: 'last-resort' })
      giveBackFreedMemory()
    }
  }, ROUND_GAP_MS)
  timer.unref()
  return {
    worked: onRequest,
    stop: () => {
      clearInterval(timer)
      server.off('request', onRequest)
    },
  }
}
