// src/core/code-cache.ts, the way `serve` runs dist/server.cjs: each load is a new node process (a cache is
// made by one process for the next), on a small CommonJS file of the test's own.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { after, test } from 'node:test'
import { CACHE_HEADER_BYTES, MODULE_WRAPPER } from '../src/core/code-cache.ts'

const codeCache = path.resolve(import.meta.dirname, '../src/core/code-cache.ts')
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'code-cache-'))
after(() => fs.rmSync(dir, { recursive: true, force: true }))

const bundle = path.join(dir, 'bundle.cjs')
const cache = `${bundle}.cache`
const source = (answer: number) => `'use strict'
const path = require('node:path')
exports.answer = () => ${answer}
exports.where = path.basename(__dirname) + '/' + path.basename(__filename)
exports.thrown = () => { try { null.x } catch (error) { return error.stack.split('\\n')[1] } }
exports.text = \`café · naïve — \${'ok'}\`
`

/** Loads the bundle in a new node process, as `serve` does; what it exported, and what became of the cache. */
async function load(env: Record<string, string> = {}) {
  const script = `
    const { requireWithCodeCache } = await import(${JSON.stringify(codeCache)})
    const { exports, cache } = await requireWithCodeCache(${JSON.stringify(bundle)})
    console.log(JSON.stringify({ cache, answer: exports.answer(), where: exports.where, thrown: exports.thrown(), text: exports.text }))`
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', script],
    { env: { ...process.env, ...env } },
  )
  return JSON.parse(stdout) as { cache: string; answer: number; where: string; thrown: string; text: string }
}

test('the first load has no cache and, when the build asks, writes one as it exits; the next load uses it', async () => {
  fs.writeFileSync(bundle, source(1))
  const first = await load({ PROCUREMENT_WRITE_CODE_CACHE: '1' })
  assert.deepEqual(
    { cache: first.cache, answer: first.answer, where: first.where },
    { cache: 'absent', answer: 1, where: `${path.basename(dir)}/bundle.cjs` },
  )
  assert.ok(fs.statSync(cache).size > 0, 'the cache was written')
  assert.ok(!fs.existsSync(`${cache}.partial`), 'no partial file is left')
  const second = await load()
  assert.equal(second.cache, 'accepted')
  assert.equal(second.answer, 1)
  // The file is UTF-8, as a module is: characters past ASCII read as written, with the cache and without.
  assert.equal(first.text, 'café · naïve — ok')
  assert.equal(second.text, 'café · naïve — ok')
  // The wrapper shares the file's first line, so stack traces point at the file's own lines (line 5 here).
  assert.match(second.thrown, new RegExp(`bundle\\.cjs:5:`))
})

test('without the build asking, a load writes nothing', async () => {
  fs.writeFileSync(bundle, source(2))
  fs.rmSync(cache, { force: true })
  assert.equal((await load()).cache, 'absent')
  assert.ok(!fs.existsSync(cache))
})

test('a cache made for other code, or damaged, is rejected and the bundle runs as it is', async () => {
  fs.writeFileSync(bundle, source(3))
  await load({ PROCUREMENT_WRITE_CODE_CACHE: '1' })
  assert.equal((await load()).cache, 'accepted')

  // Other code of the same length: V8 alone would take the cache and run the old code (answer 3).
  fs.writeFileSync(bundle, source(4))
  const changed = await load()
  assert.deepEqual({ cache: changed.cache, answer: changed.answer }, { cache: 'rejected', answer: 4 })

  fs.writeFileSync(cache, Buffer.from('not a code cache at all'))
  const damaged = await load()
  assert.deepEqual({ cache: damaged.cache, answer: damaged.answer }, { cache: 'rejected', answer: 4 })

  // The right source's header, then V8's data damaged: all of it, which V8 itself would reject; past V8's own
  // header (its first 40 bytes kept), which V8 would take as it is; or cut short.
  await load({ PROCUREMENT_WRITE_CODE_CACHE: '1' })
  const made = fs.readFileSync(cache)
  const header = made.subarray(0, CACHE_HEADER_BYTES)
  const data = made.subarray(CACHE_HEADER_BYTES)
  const flipped = Buffer.from(data.map((byte, i) => (i < 40 ? byte : byte ^ 0x5a)))
  for (const damaged of [Buffer.alloc(data.length, 7), flipped, data.subarray(0, data.length - 1)]) {
    fs.writeFileSync(cache, Buffer.concat([header, damaged]))
    const garbled = await load()
    assert.deepEqual({ cache: garbled.cache, answer: garbled.answer }, { cache: 'rejected', answer: 4 })
  }
  fs.writeFileSync(cache, made)
  assert.equal((await load()).cache, 'accepted')
})

test('a bundle the build wrote already wrapped runs as it is, with its cache and its own line numbers', async () => {
  // As scripts/bundle.js writes dist/server.cjs: the wrapper on the first line, `})` on the last.
  fs.writeFileSync(bundle, `${MODULE_WRAPPER}${source(5)}})\n`)
  fs.rmSync(cache, { force: true })
  const first = await load({ PROCUREMENT_WRITE_CODE_CACHE: '1' })
  assert.deepEqual({ cache: first.cache, answer: first.answer }, { cache: 'absent', answer: 5 })
  const second = await load()
  assert.deepEqual({ cache: second.cache, answer: second.answer }, { cache: 'accepted', answer: 5 })
  assert.equal(second.text, 'café · naïve — ok')
  assert.match(second.thrown, new RegExp(`bundle\\.cjs:5:`))
})
