/**
 * The edge an attacker probes first: links never built from a forged Host, an absolute-form target or a
 * forged X-Forwarded-Proto; one Host header; canonical path ids; security headers on every response.
 */
import assert from 'node:assert/strict'
import net from 'node:net'
import { after, before, describe, test } from 'node:test'
import { signedIn, testApp, type TestContext } from './helpers/app.ts'

let ctx: TestContext
let proxied: TestContext
let configured: TestContext
before(async () => {
  ctx = await testApp()
  proxied = await testApp({ TRUST_PROXY: '1' })
  configured = await testApp({ PUBLIC_URL: 'https://procurement.example.com/' })
})
after(async () => {
  await ctx.close()
  await proxied.close()
  await configured.close()
})

/** Sends bytes as they are (no client library normalises the request line or headers) and reads the whole answer. */
function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text))
    let answer = ''
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()))
    socket.on('end', () => resolve(answer))
    socket.on('error', reject)
  })
}

const EVIL = /evil\.example|javascript:|6666/i
const everything = (response: { body: string; headers: Record<string, unknown> }) =>
  `${JSON.stringify(response.headers)}\n${response.body}`

describe('links come from configuration, not from the request', () => {
  test('a forged Host, a forged port and X-Forwarded-Proto: javascript appear nowhere in a response', async () => {
    for (const app of [ctx, proxied]) {
      const { api } = await signedIn(app)
      const forged = {
        host: 'evil.example:6666',
        'x-forwarded-proto': 'javascript',
        'x-forwarded-host': 'evil.example',
      }
      for (const url of [
        '/api/v3/vendors/?page_size=2',
        '/api/v3/vendors/?page_size=2&page=2',
        '/api/v3/users/?page_size=1&format=csv',
      ]) {
        const response = await api({ method: 'GET', url, headers: forged })
        assert.equal(response.statusCode, 200, response.body)
        assert.doesNotMatch(everything(response), EVIL, url)
      }
      const created = await api({
        method: 'POST',
        url: '/api/v3/vendors/',
        payload: { name: 'Linked' },
        headers: forged,
      })
      assert.equal(created.statusCode, 201)
      assert.doesNotMatch(everything(created), EVIL)
      assert.match(String(created.headers.location), /^http:\/\/127\.0\.0\.1:3000\/api\/v3\/vendors\/\d+\/$/)
    }
  })

  test('an absolute-form target naming another host is a 400; naming the Host it is served as a path', async () => {
    const { token } = await signedIn(ctx)
    const address = await ctx.app.listen({ port: 0, host: '127.0.0.1' })
    try {
      const { port } = new URL(address)
      const raw = (target: string) =>
        rawRequest(
          Number(port),
          `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\nX-Service-Client: api\r\nConnection: close\r\n\r\n`,
        )
      const other = await raw('http://evil.example/api/v3/vendors/?page_size=1')
      assert.match(other, /^HTTP\/1\.1 400 /)
      assert.doesNotMatch(other, EVIL)
      const same = await raw(`http://127.0.0.1:${port}/api/v3/vendors/?page_size=1`)
      assert.match(same, /^HTTP\/1\.1 200 /)
      assert.ok(same.includes(`"next":"http://127.0.0.1:${port}/api/v3/vendors/?page_size=1&page=2"`), same)
      const twoHosts = await rawRequest(
        Number(port),
        `GET /api/v3/vendors/ HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\nAuthorization: Bearer ${token}\r\nX-Service-Client: api\r\nConnection: close\r\n\r\n`,
      )
      assert.match(twoHosts, /^HTTP\/1\.1 400 /)
    } finally {
      await new Promise((resolve) => ctx.app.server.close(resolve))
    }
  })

  test('PUBLIC_URL makes links absolute under it', async () => {
    const { api } = await signedIn(configured)
    const page = await api({ method: 'GET', url: '/api/v3/vendors/?page_size=1', headers: { host: 'evil.example' } })
    assert.equal(
      page.json().metadata.pagination.next,
      'https://procurement.example.com/api/v3/vendors/?page_size=1&page=2',
    )
    const created = await api({ method: 'POST', url: '/api/v3/vendors/', payload: { name: 'Absolute' } })
    assert.match(String(created.headers.location), /^https:\/\/procurement\.example\.com\/api\/v3\/vendors\/\d+\/$/)
  })
})

describe('the request line and headers', () => {
  test('two Host headers are a 400', async () => {
    const { token } = await signedIn(ctx)
    const response = await ctx.app.inject({
      method: 'GET',
      url: '/api/v3/vendors/',
      headers: {
        authorization: `Bearer ${token}`,
        'x-service-client': 'api',
        host: ['localhost', 'evil.example'] as unknown as string,
      },
    })
    assert.equal(response.statusCode, 400, response.body)
  })

  test('path ids are canonical decimal integers: 1e0, +1, 01, 0x1 and 1.0 are 400 naming the parameter', async () => {
    const { api } = await signedIn(ctx)
    const id = (await api({ method: 'GET', url: '/api/v3/vendors/?page_size=1' })).json().data[0].id as number
    assert.equal((await api({ method: 'GET', url: `/api/v3/vendors/${id}/` })).statusCode, 200)
    for (const bad of ['1e0', '+1', '01', '0x1', '1.0', '%201', '-1', 'abc']) {
      const response = await api({ method: 'GET', url: `/api/v3/vendors/${bad}/` })
      assert.equal(response.statusCode, 400, bad)
      assert.ok(response.json().errors.id, `${bad}: the error names id`)
      assert.match(response.json().detail, /path/)
    }
  })
})

describe('security headers', () => {
  test('nosniff and a referrer policy everywhere; no-store on API and token responses; a strict CSP on HTML', async () => {
    const { api, creds } = await signedIn(ctx)
    const responses = [
      await api({ method: 'GET', url: '/api/v3/vendors/' }),
      await api({ method: 'GET', url: '/api/v3/vendors/999999/' }),
      await ctx.app.inject({
        method: 'POST',
        url: '/oauth/token',
        payload: { ...creds, audience: 'x', grant_type: 'client_credentials' },
      }),
    ]
    for (const response of responses) {
      assert.equal(response.headers['x-content-type-options'], 'nosniff')
      assert.equal(response.headers['referrer-policy'], 'no-referrer')
      assert.match(String(response.headers['cache-control']), /no-store/)
    }
    const health = await ctx.app.inject('/healthz')
    assert.equal(health.headers['x-content-type-options'], 'nosniff')
    const docs = await ctx.app.inject('/docs/')
    assert.equal(docs.statusCode, 200)
    assert.match(String(docs.headers['content-type']), /text\/html/)
    assert.match(String(docs.headers['content-security-policy']), /frame-ancestors 'none'/)
    assert.match(String(docs.headers['content-security-policy']), /default-src 'self'/)
  })

  test('CORS is off by default; CORS_ORIGINS allows exactly the listed origins', async () => {
    const preflight = (app: TestContext, origin: string) =>
      app.app.inject({
        method: 'OPTIONS',
        url: '/api/v3/vendors/',
        headers: {
          origin,
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'authorization,x-service-client',
        },
      })
    const off = await preflight(ctx, 'https://app.example.com')
    assert.equal(off.headers['access-control-allow-origin'], undefined)
    const cors = await testApp({ CORS_ORIGINS: 'https://app.example.com' })
    try {
      const allowed = await preflight(cors, 'https://app.example.com')
      assert.equal(allowed.headers['access-control-allow-origin'], 'https://app.example.com')
      assert.match(String(allowed.headers['access-control-allow-headers']).toLowerCase(), /x-service-client/)
      const other = await preflight(cors, 'https://evil.example')
      assert.equal(other.headers['access-control-allow-origin'], undefined)
      const { api } = await signedIn(cors)
      const get = await api({ method: 'GET', url: '/api/v3/vendors/', headers: { origin: 'https://app.example.com' } })
      assert.equal(get.headers['access-control-allow-origin'], 'https://app.example.com')
    } finally {
      await cors.close()
    }
  })
})
