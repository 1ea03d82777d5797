/**
 * Slow clients (issue 20 item 4), over real sockets: headers or a body sent a byte at a time must not hold a
 * connection past HEADERS_TIMEOUT_SECONDS / REQUEST_TIMEOUT_SECONDS (plus Node's one-second check), and a
 * burst of such connections must not starve the requests of everyone else.
 */
import assert from 'node:assert/strict'
import net, { type AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { testApp, type TestContext } from './helpers/app.ts'

let ctx: TestContext
let port: number
before(async () => {
  ctx = await testApp({ HEADERS_TIMEOUT_SECONDS: '1', REQUEST_TIMEOUT_SECONDS: '2', LOG_LEVEL: 'warn' })
  await ctx.app.listen({ port: 0, host: '127.0.0.1' })
  port = (ctx.app.server.address() as AddressInfo).port
})
after(() => ctx.close())

/**
 * Opens a connection, writes `head`, then one byte of `trickle` every 200 ms, forever. Resolves when the
 * server closes it (with what it answered and after how long), or with `held` after `giveUpMs`.
 */
function slowClient(head: string, giveUpMs: number) {
  return new Promise<{ answer: string; ms: number; held: boolean }>((resolve) => {
    const started = Date.now()
    const socket = net.connect(port, '127.0.0.1', () => socket.write(head))
    let answer = ''
    const drip = setInterval(() => socket.writable && socket.write('a'), 200)
    const done = (held: boolean) => {
      clearInterval(drip)
      clearTimeout(timer)
      socket.destroy()
      resolve({ answer, ms: Date.now() - started, held })
    }
    const timer = setTimeout(() => done(true), giveUpMs)
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()))
    socket.on('close', () => done(false))
    socket.on('error', () => done(false))
  })
}

const slowBody = (path: string) =>
  `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"client_id":"`
const slowHeaders = (path: string) => `POST ${path} HTTP/1.1\r\nHost: localhost\r\nX-Slow: `

describe('slow requests are cut off', () => {
  for (const path of ['/oauth/token', '/console/sign-in', '/api/v3/vendors/']) {
    test(`a body trickled to ${path} → 408 and closed within the limit`, async () => {
      const result = await slowClient(slowBody(path), 8000)
      assert.equal(result.held, false, `still open after ${result.ms} ms`)
      assert.ok(result.ms < 4000, `closed after ${result.ms} ms`)
      // The API refuses a request without credentials before reading its body; the others wait for it: 408.
      assert.match(result.answer, path.startsWith('/api/') ? /^HTTP\/1\.1 4\d\d / : /^HTTP\/1\.1 408 /)
    })
  }

  test('headers trickled → 408 and closed within the headers limit', async () => {
    const result = await slowClient(slowHeaders('/console/sign-in'), 8000)
    assert.equal(result.held, false, `still open after ${result.ms} ms`)
    assert.ok(result.ms < 3000, `closed after ${result.ms} ms`)
    assert.match(result.answer, /^HTTP\/1\.1 408 /)
  })

  test('200 slow connections at once: ordinary requests still answer at once, and every slow one is closed', async () => {
    const slow = Array.from({ length: 200 }, (_, i) =>
      slowClient(i % 2 === 0 ? slowBody('/oauth/token') : slowHeaders('/console/sign-in'), 8000),
    )
    await new Promise((resolve) => setTimeout(resolve, 300))
    for (let i = 0; i < 20; i++) {
      const started = Date.now()
      const response = await fetch(`http://127.0.0.1:${port}/healthz`)
      assert.equal(response.status, 200)
      assert.ok(Date.now() - started < 500, `a normal request took ${Date.now() - started} ms`)
    }
    const results = await Promise.all(slow)
    assert.equal(results.filter((r) => r.held).length, 0, 'every slow connection was closed')
  })
})
