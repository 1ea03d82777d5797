/**
 * The deliveries benchmark's floor (bench/events.ts), in a process of its own as the server's worker is: the
 * same signed POSTs to the same kind of receiver, `concurrency` at a time over node's default (kept-alive)
 * agent, and nothing else. Reads its job from the JSON file named by the first argument; prints
 * `{"rate": <POSTs per second>}`.
 */
import fs from 'node:fs'
import http from 'node:http'
import { signedHeaders } from '../../src/webhooks/signing.ts'

interface Job {
  url: string
  secret: string
  concurrency: number
  bodies: { id: string; body: string }[]
}

const job = JSON.parse(fs.readFileSync(process.argv[2]!, 'utf8')) as Job
const one = (item: { id: string; body: string }) =>
  new Promise<void>((resolve, reject) => {
    const request = http.request(job.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(item.body),
        ...signedHeaders([job.secret], item.id, item.body),
      },
    })
    request.on('response', (response) => response.resume().on('end', () => resolve()))
    request.on('error', reject)
    request.end(item.body)
  })

let next = 0
const start = performance.now()
await Promise.all(
  Array.from({ length: job.concurrency }, async () => {
    while (next < job.bodies.length) await one(job.bodies[next++]!)
  }),
)
console.log(JSON.stringify({ rate: (job.bodies.length / (performance.now() - start)) * 1000 }))
