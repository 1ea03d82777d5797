/**
 * The embedded engine's WebAssembly, compiled while the server's own code loads. PGlite compiles its 9 MB
 * module when it is created, after `serve` has parsed and run the server (most of a restart's JavaScript);
 * V8 compiles WebAssembly on background threads, so started first, the two overlap. `startPgliteCompile` is
 * called by `serve` before it imports the server; `openPglite` takes what it started (or, when nothing was
 * started, PGlite compiles as it always does).
 */
import fs from 'node:fs'

/** A compiled WebAssembly module (the libraries this project compiles against declare no WebAssembly types). */
type WasmModule = object

/** Node's WebAssembly global. */
const wasm = Reflect.get(globalThis, 'WebAssembly') as { compile(bytes: Uint8Array): Promise<WasmModule> }

export interface PglitePreload {
  /** PGlite's own module (`pgliteWasmModule`). */
  wasmModule: WasmModule
  /** Its file-system bundle (`fsBundle`). */
  fsBundle: Blob
}

/**
 * Where `startPgliteCompile` leaves its work: on the global object, not in this module, because in the build
 * the command (dist/procurement.js) and the server it runs (dist/server.cjs, see core/code-cache.ts) each
 * have their own copy of this module. The key is the same in both.
 */
const STARTED = Symbol.for('procurement.pglite-preload')

/**
 * Reads and compiles PGlite's WebAssembly and file-system bundle. One compiled module serves any number of
 * PGlite instances in the process (the tests open one per file); undefined if they cannot be read, which
 * PGlite then reports itself when it loads them.
 */
export async function compilePglite(): Promise<PglitePreload | undefined> {
  try {
    // The package's files sit next to its entry module. Read at once (15 MB, about 8 ms): read
    // without blocking, a file comes in chunks of 512 KB, each waiting for a turn of the main thread, which is
    // busy loading the server; the reads then took some 150 ms, and PGlite waited for them.
    const file = (name: string) => new URL(name, import.meta.resolve('@electric-sql/pglite'))
    const code = fs.readFileSync(file('pglite.wasm'))
    const fsBundle = new Blob([fs.readFileSync(file('pglite.data'))])
    return { wasmModule: await wasm.compile(code), fsBundle }
  } catch {
    return undefined
  }
}

/** Starts `compilePglite` for the next `openPglite`; a second call does nothing. */
export function startPgliteCompile(): void {
  if (!Reflect.has(globalThis, STARTED)) Reflect.set(globalThis, STARTED, compilePglite())
}

/** What `startPgliteCompile` made, once (a later PGlite in the same process compiles its own). */
export async function takePglitePreload(): Promise<PglitePreload | undefined> {
  const preload = Reflect.get(globalThis, STARTED) as Promise<PglitePreload | undefined> | undefined
  Reflect.deleteProperty(globalThis, STARTED)
  return preload
}
