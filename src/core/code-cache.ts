/**
 * Runs a CommonJS bundle with V8's code cache: the bytecode of the functions a start ran, saved beside the
 * bundle by the build (`<file>.cache`, scripts/code-cache.js), so that a start neither parses the bundle nor
 * compiles those functions again. Node 20 offers this only for scripts (`vm.Script`'s `cachedData`), not for
 * ES modules, which is why the server is also bundled as CommonJS (dist/server.cjs, scripts/bundle.js).
 *
 * V8 rejects a cache made by another V8 or under other flags, but checks the source only by its length: a
 * cache made for other code of the same length would run that other code. So the cache file begins with the
 * SHA-256 of the source it was made for (3 ms for the 5.5 MB bundle), and is used only for that source.
 * A cache that does not fit is not used: the bundle is compiled as if there were none — slower, never different.
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
// Not named createRequire: the ES module bundle's banner declares that name (scripts/bundle.js).
import { createRequire as requireFrom } from 'node:module'
import path from 'node:path'
import vm from 'node:vm'

/** Set by the build's one training start (scripts/code-cache.js): write the cache when the process exits. */
export const WRITE_CODE_CACHE_ENV = 'PROCUREMENT_WRITE_CODE_CACHE'

/** What became of the cache: used; not used (made for other code, by another Node or under other flags, or damaged); not there. */
export type CacheUse = 'accepted' | 'rejected' | 'absent'

export interface Loaded {
  exports: unknown
  cache: CacheUse
}

/** The path of `file`'s cache. */
const cacheFile = (file: string): string => `${file}.cache`

/**
 * Runs `file`, a CommonJS bundle in UTF-8, as `require` would, with its cache where there is one, and returns its exports. The bundle must not use
 * `import()`: a script's dynamic imports need an experimental flag in Node 20 (the bundle turns them into
 * `require`).
 */
export async function requireWithCodeCache(file: string): Promise<Loaded> {
  // Read without blocking, so that work started before (PGlite's WebAssembly, db/pglite-preload.ts) goes on.
  const [bytes, cached] = await Promise.all([
    fs.promises.readFile(file),
    fs.promises.readFile(cacheFile(file)).catch(() => undefined),
  ])
  const digest = sourceDigest(bytes)
  const fits = cached !== undefined && cached.subarray(0, DIGEST_BYTES).equals(digest)
  const cachedData = fits ? cached.subarray(DIGEST_BYTES) : undefined
  // UTF-8, as Node reads a module (a character such as '·' is two bytes there); V8 still keeps the text one
  // byte a character when every character fits in Latin-1 (scripts/bundle.js escapes the rest).
  const source = bytes.toString('utf8')
  // The wrapper on the first line, as Node's own, so that line numbers in stack traces are the file's.
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData,
  })
  const module = { exports: {} }
  const wrapper: unknown = script.runInThisContext()
  if (typeof wrapper !== 'function') throw new Error(`${file} did not compile to a function`)
  wrapper.call(module.exports, module.exports, requireFrom(file), module, file, path.dirname(file))
  if (process.env[WRITE_CODE_CACHE_ENV] === '1') process.once('exit', () => writeCodeCache(script, file, digest))
  return {
    exports: module.exports,
    cache: cached === undefined ? 'absent' : !fits || script.cachedDataRejected === true ? 'rejected' : 'accepted',
  }
}

const DIGEST_BYTES = 32
const sourceDigest = (bytes: Buffer): Buffer => createHash('sha256').update(bytes).digest()

/**
 * Writes `script`'s cache beside `file`, after the digest of the source it was made from: the bytecode of
 * every function compiled so far. Whole or not at all.
 */
function writeCodeCache(script: vm.Script, file: string, digest: Buffer): void {
  const partial = `${cacheFile(file)}.partial`
  fs.writeFileSync(partial, Buffer.concat([digest, script.createCachedData()]))
  fs.renameSync(partial, cacheFile(file))
}
