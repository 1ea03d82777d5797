/**
 * Runs a CommonJS bundle with V8's code cache: the bytecode of the functions a start ran, saved beside the
 * bundle by the build (`<file>.cache`, scripts/code-cache.js), so that a start neither parses the bundle nor
 * compiles those functions again. Node 20 offers this only for scripts (`vm.Script`'s `cachedData`), not for
 * ES modules, which is why the server is also bundled as CommonJS (dist/server.cjs, scripts/bundle.js).
 *
 * V8 rejects a cache made by another V8 or under other flags, but checks the source only by its length (a
 * cache made for other code of the same length would run that other code), and a release build of V8 does not
 * check its data at all (a cache damaged past V8's own header is taken as it is). So the cache file begins
 * with a header of its own: the CRC-32 and the length in bytes of the source it was made for, then the CRC-32
 * of V8's data. The cache is used only for that source and only whole — the checks Node 22's own compile
 * cache makes, against mistakes rather than attackers (whoever can write the cache can write the bundle).
 * They take about 1 ms for the 5.5 MB bundle and its 2.6 MB cache, where SHA-256 of the source took 3 to 6.
 * A cache that does not fit is not used: the bundle is compiled as if there were none — slower, never different.
 */
import fs from 'node:fs'
// Not named createRequire: the ES module bundle's banner declares that name (scripts/bundle.js).
import { createRequire as requireFrom } from 'node:module'
import path from 'node:path'
import vm from 'node:vm'
import { crc32 } from 'node:zlib'

/**
 * How a module's code begins when it is run as a function of Node's module arguments. A bundle that begins
 * with it (and ends with `})`, as the build's does: scripts/bundle.js) is compiled as it is.
 */
export const MODULE_WRAPPER = '(function (exports, require, module, __filename, __dirname) {'
const WRAPPER_BYTES = Buffer.from(MODULE_WRAPPER)

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
 * Runs `file`, a CommonJS bundle in UTF-8 (or one already wrapped: `MODULE_WRAPPER`), as `require` would, with its
 * cache where there is one, and returns its exports. The bundle must not use
 * `import()`: a script's dynamic imports need an experimental flag in Node 20 (the bundle turns them into
 * `require`).
 */
export async function requireWithCodeCache(file: string): Promise<Loaded> {
  // Read without blocking (reading at once measured no faster: docs/benchmarks.md, "Sixth pass").
  const [bytes, cached] = await Promise.all([
    fs.promises.readFile(file),
    fs.promises.readFile(cacheFile(file)).catch(() => undefined),
  ])
  const digest = sourceDigest(bytes)
  const cachedData = cached === undefined ? undefined : dataFor(digest, cached)
  const fits = cachedData !== undefined
  // UTF-8, as Node reads a module. The build's bundle is ASCII (scripts/bundle.js escapes the rest), which
  // decodes three times faster and which V8 keeps at one byte a character.
  const source = bytes.toString('utf8')
  // The wrapper on the first line, as Node's own, so that line numbers in stack traces are the file's. The
  // build writes it into the bundle itself: V8 then compiles the file's text as it is, where a wrapper added
  // here is a second copy of the 5 MB text to make (about 2 ms).
  const wrapped = bytes.subarray(0, MODULE_WRAPPER.length).equals(WRAPPER_BYTES)
  const script = new vm.Script(wrapped ? source : `${MODULE_WRAPPER}${source}\n})`, { filename: file, cachedData })
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

/** The cache file's own header: the source's CRC-32 and length in bytes, then V8's data's CRC-32 (4 bytes each, big-endian). */
export const CACHE_HEADER_BYTES = 12

function sourceDigest(bytes: Buffer): Buffer {
  const digest = Buffer.alloc(8)
  digest.writeUInt32BE(crc32(bytes), 0)
  digest.writeUInt32BE(bytes.length % 2 ** 32, 4)
  return digest
}

/** V8's data in `cached`, if the file was made for the source whose digest this is and is whole. */
function dataFor(digest: Buffer, cached: Buffer): Buffer | undefined {
  if (cached.length <= CACHE_HEADER_BYTES || !cached.subarray(0, digest.length).equals(digest)) return undefined
  const data = cached.subarray(CACHE_HEADER_BYTES)
  return cached.readUInt32BE(digest.length) === crc32(data) ? data : undefined
}

/**
 * Writes `script`'s cache beside `file`, after the header for the source it was made from: the bytecode of
 * every function compiled so far. Whole or not at all.
 */
function writeCodeCache(script: vm.Script, file: string, digest: Buffer): void {
  const data = script.createCachedData()
  const check = Buffer.alloc(4)
  check.writeUInt32BE(crc32(data), 0)
  const partial = `${cacheFile(file)}.partial`
  fs.writeFileSync(partial, Buffer.concat([digest, check, data]))
  fs.renameSync(partial, cacheFile(file))
}
