/**
 * `procurement serve`: loading the server and reporting a failed start. Two entries share it: the command
 * (cli/main.ts), and, in the build, dist/serve.cjs (cli/serve-main.ts), which bin/procurement.cjs runs for a
 * bare `procurement serve` — the way `npm start` and the container start — without loading the command's
 * ES modules first.
 */
import fs from 'node:fs'
import { fileURLToPath } from 'node:url'
import type * as ServeEntry from './serve-entry.ts'

let server: Promise<typeof ServeEntry> | undefined
/** The bundle's own judge of which of its errors an operator can act on (see `exitWithFailure`). */
let serverFacing: ((error: unknown) => boolean) | undefined

/**
 * The server's code, loaded once. In the build, dist/server.cjs beside this file, run with the code cache
 * the build made for it (core/code-cache.ts): a start compiles next to nothing. From the sources,
 * cli/serve-entry.ts. The embedded engine's WebAssembly starts compiling first, on other threads, so the two
 * overlap (the settings are not read yet: DATABASE_URL unset or empty is the embedded engine).
 */
export function loadServer(): Promise<typeof ServeEntry> {
  server ??= (async () => {
    if ((process.env.DATABASE_URL ?? '') === '') (await import('../db/pglite-preload.ts')).startPgliteCompile()
    const bundle = fileURLToPath(new URL('./server.cjs', import.meta.url))
    if (!fs.existsSync(bundle)) return import('./serve-entry.ts')
    const { requireWithCodeCache } = await import('../core/code-cache.ts')
    const loaded = (await requireWithCodeCache(bundle)).exports as typeof ServeEntry
    serverFacing = loaded.operatorFacing
    return loaded
  })()
  return server
}

/** Serves with the settings of the environment, read by the server's own copy of config.ts. */
export async function serveFromEnvironment(): Promise<void> {
  const { loadConfig, serve } = await loadServer()
  await serve(loadConfig())
}

/**
 * Says why the command failed and exits with 1: one line for a failure an operator can act on (a setting, a
 * data directory in use, a database that cannot start), otherwise the error with its stack. `actionable` is
 * the caller's own judgement of that (cli/operator-facing.ts); the server bundle has its own copies of those
 * classes, so what it threw, it judges too.
 */
export function exitWithFailure(error: unknown, actionable: boolean): never {
  if (actionable || serverFacing?.(error) === true) console.error(`procurement: ${(error as Error).message}`)
  else console.error('procurement: failed:', error)
  process.exit(1)
}
