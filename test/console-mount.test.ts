/**
 * The console is an app of its own, mounted at /console and built on first use (http/mount.ts): a start
 * does not register its routes. So is SCIM, at /scim/v2. These tests build the service's app the way `serve` does — without
 * building the console — and check that its first requests, and everything around them, answer as the
 * console always has: one build however many requests come at once, the edges (headers, HEAD, bad paths,
 * forged hosts), one log line and one count per request, bodies read by the console, and closing.
 */
import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { after, describe, test } from 'node:test'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { mount } from '../src/http/mount.ts'
import { RouteMetrics } from '../src/http/route-metrics.ts'
import { shell } from '../src/http/shell.ts'
import { TEST_AUDIENCE, testKeys, useTestApp } from './helpers/app.ts'
import { rawRequest } from './helpers/raw-http.ts'

const ctx = useTestApp()

/** The service's app as `serve` builds it (the console not built), with its log lines. */
async function servedApp(env: Record<string, string> = {}) {
  const logs: string[] = []
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(chunk.toString())
      done()
    },
  })
  const config = loadConfig({ API_AUDIENCE: TEST_AUDIENCE, DEMO_SEED: 'false', LOG_LEVEL: 'info', ...env })
  const app = await buildApp({ config, database: ctx.database, keys: testKeys(), logStream })
  await app.ready()
  return { app, logs }
}

const consoleRoutes = (app: Awaited<ReturnType<typeof servedApp>>['app']) =>
  app.routeTable.filter((route) => route.url.startsWith('/console')).length

describe('the console, built on first use', () => {
  test('a start registers none of its routes; its first request builds it and is answered as a page', async () => {
    const { app } = await servedApp()
    after(() => app.close())
    assert.equal(consoleRoutes(app), 0, 'not built by the start')
    const page = await app.inject({ url: '/console/sign-in' })
    assert.equal(page.statusCode, 200)
    assert.match(page.headers['content-type'] as string, /^text\/html/)
    assert.match(page.body, /<form/)
    assert.match(page.headers['content-security-policy'] as string, /default-src 'self'/)
    assert.equal(page.headers['referrer-policy'], 'same-origin')
    assert.equal(page.headers['x-frame-options'], 'DENY')
    assert.ok(page.headers['x-request-id'])
    assert.ok(consoleRoutes(app) > 50, 'its routes join the table for 405s and tests')
  })

  test('requests that arrive together share one build', async () => {
    const { app } = await servedApp()
    after(() => app.close())
    const pages = await Promise.all(Array.from({ length: 8 }, () => app.inject({ url: '/console/sign-in' })))
    assert.deepEqual(
      pages.map((page) => page.statusCode),
      Array(8).fill(200),
    )
    const urls = app.routeTable.map((route) => route.url)
    assert.equal(new Set(urls).size, urls.length, 'no route entered twice')
  })

  test('prepareMounts builds it ahead of any request, once', async () => {
    const { app } = await servedApp()
    after(() => app.close())
    await Promise.all([app.prepareMounts(), app.prepareMounts()])
    const built = consoleRoutes(app)
    assert.ok(built > 50)
    await app.prepareMounts()
    assert.equal(consoleRoutes(app), built)
    assert.equal((await app.inject({ url: '/console/sign-in' })).statusCode, 200)
  })

  test('a request ID, a forged Host, a bad path and an unknown page are answered as before', async () => {
    const { app } = await servedApp()
    after(() => app.close())
    const given = await app.inject({ url: '/console/sign-in', headers: { 'x-request-id': 'trace-42' } })
    assert.equal(given.headers['x-request-id'], 'trace-42')
    const forged = await app.inject({ url: '/console/sign-in', headers: { host: 'evil.example/../x' } })
    assert.equal(forged.statusCode, 400)
    assert.match(forged.body, /Host header/)
    const badPath = await app.inject({ url: '/console/%E0%A4%A' })
    assert.equal(badPath.statusCode, 400)
    assert.match(badPath.headers['content-type'] as string, /^text\/html/, 'a console page, not JSON')
    assert.match(badPath.body, /request path is not valid/)
    // Signed out, any other console address leads to the sign-in page.
    const missing = await app.inject({ url: '/console/no-such-page' })
    assert.equal(missing.statusCode, 303)
    assert.match(String(missing.headers.location), /^\/console\/sign-in/)
    // Not the console: the service's own answers, as before.
    const near = await app.inject({ url: '/consoles' })
    assert.equal(near.statusCode, 404)
    assert.match(near.headers['content-type'] as string, /problem\+json/)
  })

  test('a posted form reaches the console with its body', async () => {
    const { app } = await servedApp()
    after(() => app.close())
    const posted = await app.inject({
      method: 'POST',
      url: '/console/sign-in',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'email=nobody%40example.com&password=not-the-password-1234',
    })
    // Read and judged by the console: a wrong e-mail or password, said on the sign-in page.
    assert.equal(posted.statusCode, 401)
    assert.match(posted.headers['content-type'] as string, /^text\/html/)
    assert.match(posted.body, /<form/)
  })

  test('HEAD on a console page: the GET headers, no body', async () => {
    const { app } = await servedApp()
    after(() => app.close())
    await app.listen({ port: 0, host: '127.0.0.1' })
    const address = app.server.address()
    assert.ok(typeof address === 'object' && address !== null)
    const url = `http://127.0.0.1:${address.port}/console/sign-in`
    const head = await fetch(url, { method: 'HEAD' })
    assert.equal(head.status, 200)
    assert.equal((await head.arrayBuffer()).byteLength, 0)
    const get = await fetch(url)
    assert.equal(head.headers.get('content-type'), get.headers.get('content-type'))
    assert.equal(head.headers.get('content-length'), get.headers.get('content-length'))
  })

  test('a target in absolute form, or with its path percent-encoded, reaches the console as the router reads it', async () => {
    const { app } = await servedApp()
    after(() => app.close())
    await app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = app.server.address() as { port: number }
    const get = (target: string) =>
      rawRequest(port, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`)
    for (const target of [
      `http://127.0.0.1:${port}/console/sign-in`,
      '/%63onsole/sign-in',
      '/console/sign-in?next=x',
    ]) {
      const answer = await get(target)
      assert.match(answer, /^HTTP\/1\.1 200 /, target)
      assert.match(answer, /content-type: text\/html/i, target)
    }
  })

  test('one log line and one count per console request, under its own route', async () => {
    const { app, logs } = await servedApp()
    after(() => app.close())
    await app.inject({ url: '/console/sign-in' })
    await app.inject({ url: '/console/sign-in' })
    const lines = logs.map((line) => JSON.parse(line) as { msg?: string; route?: string | null; method?: string })
    const requests = lines.filter((line) => line.msg === 'request')
    assert.deepEqual(
      requests.map((line) => line.route),
      ['/console/sign-in', '/console/sign-in'],
    )
    const metrics = (await app.inject({ url: '/metrics' })).body
    assert.match(metrics, /http_requests_total\{method="GET",route="\/console\/sign-in",status="200"\} 2/)
    assert.doesNotMatch(metrics, /route="unmatched"/)
  })

  test('closing the app closes the console; a closed app builds nothing more', async () => {
    const { app } = await servedApp()
    assert.equal((await app.inject({ url: '/console/sign-in' })).statusCode, 200)
    await app.close()
    await assert.rejects(app.prepareMounts(), /closed/)
  })
})

describe('SCIM, built on first use too', () => {
  test('a start registers none of its routes; its first request is answered as SCIM answers, and counted once', async () => {
    const { app } = await servedApp()
    after(() => app.close())
    const scimRoutes = () => app.routeTable.filter((route) => route.url.startsWith('/scim/v2')).length
    assert.equal(scimRoutes(), 0, 'not built by the start')
    const refused = await app.inject({ url: '/scim/v2/Users', headers: { authorization: 'Bearer not-a-token' } })
    assert.equal(refused.statusCode, 401)
    assert.match(refused.headers['content-type'] as string, /^application\/scim\+json/)
    assert.equal(refused.headers['www-authenticate'], 'Bearer realm="scim"')
    assert.deepEqual(refused.json<{ schemas: string[] }>().schemas, ['urn:ietf:params:scim:api:messages:2.0:Error'])
    assert.ok(scimRoutes() > 5, 'its routes join the table')
    const metrics = (await app.inject({ url: '/metrics' })).body
    assert.match(metrics, /http_requests_total\{method="GET",route="\/scim\/v2\/Users",status="401"\} 1/)
    // A path that is not valid percent-encoding: refused in SCIM's error schema (DECISIONS), not as a problem.
    const badPath = await app.inject({ url: '/scim/v2/%E0%A4%A' })
    assert.equal(badPath.statusCode, 400)
    assert.match(badPath.headers['content-type'] as string, /^application\/scim\+json/)
    assert.deepEqual(badPath.json<{ schemas: string[]; status: string }>().status, '400')
    assert.match(badPath.json<{ detail: string }>().detail, /request path is not valid/)
  })
})

describe('a mounted app that fails to build', () => {
  test('its requests get a 503 problem from the app it is mounted on, logged and counted there; the next request tries again', async () => {
    const logs: string[] = []
    const config = loadConfig({ API_AUDIENCE: TEST_AUDIENCE, DEMO_SEED: 'false', LOG_LEVEL: 'info' })
    const routes = new RouteMetrics()
    let attempts = 0
    const app = await shell({
      config,
      log: { stream: { write: (line: string) => void logs.push(line) } },
      routes,
      badPath: () => undefined,
      first: (app) =>
        void mount(app, '/part', async () => {
          attempts++
          if (attempts === 1) throw new Error('the part cannot start')
          const part = await shell({ config, log: { logger: app.log }, routes, badPath: () => undefined })
          part.get('/part/hello', async () => ({ hello: 'there' }))
          return part
        }),
    })
    app.get('/elsewhere', async () => ({ ok: true }))
    after(() => app.close())
    const failed = await app.inject({ url: '/part/hello' })
    assert.equal(failed.statusCode, 503)
    assert.match(failed.headers['content-type'] as string, /^application\/problem\+json/)
    assert.equal(failed.headers['retry-after'], '1')
    assert.ok(failed.headers['x-request-id'], 'the edges of the app it is mounted on')
    assert.match(failed.json<{ detail: string }>().detail, /Try again in a moment/)
    const lines = logs.join('')
    assert.match(lines, /the part cannot start/)
    assert.match(lines, /"status":503[^\n]*"msg":"request"/, 'a request line, as for any other request')
    assert.equal((await app.inject({ url: '/elsewhere' })).statusCode, 200)
    const retried = await app.inject({ url: '/part/hello' })
    assert.equal(retried.statusCode, 200)
    assert.deepEqual(retried.json(), { hello: 'there' })
    assert.equal(attempts, 2)
  })
})
