/**
 * The load generator for writes on fresh resources (bench/orders.ts, bench/bills.ts), in its own process:
 * sends a fixed list of requests (each naming its own prepared order, request or bill, so no two do the
 * same write), `connections` at a time over kept-alive connections, and prints what came back as JSON.
 * autocannon and wrk send one body to one URL; these requests differ, and each must be sent exactly once.
 * Run by the harness: node --import tsx bench/p2p/sender.ts <job.json>
 */
import fs from 'node:fs'
import http from 'node:http'

export interface Job {
  base: string
  headers: Record<string, string>
  connections: number
  requests: { method: string; path: string; body?: string }[]
}
export interface Sent {
  ok: number
  answered: number
  errors: number
  seconds: number
  rps: number
  p50: number
  p99: number
  /** The first answers that were not 2xx (status and body), to say why. */
  failures: string[]
}

const job = JSON.parse(fs.readFileSync(process.argv[2]!, 'utf8')) as Job
const agent = new http.Agent({ keepAlive: true, maxSockets: job.connections })
const timeoutMs = Number(process.env.BENCH_REQUEST_TIMEOUT_SECONDS ?? 10) * 1000

function send(r: Job['requests'][number]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${job.base}${r.path}`,
      {
        method: r.method,
        agent,
        headers: { ...job.headers, ...(r.body === undefined ? {} : { 'content-type': 'application/json' }) },
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }))
        res.on('error', reject)
      },
    )
    req.setTimeout(timeoutMs, () => req.destroy(new Error('timeout')))
    req.on('error', reject)
    req.end(r.body)
  })
}

const latencies: number[] = []
const failures: string[] = []
let ok = 0
let answered = 0
let errors = 0
let next = 0
const start = performance.now()
await Promise.all(
  Array.from({ length: job.connections }, async () => {
    while (next < job.requests.length) {
      const r = job.requests[next++]!
      const begin = performance.now()
      try {
        const answer = await send(r)
        latencies.push(performance.now() - begin)
        answered++
        if (answer.status >= 200 && answer.status < 300) ok++
        else if (failures.length < 3) failures.push(`${answer.status} ${answer.body.slice(0, 500)}`)
      } catch (error) {
        errors++
        if (failures.length < 3) failures.push((error as Error).message)
      }
    }
  }),
)
const seconds = (performance.now() - start) / 1000
agent.destroy()
latencies.sort((a, b) => a - b)
const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0
const sent: Sent = { ok, answered, errors, seconds, rps: ok / seconds, p50: at(0.5), p99: at(0.99), failures }
process.stdout.write(JSON.stringify(sent))
