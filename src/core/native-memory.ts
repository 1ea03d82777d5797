/**
 * Memory that the C allocator (glibc's malloc, on Linux) holds after it was freed. V8 and the embedded engine's
 * WebAssembly compiler allocate through malloc from several threads; glibc gives each thread an arena and keeps
 * what the thread freed. Two of its habits keep tens of MB that nothing uses:
 * - its dynamic threshold: once a block of several MB that had its own mapping is freed (a file read into a
 *   Buffer, a module's bytes), glibc serves every later block up to that size from its arenas and trims an
 *   arena's top only past twice that size;
 * - fragmentation: an arena whose few live blocks are spread over many pages gives nothing back by itself.
 * `keepAllocatorThresholds` fixes both thresholds at glibc's own defaults (128 KiB) at start, which turns the
 * dynamic threshold off; `giveBackFreedMemory` asks glibc (`malloc_trim`) to return the free pages of every
 * arena, which the idle release (idle-memory.ts) does after its collections. On the embedded engine that is
 * about 60 MB of an idle server's resident memory (docs/benchmarks.md, "memory").
 *
 * glibc's functions are called through koffi, a maintained foreign-function library with prebuilt binaries.
 * Elsewhere (macOS, musl, a platform koffi has no binary for) both are no-ops: `available()` says which.
 */
import { createRequire as requireFrom } from 'node:module'
import type Koffi from 'koffi'

/** mallopt's parameters (glibc's malloc.h). */
const M_TRIM_THRESHOLD = -1
const M_MMAP_THRESHOLD = -3
/** glibc's default for both thresholds, before its dynamic adjustment raises them. */
const THRESHOLD_BYTES = 128 * 1024

interface Allocator {
  mallopt(param: number, value: number): number
  malloc_trim(pad: number): number
}

let loaded: Allocator | null | undefined

function allocator(): Allocator | null {
  if (loaded !== undefined) return loaded
  loaded = null
  if (process.platform !== 'linux') return loaded
  try {
    // koffi is CommonJS with a native binary beside it: required, not bundled (scripts/bundle.js).
    const koffi = requireFrom(import.meta.url)('koffi') as typeof Koffi
    // glibc's name: musl's C library has another (and no malloc_trim), so there this throws.
    const libc = koffi.load('libc.so.6')
    loaded = {
      mallopt: libc.func('int mallopt(int param, int value)') as Allocator['mallopt'],
      malloc_trim: libc.func('int malloc_trim(size_t pad)') as Allocator['malloc_trim'],
    }
  } catch {
    loaded = null
  }
  return loaded
}

/** Whether glibc's allocator is reachable here (Linux with glibc, koffi loaded). */
export function available(): boolean {
  return allocator() !== null
}

/**
 * Fixes malloc's mmap and trim thresholds at 128 KiB: blocks from 128 KiB up get their own mapping, given
 * back when freed, and an arena's free top is trimmed past 128 KiB. Call once, early in the process.
 */
export function keepAllocatorThresholds(): boolean {
  const libc = allocator()
  if (libc === null) return false
  return libc.mallopt(M_MMAP_THRESHOLD, THRESHOLD_BYTES) === 1 && libc.mallopt(M_TRIM_THRESHOLD, THRESHOLD_BYTES) === 1
}

/** Returns the free pages of every malloc arena to the system (`malloc_trim(0)`); true if any were. */
export function giveBackFreedMemory(): boolean {
  const libc = allocator()
  return libc !== null && libc.malloc_trim(0) === 1
}
