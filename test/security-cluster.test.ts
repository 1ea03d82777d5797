/**
 * `kill -9` of a cluster worker (issue 20 item 12), under a stream of fresh connections: every client must
 * get an answer or see its connection closed — none may be left waiting. In node:cluster's round-robin mode
 * the primary kept its copy of a connection it handed to a worker until the worker acknowledged it, so a
 * worker killed before that left the connection open forever; our own dispatcher (src/cluster.ts) does not.
 */
import assert from 'node:assert/strict'
import http from 'node:http'
import { after, before, describe, test } from 'node:test'
import { engineUnderTest, testDatabase, type TestDatabase } from './helpers/db.ts'
import { run, type Running } from './helpers/process.ts'

const KEYS = { TOKEN_SIGNING_KEY: 'k'.repeat(40), SECRET_PEPPER: 'p'.repeat(40) }
const HANG_MS = 8000

type Outcome = 'answered' | 'closed' | 'hung'

/** One GET on a connection of its own; 'hung' if neither an answer nor a close came within HANG_MS. */
function probe(base: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = http.request(`${base}/healthz`, { agent: false, headers: { connection: 'close' } }, (res) => {
      res.resume()
      res.on('end', () => settle('answered'))
      res.on('error', () => settle('closed'))
    })
    const timer = setTimeout(() => {
      settle('hung')
      req.destroy()
    }, HANG_MS)
    let settled = false
    const settle = (outcome: Outcome) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(outcome)
    }
    req.on('error', () => settle('closed'))
    req.end()
  })
}

describe('kill -9 of a worker under load', { skip: engineUnderTest !== 'postgres' && 'PostgreSQL-only' }, () => {
  let database: TestDatabase
  let server: Running
  let base: string

  /** Worker pids that said they listen and have not been reported dead. */
  const liveWorkers = () => {
    const output = server.output()
    const listening = [...output.matchAll(/"worker_pid":(\d+),"workers":\d+,"msg":"worker listening"/g)]
    const dead = new Set([...output.matchAll(/"worker_pid":(\d+),"signal"/g)].map((m) => Number(m[1])))
    return listening.map((m) => Number(m[1])).filter((pid) => !dead.has(pid))
  }

  before(async () => {
    database = await testDatabase()
    server = run(['serve'], {
      ...KEYS,
      DATABASE_URL: database.url!,
      WORKERS: '2',
      PORT: '0',
      DEMO_SEED: 'false',
      LOG_LEVEL: 'info', // the workers' start and exit lines
      DATABASE_POOL_MAX: '2',
    })
    base = (await server.waitFor(/listening on (http:\/\/\S+) \(2 workers\)/, 90_000))[1]!
  })
  after(async () => {
    server?.child.kill('SIGKILL')
    for (const pid of liveWorkers()) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // already gone
      }
    }
    await database?.close()
  })

  // See docs/security.md, "Cluster workers and kill -9", for the cause and the fix.
  test('three kills among hundreds of fresh connections: every client gets an answer or a close', async () => {
    const outcomes: Outcome[] = []
    for (let kill = 0; kill < 3; kill++) {
      const deadline = Date.now() + 60_000
      while (liveWorkers().length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
      const [victim] = liveWorkers()
      assert.ok(victim !== undefined, server.output())
      let running = true
      const streams = Array.from({ length: 16 }, async () => {
        while (running) outcomes.push(await probe(base))
      })
      await new Promise((r) => setTimeout(r, 400))
      process.kill(victim, 'SIGKILL')
      await new Promise((r) => setTimeout(r, 1000))
      running = false
      await Promise.all(streams)
    }
    const hung = outcomes.filter((o) => o === 'hung').length
    assert.ok(outcomes.length > 300, `enough connections were in flight (${outcomes.length})`)
    assert.equal(hung, 0, `${hung} of ${outcomes.length} connections were left hanging`)
  })
})
