/**
 * One test process that runs many test files, one after another (see runner.ts). Each file runs inside a
 * suite named after it, which it fills by being imported: its `test()`s, `describe()`s and top-level
 * `before()`/`after()` hooks belong to that suite, so its hooks run around its own tests only, and the next
 * file is imported only once this one's suite (its `after` hooks included) has finished.
 *
 * What it saves is each file's start: node, tsx, the sources through tsx's hooks, PGlite's WebAssembly —
 * about 2 s of CPU a file — and the code is already compiled and optimised by the second file.
 *
 * The runner writes the files on stdin, one per line, the next when the last is done; this process answers on
 * file descriptor 3 with one JSON line per file: `{ file, ms, cpuMs }` (CPU of this process and of the
 * processes the file started and waited for). Not an IPC channel: the code under test reads `process.send`
 * to tell whether it is a cluster worker.
 */
import fs from 'node:fs'
import path from 'node:path'
import readline from 'node:readline'
import { describe } from 'node:test'
import { pathToFileURL } from 'node:url'
import { childrenCpuMs } from './runner.ts'

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity })
for await (const line of lines) {
  const file = line.trim()
  if (file === '') continue
  const started = performance.now()
  const cpu = process.cpuUsage()
  const children = childrenCpuMs()
  await describe(file, async () => {
    await import(pathToFileURL(path.resolve(file)).href)
  })
  const used = process.cpuUsage(cpu)
  const cpuMs = (used.user + used.system) / 1000 + childrenCpuMs() - children
  fs.writeSync(3, `${JSON.stringify({ file, ms: performance.now() - started, cpuMs })}\n`)
}
