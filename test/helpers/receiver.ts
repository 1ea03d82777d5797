/** A webhook receiver on 127.0.0.1 that records every request and answers as the test says. */
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Received {
  headers: Record<string, string>
  body: string
  at: number
}

export interface Receiver {
  url: string
  received: Received[]
  /** Waits until `count` requests have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>
  close(): Promise<void>
}

/** `answer` picks the status (and optional body/headers) of the n-th request (0-based). */
export async function startReceiver(
  answer: (n: number, request: Received) => number | { status: number; body?: string; delayMs?: number } = () => 200,
): Promise<Receiver> {
  const received: Received[] = []
  const waiters = new Set<() => void>()
  // Answers not yet sent (a slow receiver's): close() drops them, or their timers keep the test's process alive.
  const pending = new Set<NodeJS.Timeout>()
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const r: Received = {
        headers: Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)])),
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      }
      const n = received.length
      received.push(r)
      for (const w of waiters) w()
      const a = answer(n, r)
      const { status, body, delayMs } = typeof a === 'number' ? { status: a, body: undefined, delayMs: 0 } : a
      const timer = setTimeout(() => {
        pending.delete(timer)
        if (status >= 300 && status < 400) response.setHeader('location', 'http://127.0.0.1:1/elsewhere')
        response.writeHead(status).end(body ?? '')
      }, delayMs ?? 0)
      pending.add(timer)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    waitFor: (count, timeoutMs = 15_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (received.length >= count) {
            waiters.delete(check)
            clearTimeout(timer)
            resolve(received)
          }
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`${received.length} of ${count} webhook requests arrived within ${timeoutMs} ms`))
        }, timeoutMs)
        waiters.add(check)
        check()
      }),
    close: () =>
      new Promise((resolve) => {
        for (const timer of pending) clearTimeout(timer)
        pending.clear()
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
