/** malloc's thresholds kept and its free pages given back (core/native-memory.ts), where glibc is. */
// npm test: own process: it changes malloc's thresholds for the whole process, and V8's flags for a moment.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import v8 from 'node:v8'
import vm from 'node:vm'
import { available, giveBackFreedMemory, keepAllocatorThresholds } from '../src/core/native-memory.ts'

const glibc =
  (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime !==
  undefined

test('on Linux with glibc the allocator is reached; elsewhere both calls are no-ops', () => {
  assert.equal(available(), process.platform === 'linux' && glibc)
  assert.equal(keepAllocatorThresholds(), available())
})

test('freed blocks that live ones keep apart go back to the system', { skip: !available() }, () => {
  v8.setFlagsFromString('--expose-gc')
  const gc = vm.runInNewContext('gc') as () => void
  v8.setFlagsFromString('--no-expose-gc')
  keepAllocatorThresholds()
  // 64 KiB buffers come from malloc's arenas (under the 128 KiB mmap threshold); one in ten is kept, so the
  // freed ones lie between live ones, where no trim of an arena's top reaches them.
  const kept = Array.from({ length: 1600 }, () => Buffer.allocUnsafeSlow(64 * 1024).fill(1)).filter(
    (_, i) => i % 10 === 0,
  )
  gc()
  gc()
  assert.equal(giveBackFreedMemory(), true, 'malloc_trim released pages')
  assert.equal(kept.length, 160)
})
