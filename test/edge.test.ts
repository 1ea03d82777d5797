/**
 * The edge an attacker probes first: links never built from a forged Host, an absolute-form target or a
 * forged X-Forwarded-Proto; one Host header; canonical path ids; security headers on every response.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { signedIn, testApp, type TestContext } from './helpers/app.ts'
import { rawRequest } from './helpers/raw-http.ts'

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

describe('HEAD', () => {
  /** The status line, the headers (lower-cased names) and every byte after them, of one raw exchange. */
  function parsed(answer: string) {
    const [head = '', ...rest] = answer.split('\r\n\r\n')
    const [status = '', ...lines] = head.split('\r\n')
    const headers = new Map(
      lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
    )
    return { status, headers, body: rest.join('\r\n\r\n') }
  }

  test('HEAD answers as GET does, headers and all, with no body; on a path without GET it is a 405 or a 404', async () => {
    const served = await testApp()
    try {
      const { token } = await signedIn(served)
      const { port } = new URL(await served.app.listen({ port: 0, host: '127.0.0.1' }))
      const exchange = async (method: string, path: string) =>
        parsed(
          await rawRequest(
            Number(port),
            `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\nX-Service-Client: api\r\nConnection: close\r\n\r\n`,
          ),
        )
      for (const path of ['/api/v3/vendors/?page_size=1', '/console/sign-in', '/healthz', '/openapi.json']) {
        const get = await exchange('GET', path)
        const head = await exchange('HEAD', path)
        assert.match(get.status, /^HTTP\/1\.1 200 /, path)
        assert.equal(head.status, get.status, path)
        assert.equal(head.body, '', `HEAD ${path} sent a body`)
        assert.ok(get.body.length > 0, path)
        for (const name of ['content-type', 'content-length', 'cache-control', 'x-content-type-options']) {
          assert.equal(head.headers.get(name), get.headers.get(name), `${name} of HEAD ${path}`)
        }
      }
      const postOnly = await exchange('HEAD', '/oauth/token')
      assert.match(postOnly.status, /^HTTP\/1\.1 405 /)
      assert.equal(postOnly.headers.get('allow'), 'POST')
      assert.equal(postOnly.body, '')
      const nowhere = await exchange('HEAD', '/api/v3/no-such-thing/')
      assert.match(nowhere.status, /^HTTP\/1\.1 404 /)
      assert.equal(nowhere.body, '')
    } finally {
      await served.close()
    }
  })

  test('what runs after routing sees HEAD, the method the client sent; Allow names HEAD wherever GET is', async () => {
    const { api } = await signedIn(ctx)
    const head = await api({
      method: 'HEAD',
      url: '/api/v3/vendors/?page_size=1',
      headers: { 'x-request-id': 'head-1' },
    })
    assert.equal(head.statusCode, 200)
    assert.equal(head.body, '')
    const line = ctx.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.request_id === 'head-1')
    assert.equal(line?.method, 'HEAD', JSON.stringify(line))
    assert.equal(line?.route, '/api/v3/vendors/')
    const onGetOnly = await api({ method: 'DELETE', url: '/healthz' })
    assert.equal(onGetOnly.statusCode, 405)
    assert.match(String(onGetOnly.headers.allow), /^GET, HEAD/)
    assert.match(onGetOnly.json().detail, /^DELETE is not allowed on \/healthz; use GET, HEAD/)
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

const NAME_REFUSED =
  'must not contain control characters or text-direction marks (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069); remove them'

describe('names refuse control characters and text-direction marks, in every resource', () => {
  test('vendors, departments, the four vendor look-ups, roles and locations: 400 naming the field', async () => {
    const { api } = await signedIn(ctx)
    const location = (await api({ method: 'GET', url: '/api/v3/locations/?order_by=id' })).json().data[0]
    const writes: ['POST' | 'PUT', string, (name: string) => Record<string, unknown>][] = [
      ['POST', '/api/v3/vendors/', (name) => ({ name })],
      ['POST', '/api/v3/departments/', (name) => ({ name, location: location.id })],
      ['POST', '/api/v3/payment-terms/', (name) => ({ name })],
      ['POST', '/api/v3/shipping-terms/', (name) => ({ name })],
      ['POST', '/api/v3/payment-methods/', (name) => ({ name })],
      ['POST', '/api/v3/shipping-methods/', (name) => ({ name })],
      ['POST', '/api/v3/roles/', (name) => ({ name, permissions: ['nav_request'] })],
      ['PUT', `/api/v3/locations/${location.id}/`, (name) => ({ ...location, name })],
    ]
    for (const [method, url, body] of writes) {
      for (const bad of ['O\u202Eps', 'D\u0007x', 'A\u061Cb', 'L\u200Er', 'R\u200Fl', 'I\u2066s\u2069', 'Tab\there']) {
        const response = await api({ method, url, payload: body(bad) })
        assert.equal(response.statusCode, 400, `${method} ${url} ${JSON.stringify(bad)}: ${response.body}`)
        assert.deepEqual(response.json().errors.name, [NAME_REFUSED], `${url} ${JSON.stringify(bad)}`)
      }
      const fine = await api({ method, url, payload: body(`Café 東京 🚀 ${url.length}`) })
      assert.ok([200, 201].includes(fine.statusCode), `${url}: ${fine.body}`)
    }
  })

  test("a location's address names are names too", async () => {
    const { api } = await signedIn(ctx)
    const location = (await api({ method: 'GET', url: '/api/v3/locations/?order_by=id' })).json().data[0]
    const response = await api({
      method: 'PUT',
      url: `/api/v3/locations/${location.id}/`,
      payload: { ...location, primary_billing_address: { ...location.primary_billing_address, name: 'Bill\u202Eto' } },
    })
    assert.equal(response.statusCode, 400, response.body)
    assert.deepEqual(response.json().errors['primary_billing_address.name'], [NAME_REFUSED])
  })
})

const LOOKUP_LISTS = [
  'currencies',
  'legal-entities',
  'departments',
  'roles',
  'payment-terms',
  'shipping-terms',
  'payment-methods',
  'shipping-methods',
]
const listUrl = (list: string) => (list === 'currencies' ? '/api/v2/currencies/' : `/api/v3/${list}/`)

describe('updated_since', () => {
  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10)

  test('approvals, approval rules and every updated_since list take it, a date alone as 00:00 UTC', async () => {
    const { api } = await signedIn(ctx)
    const me = (await api({ method: 'GET', url: '/api/v3/users/me/' })).json().data
    const rule = await api({ method: 'POST', url: '/api/v3/approval-rules/', payload: { step: 1, approvers: [me.id] } })
    assert.equal(rule.statusCode, 201, rule.body)
    const vendor = await api({ method: 'POST', url: '/api/v3/vendors/', payload: { name: 'Changed today' } })
    assert.equal(vendor.statusCode, 201, vendor.body)
    for (const list of ['approvals', 'approval-rules', 'vendors', 'locations', 'users', 'requests', ...LOOKUP_LISTS]) {
      const old = await api({ method: 'GET', url: `${listUrl(list)}?updated_since=2020-01-01` })
      assert.equal(old.statusCode, 200, `${list}: ${old.body}`)
      const future = await api({ method: 'GET', url: `${listUrl(list)}?updated_since=${day(2)}` })
      assert.equal(future.statusCode, 200, `${list}: ${future.body}`)
      assert.equal(future.json().metadata.pagination.count, 0, list)
      const instant = await api({ method: 'GET', url: `${listUrl(list)}?updated_since=2020-01-01T00:00:00Z` })
      assert.equal(instant.json().metadata.pagination.count, old.json().metadata.pagination.count, list)
    }
    for (const [list, id] of [
      ['approval-rules', rule.json().data.id],
      ['vendors', vendor.json().data.id],
    ] as const) {
      // Yesterday's date (00:00 UTC) includes what changed today; tomorrow's does not.
      const since = (
        await api({ method: 'GET', url: `/api/v3/${list}/?updated_since=${day(-1)}&page_size=100` })
      ).json()
      assert.ok(
        since.data.some((row: { id: number }) => row.id === id),
        list,
      )
      const tomorrow = await api({ method: 'GET', url: `/api/v3/${list}/?updated_since=${day(1)}` })
      assert.equal(tomorrow.json().metadata.pagination.count, 0, list)
    }
    // A look-up changes when it is written: a rename moves it past a later instant; a role, when its permissions do.
    const term = (await api({ method: 'POST', url: '/api/v3/payment-terms/', payload: { name: 'Net 60' } })).json().data
    const role = await api({ method: 'POST', url: '/api/v3/roles/', payload: { name: 'Edge', permissions: [] } })
    assert.equal(role.statusCode, 201, role.body)
    const mark = new Date().toISOString()
    await new Promise((resolve) => setTimeout(resolve, 20))
    const sinceMark = async (list: string) =>
      (
        (await api({ method: 'GET', url: `${listUrl(list)}?updated_since=${mark}&page_size=100` })).json().data as {
          id: number
        }[]
      ).map((row) => row.id)
    assert.deepEqual(await sinceMark('payment-terms'), [])
    const renamed = await api({ method: 'PUT', url: `/api/v3/payment-terms/${term.id}/`, payload: { name: 'Net 61' } })
    assert.equal(renamed.statusCode, 200, renamed.body)
    assert.deepEqual(await sinceMark('payment-terms'), [term.id])
    assert.ok(!(await sinceMark('roles')).includes(role.json().data.id))
    const granted = await api({
      method: 'PUT',
      url: `/api/v3/roles/${role.json().data.id}/`,
      payload: { name: 'Edge', permissions: ['nav_request'] },
    })
    assert.equal(granted.statusCode, 200, granted.body)
    assert.deepEqual(await sinceMark('roles'), [role.json().data.id])
    const wrong = await api({ method: 'GET', url: '/api/v3/vendors/?updated_since=2020-13-01' })
    assert.equal(wrong.statusCode, 400)
    assert.deepEqual(wrong.json().errors.updated_since, [
      'must be a date like 2026-01-31 or a date and time like 2026-01-31T09:30:00Z',
    ])
  })
})

describe('GET /', () => {
  test('the redirect and the index are absolute URLs on the public base', async () => {
    const browser = await configured.app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html' } })
    assert.equal(browser.statusCode, 303)
    assert.equal(browser.headers.location, 'https://procurement.example.com/console/')
    const index = (await configured.app.inject({ method: 'GET', url: '/', headers: { host: 'evil.example' } })).json()
    assert.equal(index.console, 'https://procurement.example.com/console/')
    assert.equal(index.api_reference, 'https://procurement.example.com/docs/')
    assert.equal(index.openapi, 'https://procurement.example.com/openapi.json')
    const plain = await ctx.app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html' } })
    assert.match(String(plain.headers.location), /^http:\/\/127\.0\.0\.1:\d+\/console\/$/)
    for (const link of Object.values(
      (await ctx.app.inject({ method: 'GET', url: '/' })).json<Record<string, string>>(),
    ))
      assert.match(link, /^http:\/\/127\.0\.0\.1:\d+\//)
  })
})

describe('pages', () => {
  test('any page up to 2147483647 is a page: past the last it is a 404, beyond that a 400', async () => {
    const { api } = await signedIn(ctx)
    for (const page of ['1000001', '2147483647']) {
      const response = await api({ method: 'GET', url: `/api/v3/vendors/?page=${page}&page_size=100` })
      assert.equal(response.statusCode, 404, `${page}: ${response.body}`)
    }
    const filtered = await api({ method: 'GET', url: '/api/v3/vendors/?page=2147483647&page_size=100&active=true' })
    assert.equal(filtered.statusCode, 404, filtered.body)
    const beyond = await api({ method: 'GET', url: '/api/v3/vendors/?page=2147483648' })
    assert.equal(beyond.statusCode, 400)
    assert.deepEqual(beyond.json().errors.page, ['must be 2147483647 or less'])
  })
})

describe('messages at the edge are sentences', () => {
  test('a body in text/plain is a 415 that says what to send', async () => {
    const { api } = await signedIn(ctx)
    const response = await api({
      method: 'POST',
      url: '/api/v3/vendors/',
      payload: 'name=Plain',
      headers: { 'content-type': 'text/plain' },
    })
    assert.equal(response.statusCode, 415)
    assert.equal(response.json().detail, 'Send the body as application/json (this endpoint does not take text/plain).')
    const made = await api({ method: 'POST', url: '/api/v3/scim-tokens/', payload: { description: 'Edge' } })
    assert.equal(made.statusCode, 201, made.body)
    const scim = await ctx.app.inject({
      method: 'POST',
      url: '/scim/v2/Users',
      payload: 'x',
      headers: { 'content-type': 'text/plain', authorization: `Bearer ${made.json().data.token}` },
    })
    assert.equal(scim.statusCode, 415, scim.body)
    assert.match(scim.headers['content-type'] as string, /application\/scim\+json/)
    assert.equal(scim.json().detail, 'Send the body as application/scim+json (this endpoint does not take text/plain).')
  })

  test('a __proto__ key is named as not allowed', async () => {
    const { api } = await signedIn(ctx)
    for (const [payload, field] of [
      ['{"name":"V","__proto__":{"x":1}}', '__proto__'],
      ['{"name":"V","primary":{"__proto__":{}}}', 'primary.__proto__'],
      ['{"name":"V","constructor":{"prototype":{}}}', 'constructor.prototype'],
    ] as const) {
      const response = await api({
        method: 'POST',
        url: '/api/v3/vendors/',
        payload,
        headers: { 'content-type': 'application/json' },
      })
      assert.equal(response.statusCode, 400, payload)
      assert.equal(
        response.json().detail,
        `The body has the key ${field}, which is not allowed; send the body without it.`,
      )
      assert.deepEqual(response.json().errors, { [field]: ['is not allowed as a key; send the body without it'] })
    }
  })

  test('a query parameter given twice where one value is taken names the values', async () => {
    const { api } = await signedIn(ctx)
    const response = await api({ method: 'GET', url: '/api/v3/purchase-orders/?status=issued&status=draft' })
    assert.equal(response.statusCode, 400)
    assert.deepEqual(response.json().errors.status, [
      'must be one of: draft, pending_approval, issued, closed, cancelled',
    ])
  })
})
