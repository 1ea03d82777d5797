/** Access: the token endpoint, revocation, applications, and bearer authentication on every /api/ route. */
import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { after, before, describe, test } from 'node:test'
import { SignJWT, UnsecuredJWT } from 'jose'
import * as oauth from 'oauth4webapi'
import { buildApp } from '../src/app.ts'
import {
  clientFor,
  sampleTenant,
  signedIn,
  TEST_AUDIENCE,
  testApp,
  type TestContext,
  tokenFor,
  useTestApp,
} from './helpers/app.ts'

const ctx = useTestApp({ TOKEN_FAILURES_PER_CLIENT: '1000', TOKEN_FAILURES_PER_ADDRESS: '1000' })

const tokenRequest = (payload: unknown, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: 'POST', url: '/oauth/token', payload: payload as object, headers })

const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`

describe('a real OAuth client library against the running server', () => {
  let base: string
  before(async () => {
    await ctx.app.listen({ port: 0, host: '127.0.0.1' })
    const address = ctx.app.server.address()
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  })

  for (const method of ['client_secret_post', 'client_secret_basic'] as const) {
    test(`oauth4webapi obtains a token with ${method}, and it works on /api/v3/vendors/`, async () => {
      const tenant = await sampleTenant(ctx)
      const creds = await clientFor(ctx, tenant)
      const as: oauth.AuthorizationServer = { issuer: base, token_endpoint: `${base}/oauth/token` }
      const client: oauth.Client = { client_id: creds.client_id }
      const auth =
        method === 'client_secret_post'
          ? oauth.ClientSecretPost(creds.client_secret)
          : oauth.ClientSecretBasic(creds.client_secret)
      const response = await oauth.clientCredentialsGrantRequest(
        as,
        client,
        auth,
        { audience: TEST_AUDIENCE },
        { [oauth.allowInsecureRequests]: true },
      )
      assert.equal(response.headers.get('cache-control'), 'no-store')
      const result = await oauth.processClientCredentialsResponse(as, client, response)
      assert.equal(result.token_type, 'bearer')
      assert.equal(result.expires_in, 86400)
      assert.equal(result.scope, `urn:service-api:domain:${tenant.domain} urn:service-api:email:admin@example.com`)
      const vendors = await fetch(`${base}/api/v3/vendors/`, {
        headers: { authorization: `Bearer ${result.access_token}`, 'x-service-client': 'api' },
      })
      assert.equal(vendors.status, 200)
      assert.equal(
        ((await vendors.json()) as { metadata: { pagination: { count: number } } }).metadata.pagination.count,
        28,
      )
    })
  }
})

describe('token endpoint', () => {
  test('200: exact body shape and no-store headers', async () => {
    const tenant = await sampleTenant(ctx)
    const creds = await clientFor(ctx, tenant, 'buyer')
    const response = await tokenRequest({ ...creds, audience: TEST_AUDIENCE, grant_type: 'client_credentials' })
    assert.equal(response.statusCode, 200)
    assert.equal(response.headers['cache-control'], 'no-store')
    assert.equal(response.headers.pragma, 'no-cache')
    const body = response.json()
    assert.deepEqual(Object.keys(body).sort(), ['access_token', 'expires_in', 'scope', 'token_type'])
    assert.equal(body.token_type, 'Bearer')
    assert.equal(body.expires_in, 86400)
    assert.equal(body.scope, `urn:service-api:domain:${tenant.domain} urn:service-api:email:buyer@example.com`)
  })

  test('form-encoded bodies and Basic authentication are accepted', async () => {
    const creds = await clientFor(ctx, await sampleTenant(ctx))
    const form = new URLSearchParams({ ...creds, audience: TEST_AUDIENCE, grant_type: 'client_credentials' }).toString()
    const viaForm = await tokenRequest(form, { 'content-type': 'application/x-www-form-urlencoded' })
    assert.equal(viaForm.statusCode, 200)
    const viaBasic = await tokenRequest(
      { audience: TEST_AUDIENCE, grant_type: 'client_credentials' },
      { authorization: basic(creds.client_id, creds.client_secret) },
    )
    assert.equal(viaBasic.statusCode, 200)
  })

  test('every error path has its exact status and error code', async () => {
    const creds = await clientFor(ctx, await sampleTenant(ctx))
    const good = { ...creds, audience: TEST_AUDIENCE, grant_type: 'client_credentials' }
    const cases: { name: string; payload: unknown; headers?: Record<string, string>; status: number; error: string }[] =
      [
        {
          name: 'wrong grant type',
          payload: { ...good, grant_type: 'password' },
          status: 400,
          error: 'unsupported_grant_type',
        },
        {
          name: 'missing grant type',
          payload: { ...good, grant_type: undefined },
          status: 400,
          error: 'invalid_request',
        },
        { name: 'missing audience', payload: { ...good, audience: undefined }, status: 400, error: 'invalid_request' },
        {
          name: 'missing client secret',
          payload: { ...good, client_secret: undefined },
          status: 401,
          error: 'invalid_client',
        },
        {
          name: 'wrong audience',
          payload: { ...good, audience: 'https://elsewhere' },
          status: 403,
          error: 'access_denied',
        },
        { name: 'unknown client', payload: { ...good, client_id: 'pc_nobody' }, status: 401, error: 'invalid_client' },
        {
          name: 'wrong secret',
          payload: { ...good, client_secret: 'x'.repeat(43) },
          status: 401,
          error: 'invalid_client',
        },
        {
          name: 'both auth methods',
          payload: good,
          headers: { authorization: basic(creds.client_id, creds.client_secret) },
          status: 400,
          error: 'invalid_request',
        },
        {
          name: 'wrong content type',
          payload: 'client_id=x',
          headers: { 'content-type': 'text/plain' },
          status: 400,
          error: 'invalid_request',
        },
        {
          name: 'malformed JSON',
          payload: '{"client_id": ',
          headers: { 'content-type': 'application/json' },
          status: 400,
          error: 'invalid_request',
        },
        {
          name: 'JSON that is not an object',
          payload: '[1,2]',
          headers: { 'content-type': 'application/json' },
          status: 400,
          error: 'invalid_request',
        },
        {
          name: 'a field of the wrong type',
          payload: { ...good, client_id: 7 },
          status: 400,
          error: 'invalid_request',
        },
        {
          name: 'repeated form parameter',
          payload: 'grant_type=client_credentials&grant_type=x',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          status: 400,
          error: 'invalid_request',
        },
      ]
    for (const c of cases) {
      const response = await tokenRequest(c.payload, c.headers)
      assert.equal(response.statusCode, c.status, `${c.name}: ${response.body}`)
      const body = response.json()
      assert.equal(body.error, c.error, c.name)
      assert.equal(typeof body.error_description, 'string', c.name)
      assert.equal(response.headers['cache-control'], 'no-store', c.name)
    }
  })

  test('unknown client and wrong secret are indistinguishable; Basic failures say WWW-Authenticate: Basic', async () => {
    const creds = await clientFor(ctx, await sampleTenant(ctx))
    const base = { audience: TEST_AUDIENCE, grant_type: 'client_credentials' }
    const unknown = await tokenRequest({ ...base, client_id: 'pc_nobody', client_secret: 'nope' })
    const wrong = await tokenRequest({ ...base, client_id: creds.client_id, client_secret: 'nope' })
    assert.equal(unknown.body, wrong.body)
    assert.equal(unknown.statusCode, wrong.statusCode)
    const viaBasic = await tokenRequest(base, { authorization: basic(creds.client_id, 'nope') })
    assert.equal(viaBasic.statusCode, 401)
    assert.match(String(viaBasic.headers['www-authenticate']), /^Basic /)
  })

  test('a revoked application, a deactivated owner or another tenant’s host cannot get a token', async () => {
    const tenant = await sampleTenant(ctx)
    const creds = await clientFor(ctx, tenant, 'requester')
    const body = { ...creds, audience: TEST_AUDIENCE, grant_type: 'client_credentials' }
    assert.equal((await tokenRequest(body)).statusCode, 200)
    await ctx.database.db
      .updateTable('users')
      .set({ is_active: false })
      .where('id', '=', tenant.users.requester)
      .execute()
    assert.equal((await tokenRequest(body)).json().error, 'invalid_client')
    await ctx.database.db
      .updateTable('users')
      .set({ is_active: true })
      .where('id', '=', tenant.users.requester)
      .execute()
    await ctx.database.db
      .updateTable('applications')
      .set({ revoked_at: new Date() })
      .where('client_id', '=', creds.client_id)
      .execute()
    assert.equal((await tokenRequest(body)).json().error, 'invalid_client')
  })
})

describe('brute-force brake', () => {
  test('repeated failures per client id, then per address, answer 429 with Retry-After; the right secret still works', async () => {
    const strict = await testApp({ TOKEN_FAILURES_PER_CLIENT: '3', TOKEN_FAILURES_PER_ADDRESS: '5' })
    try {
      const creds = await clientFor(strict, await sampleTenant(strict))
      const attempt = (client_id: string, client_secret: string, remoteAddress = '10.0.0.1') =>
        strict.app.inject({
          method: 'POST',
          url: '/oauth/token',
          remoteAddress,
          payload: { client_id, client_secret, audience: TEST_AUDIENCE, grant_type: 'client_credentials' },
        })
      for (let i = 0; i < 2; i++) assert.equal((await attempt(creds.client_id, 'wrong', `10.1.0.${i}`)).statusCode, 401)
      const limited = await attempt(creds.client_id, 'wrong', '10.1.0.9')
      assert.equal(limited.statusCode, 429, 'the third failure for this client id, from any address')
      assert.equal(
        (await attempt(creds.client_id, creds.client_secret)).statusCode,
        200,
        'failing on purpose cannot lock the real client out',
      )
      assert.ok(Number(limited.headers['retry-after']) > 0)
      assert.equal(limited.json().error, 'temporarily_unavailable')
      // Another address is limited per address after 5 failures across made-up ids.
      for (let i = 0; i < 5; i++) assert.equal((await attempt(`pc_guess${i}`, 'x', '10.0.0.2')).statusCode, 401)
      assert.equal((await attempt('pc_guess-next', 'x', '10.0.0.2')).statusCode, 429)
      const otherCreds = await clientFor(strict, await sampleTenant(strict))
      assert.equal((await attempt(otherCreds.client_id, otherCreds.client_secret, '10.0.0.3')).statusCode, 200)
    } finally {
      await strict.close()
    }
  })
})

describe('the brake is never used against the owner', () => {
  test('a correct secret from an address that has just sent 1,000 failures gets 200; junk from it stays 429', async () => {
    const strict = await testApp({ TOKEN_FAILURES_PER_CLIENT: '3', TOKEN_FAILURES_PER_ADDRESS: '30' })
    try {
      const creds = await clientFor(strict, await sampleTenant(strict))
      const attempt = (client_id: string, client_secret: string) =>
        strict.app.inject({
          method: 'POST',
          url: '/oauth/token',
          remoteAddress: '10.9.9.9',
          payload: { client_id, client_secret, audience: TEST_AUDIENCE, grant_type: 'client_credentials' },
        })
      let limited = 0
      for (let i = 0; i < 1000; i++) if ((await attempt(`pc_junk${i}`, 'nope')).statusCode === 429) limited++
      assert.ok(limited >= 900, `most junk is braked (${limited})`)
      assert.equal((await attempt(creds.client_id, creds.client_secret)).statusCode, 200)
      assert.equal(
        (await attempt(creds.client_id, 'wrong')).statusCode,
        429,
        'a wrong secret from that address is still braked',
      )
    } finally {
      await strict.close()
    }
  })

  test('a correct secret on another tenant’s host is refused but is not counted as a failure', async () => {
    const multi = await testApp({
      BASE_DOMAIN: 'example.test',
      TOKEN_FAILURES_PER_CLIENT: '2',
      TOKEN_FAILURES_PER_ADDRESS: '2',
    })
    try {
      const tenant = await sampleTenant(multi)
      const creds = await clientFor(multi, tenant)
      const attempt = (host: string) =>
        multi.app.inject({
          method: 'POST',
          url: '/oauth/token',
          remoteAddress: '10.8.8.8',
          headers: { host },
          payload: { ...creds, audience: TEST_AUDIENCE, grant_type: 'client_credentials' },
        })
      for (let i = 0; i < 5; i++) assert.equal((await attempt('other.example.test')).statusCode, 401)
      assert.equal((await attempt(`${tenant.domain}.example.test`)).statusCode, 200)
    } finally {
      await multi.close()
    }
  })
})

/** Concrete URLs for every registered /api/ route and method. */
function apiCalls(app: TestContext['app']) {
  return app.routeTable
    .filter((r) => r.url.startsWith('/api/'))
    .flatMap((r) =>
      [...r.methods].filter((m) => m !== 'HEAD').map((method) => ({ method, url: r.url.replace(/:[A-Za-z_]+/g, '1') })),
    )
}

async function assertRefusedEverywhere(token: string, why: string, app = ctx.app, host?: string) {
  const calls = apiCalls(app)
  assert.ok(calls.length >= 4, 'routes were found')
  for (const call of calls) {
    const response = await app.inject({
      method: call.method as 'GET',
      url: call.url,
      headers: { authorization: `Bearer ${token}`, 'x-service-client': 'api', ...(host ? { host } : {}) },
      ...(call.method === 'GET' || call.method === 'DELETE' ? {} : { payload: {} }),
    })
    assert.equal(response.statusCode, 401, `${why}: ${call.method} ${call.url} → ${response.statusCode}`)
    assert.equal(response.headers['www-authenticate'], 'Bearer error="invalid_token"')
    assert.match(String(response.headers['content-type']), /application\/problem\+json/)
  }
}

describe('bearer authentication on every /api/ route', () => {
  test('a good token works; missing X-Service-Client is 400; a missing token is 401', async () => {
    const { api, token } = await signedIn(ctx)
    assert.equal((await api({ method: 'GET', url: '/api/v3/vendors/' })).statusCode, 200)
    const noHeader = await ctx.app.inject({ url: '/api/v3/vendors/', headers: { authorization: `Bearer ${token}` } })
    assert.equal(noHeader.statusCode, 400)
    assert.match(noHeader.json().detail, /X-Service-Client/)
    const wrongHeader = await ctx.app.inject({
      url: '/api/v3/vendors/',
      headers: { authorization: `Bearer ${token}`, 'x-service-client': 'web' },
    })
    assert.equal(wrongHeader.statusCode, 400)
    const noToken = await ctx.app.inject({ url: '/api/v3/vendors/', headers: { 'x-service-client': 'api' } })
    assert.equal(noToken.statusCode, 401)
    assert.equal(noToken.headers['www-authenticate'], 'Bearer error="invalid_token"')
  })

  test('forged, expired and wrong-audience tokens are refused', async () => {
    const { tenant } = await signedIn(ctx)
    const claims = { tid: tenant.tenantId, dom: tenant.domain, aid: 1, client_id: 'pc_x', ver: 1 }
    const unsigned = new UnsecuredJWT(claims)
      .setIssuer(ctx.config.TOKEN_ISSUER)
      .setAudience(TEST_AUDIENCE)
      .setSubject(String(tenant.users.admin))
      .setJti(crypto.randomUUID())
      .setIssuedAt()
      .setExpirationTime('1h')
      .encode()
    await assertRefusedEverywhere(unsigned, 'alg none')
    const sign = (key: Uint8Array, audience: string, exp: string | number) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
        .setIssuer(ctx.config.TOKEN_ISSUER)
        .setAudience(audience)
        .setSubject(String(tenant.users.admin))
        .setJti(crypto.randomUUID())
        .setIssuedAt()
        .setExpirationTime(exp)
        .sign(key)
    await assertRefusedEverywhere(
      await sign(crypto.getRandomValues(new Uint8Array(32)), TEST_AUDIENCE, '1h'),
      'another key',
    )
    await assertRefusedEverywhere(
      await sign(ctx.keys.signingKey, TEST_AUDIENCE, Math.floor(Date.now() / 1000) - 10),
      'expired',
    )
    await assertRefusedEverywhere(await sign(ctx.keys.signingKey, 'another-api', '1h'), 'another audience')
    await assertRefusedEverywhere('not-a-jwt', 'garbage')
  })

  test('a revoked token is refused at once, and only the issuing client can revoke it', async () => {
    const { token, creds } = await signedIn(ctx)
    const { creds: stranger } = await signedIn(ctx)
    const revoke = (by: { client_id: string; client_secret: string }) =>
      ctx.app.inject({ method: 'POST', url: '/oauth/revoke', payload: { ...by, token } })
    assert.equal((await revoke(stranger)).statusCode, 200)
    const stillGood = await ctx.app.inject({
      url: '/api/v3/vendors/',
      headers: { authorization: `Bearer ${token}`, 'x-service-client': 'api' },
    })
    assert.equal(stillGood.statusCode, 200, 'another client cannot revoke it')
    const revoked = await revoke(creds)
    assert.equal(revoked.statusCode, 200)
    assert.equal(revoked.headers['cache-control'], 'no-store')
    await assertRefusedEverywhere(token, 'revoked token')
    assert.equal((await revoke(creds)).statusCode, 200, 'revoking twice is fine')
    const unknown = await ctx.app.inject({
      method: 'POST',
      url: '/oauth/revoke',
      payload: { ...creds, token: 'garbage' },
    })
    assert.equal(unknown.statusCode, 200)
    const badClient = await ctx.app.inject({
      method: 'POST',
      url: '/oauth/revoke',
      payload: { client_id: creds.client_id, client_secret: 'no', token },
    })
    assert.equal(badClient.statusCode, 401)
    assert.equal(badClient.json().error, 'invalid_client')
  })

  test('tokens of a revoked or rotated application, or of a deactivated user, are refused', async () => {
    const admin = await signedIn(ctx)
    const buyer = await signedIn(ctx, 'buyer', admin.tenant)
    const requester = await signedIn(ctx, 'requester', admin.tenant)
    const revoke = await admin.api({ method: 'DELETE', url: `/api/v3/applications/${buyer.creds.client_id}/` })
    assert.equal(revoke.statusCode, 204)
    await assertRefusedEverywhere(buyer.token, 'revoked application')

    const second = await clientFor(ctx, admin.tenant, 'admin')
    const before = await tokenFor(ctx, second)
    const notYours = await clientFor(ctx, admin.tenant, 'requester')
    assert.equal(
      (await admin.api({ method: 'POST', url: `/api/v3/applications/${notYours.client_id}/rotate/` })).statusCode,
      403,
      'only the owner rotates',
    )
    const rotated = await admin.api({ method: 'POST', url: `/api/v3/applications/${second.client_id}/rotate/` })
    assert.equal(rotated.statusCode, 200)
    await assertRefusedEverywhere(before, 'rotated application')
    const oldSecret = await ctx.app.inject({
      method: 'POST',
      url: '/oauth/token',
      payload: { ...second, audience: TEST_AUDIENCE, grant_type: 'client_credentials' },
    })
    assert.equal(oldSecret.statusCode, 401, 'the old secret stops working')
    const fresh = await tokenFor(ctx, rotated.json().data)
    assert.equal(
      (
        await ctx.app.inject({
          url: '/api/v3/vendors/',
          headers: { authorization: `Bearer ${fresh}`, 'x-service-client': 'api' },
        })
      ).statusCode,
      200,
    )

    await ctx.database.db
      .updateTable('users')
      .set({ is_active: false })
      .where('id', '=', admin.tenant.users.requester)
      .execute()
    await assertRefusedEverywhere(requester.token, 'deactivated user')
  })

  test('a revocation on one node is refused by another node sharing the database', async () => {
    const logStream = new Writable({ write: (chunk: Buffer, _e, done) => (ctx.logs.push(chunk.toString()), done()) })
    const other = await buildApp({ config: ctx.config, database: ctx.database, keys: ctx.keys, logStream })
    try {
      const { token, creds } = await signedIn(ctx)
      const call = () =>
        other.inject({
          url: '/api/v3/vendors/',
          headers: { authorization: `Bearer ${token}`, 'x-service-client': 'api' },
        })
      assert.equal((await call()).statusCode, 200)
      await ctx.app.inject({ method: 'POST', url: '/oauth/revoke', payload: { ...creds, token } })
      // The other node learns of it from its notifications: within a second (DECISIONS), normally at once.
      const started = Date.now()
      while ((await call()).statusCode !== 401) {
        assert.ok(Date.now() - started < 1000, 'refused by the other node within a second')
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
    } finally {
      await other.close()
    }
  })
})

describe('multi-tenant hosts (BASE_DOMAIN set)', () => {
  let multi: TestContext
  before(async () => {
    multi = await testApp({ BASE_DOMAIN: 'procure.test' })
  })
  after(() => multi.close())

  test("a token works on its tenant's host only; credentials only on their own host", async () => {
    const a = await sampleTenant(multi, 'alpha')
    await sampleTenant(multi, 'beta')
    const creds = await clientFor(multi, a)
    const ask = (host: string) =>
      multi.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { host },
        payload: { ...creds, audience: TEST_AUDIENCE, grant_type: 'client_credentials' },
      })
    assert.equal((await ask('beta.procure.test')).json().error, 'invalid_client')
    assert.equal((await ask('procure.test')).json().error, 'invalid_client')
    const granted = await ask('alpha.procure.test:8443')
    assert.equal(granted.statusCode, 200)
    const token = granted.json().access_token as string
    const call = (host: string) =>
      multi.app.inject({
        url: '/api/v3/vendors/',
        headers: { host, authorization: `Bearer ${token}`, 'x-service-client': 'api' },
      })
    assert.equal((await call('alpha.procure.test')).statusCode, 200)
    await assertRefusedEverywhere(token, 'another tenant’s host', multi.app, 'beta.procure.test')
  })
})

describe('applications API', () => {
  test('a settings user creates, lists (without secrets), rotates and revokes; others get 403', async () => {
    const admin = await signedIn(ctx)
    const created = await admin.api({
      method: 'POST',
      url: '/api/v3/applications/',
      payload: { description: 'ERP sync' },
    })
    assert.equal(created.statusCode, 201)
    assert.equal(created.headers['cache-control'], 'no-store')
    const { client_id, client_secret } = created.json().data
    assert.ok(Buffer.from(client_secret, 'base64url').length >= 32, 'at least 256 random bits')
    assert.equal((await tokenFor(ctx, { client_id, client_secret })).split('.').length, 3)
    const listed = await admin.api({ method: 'GET', url: '/api/v3/applications/' })
    assert.equal(listed.statusCode, 200)
    assert.ok(!listed.body.includes(client_secret))
    assert.doesNotMatch(listed.body, /secret/)
    assert.equal(
      listed.json().data.find((a: { client_id: string }) => a.client_id === client_id).description,
      'ERP sync',
    )
    const unknownField = await admin.api({
      method: 'POST',
      url: '/api/v3/applications/',
      payload: { description: 'x', owner: 1 },
    })
    assert.equal(unknownField.statusCode, 400)
    assert.deepEqual(unknownField.json().errors, { owner: ['is not a known field'] })

    const requester = await signedIn(ctx, 'requester', admin.tenant)
    for (const call of [
      { method: 'GET', url: '/api/v3/applications/' },
      { method: 'POST', url: '/api/v3/applications/', payload: {} },
      { method: 'POST', url: `/api/v3/applications/${client_id}/rotate/` },
      { method: 'DELETE', url: `/api/v3/applications/${client_id}/` },
    ] as const) {
      assert.equal((await requester.api(call)).statusCode, 403, `${call.method} ${call.url}`)
    }
    assert.equal((await tokenFor(ctx, { client_id, client_secret })).length > 0, true, 'nothing changed')
    const outsider = await signedIn(ctx)
    assert.equal(
      (await outsider.api({ method: 'DELETE', url: `/api/v3/applications/${client_id}/` })).statusCode,
      404,
      'another tenant sees 404',
    )
  })
})

describe('secrets stay secret', () => {
  test('no client secret, secret hash or access token appears in any log line', async () => {
    const { creds, token, api } = await signedIn(ctx)
    await api({ method: 'GET', url: '/api/v3/vendors/' })
    await ctx.app.inject({
      method: 'POST',
      url: '/oauth/token',
      payload: { ...creds, audience: 'wrong', grant_type: 'client_credentials' },
    })
    await ctx.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { authorization: basic(creds.client_id, creds.client_secret) },
      payload: { grant_type: 'client_credentials', audience: TEST_AUDIENCE },
    })
    const row = await ctx.database.db
      .selectFrom('applications')
      .select('secret_hash')
      .where('client_id', '=', creds.client_id)
      .executeTakeFirstOrThrow()
    const logs = ctx.logs.join('')
    assert.ok(logs.includes(creds.client_id), 'the logs do record which client called')
    for (const secret of [
      creds.client_secret,
      token,
      row.secret_hash.toString('hex'),
      row.secret_hash.toString('base64'),
      token.split('.')[2]!,
    ]) {
      assert.ok(!logs.includes(secret), 'a secret leaked into the logs')
    }
  })
})

describe('every create answers 201 with Location', () => {
  test('vendors, locations, a single user and an application: the Location reads the new resource back', async () => {
    const { api } = await signedIn(ctx)
    const location = (await api({ method: 'GET', url: '/api/v2/locations/' })).json().data[0]
    const creates = [
      { url: '/api/v3/vendors/', payload: { name: 'Located Ltd' } },
      { url: '/api/v2/locations/', payload: { ...location, name: 'Located site', shipping_addresses: [] } },
      {
        url: '/api/v3/users/',
        payload: { email: 'located@example.org', firstName: 'L', lastName: 'O', location: null, department: null },
      },
      { url: '/api/v3/applications/', payload: { description: 'located' } },
    ]
    for (const create of creates) {
      const response = await api({ method: 'POST', ...create })
      assert.equal(response.statusCode, 201, `${create.url}: ${response.body}`)
      const where = String(response.headers.location)
      // Absolute (DECISIONS, Tenancy): the listening address, or the configured HOST and PORT under inject.
      assert.match(where, /^http:\/\/127\.0\.0\.1:\d+\/api\/v[23]\/[a-z-]+\/[^/]+\/$/, create.url)
      assert.equal((await api({ method: 'GET', url: new URL(where).pathname })).statusCode, 200, where)
    }
  })
})
