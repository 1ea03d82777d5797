// After scripts/bundle.js and scripts/embedded-template.js: dist/server.cjs.cache, V8's code cache for the
// server bundle (src/core/code-cache.ts). It is made by one real start, the way `npm start` runs: an embedded
// first start in a scratch data directory, on a free port, stopped once /readyz answers; on its way out the
// process writes the bytecode of every function it compiled. A start after that deserializes that bytecode
// instead of parsing the 6 MB bundle and compiling what it runs. The cache fits this Node only (V8 rejects it
// under another, and the server then compiles as before), so it is made where the build runs.
// If the start fails, the build goes on without a cache, saying so: the server is slower to start, not wrong.
import { spawn } from 'node:child_process'
import console from 'node:console'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import process from 'node:process'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath, URL } from 'node:url'
import { WRITE_CODE_CACHE_ENV } from '../dist/core/code-cache.js'

const dist = new URL('../dist/', import.meta.url)
const cache = fileURLToPath(new URL('server.cjs.cache', dist))
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procurement-code-cache-'))
const READY_WITHIN_MS = 60_000
const STOPPED_WITHIN_MS = 30_000

fs.rmSync(cache, { force: true })

// One embedded server process, whatever the build's environment says. NODE_OPTIONS stays: V8 rejects a cache
// made under other flags (--max-old-space-size and --stack-size among them), so a server started with some
// keeps its cache only if the build ran with the same (docs/operations.md).
function trainingEnv(env) {
  const rest = { ...env }
  delete rest.DATABASE_URL
  delete rest.WORKERS
  return rest
}

async function train() {
  // As `npm start` runs it: bin/procurement.cjs runs dist/serve.cjs for a bare `serve`.
  const child = spawn(process.execPath, [fileURLToPath(new URL('serve.cjs', dist))], {
    env: {
      ...trainingEnv(process.env),
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'warn',
      [WRITE_CODE_CACHE_ENV]: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)))
  const deadline = Date.now() + READY_WITHIN_MS
  try {
    for (;;) {
      const base = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1]
      if (base !== undefined) {
        const status = await globalThis.fetch(`${base}/readyz`).then(
          (response) => response.status,
          () => 0,
        )
        if (status === 200) break
      }
      if (child.exitCode !== null || Date.now() > deadline) {
        const last = output.trim().split('\n').slice(-2).join(' / ')
        throw new Error(`the server did not become ready${last === '' ? '' : `: ${last}`}`)
      }
      await sleep(20)
    }
  } finally {
    child.kill('SIGTERM')
  }
  const how = await Promise.race([exited, sleep(STOPPED_WITHIN_MS, 'timeout', { ref: false })])
  if (how === 'timeout') {
    child.kill('SIGKILL')
    throw new Error(`the server did not stop within ${STOPPED_WITHIN_MS / 1000} s of SIGTERM`)
  }
  if (!fs.existsSync(cache)) throw new Error(`the server stopped (${how}) without writing the cache`)
}

try {
  await train()
  console.log(`code cache: ${path.relative(process.cwd(), cache)} (${Math.round(fs.statSync(cache).size / 1024)} KB)`)
} catch (error) {
  console.warn(`code cache not made (${error.message}); the server will start without it, more slowly.`)
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true })
}
