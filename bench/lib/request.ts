/** One request at a time, timed: for what a load generator cannot do (a fresh body each time, any Host). */
import http from 'node:http'
import { onCleanup } from './cleanup.ts'

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
onCleanup(() => agent.destroy())

/** One request over a kept-alive connection (node:http, so any Host header can be sent); with its time in ms. */
export function request(
  base: string,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint()
    const req = http.request(
      `${base}${options.path}`,
      { method: options.method ?? 'GET', headers: options.headers ?? {}, agent },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            ms: Number(process.hrtime.bigint() - start) / 1e6,
          }),
        )
        res.on('error', reject)
      },
    )
    req.setTimeout(30_000, () => req.destroy(new Error(`no answer from ${base}${options.path} in 30 s`)))
    req.on('error', reject)
    req.end(options.body)
  })
}
