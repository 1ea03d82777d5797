/**
 * The low-severity classes of issue 20, each tried as an attacker would: login CSRF from `Origin: null`
 * (item 5), malformed e-mail and bidi-override names on every channel (7), tenant re-activation reviving old
 * credentials (8), tokens issued in the future (9), console 503s without Retry-After (10), and idempotency
 * keys replayed with the body's keys reordered (11).
 */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, test } from 'node:test'
import { decodeJwt, SignJWT } from 'jose'
import { setTenantActive } from '../src/tenants/service.ts'
import { engineUnderTest } from './helpers/db.ts'
import { testApp, useTestApp } from './helpers/app.ts'
import { runToEnd } from './helpers/process.ts'
import { BASE_DOMAIN, PASSWORD, adminBrowser, apiAs, browser, newTenant, roleId } from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn' })
const RLO = '\u202E'

describe('item 5: state-changing console requests from a foreign or null origin', () => {
  test('sign-in with the right password from Origin: null → 403 and no session', async () => {
    const tenant = await newTenant(ctx)
    await adminBrowser(ctx, tenant)
    for (const headers of [
      { origin: 'null' },
      { origin: 'null', 'sec-fetch-site': 'cross-site' },
      { origin: 'null', 'sec-fetch-site': 'same-site' },
      { origin: 'https://evil.example' },
      { origin: 'https://evil.example', 'sec-fetch-site': 'same-origin' },
      { 'sec-fetch-site': 'cross-site' },
    ]) {
      const b = browser(ctx, tenant.host)
      const response = await b.post('/console/sign-in', { email: tenant.email, password: PASSWORD }, headers)
      assert.equal(response.statusCode, 403, JSON.stringify(headers))
      assert.equal(b.cookie, '', 'no session was started')
    }
  })

  test('a browser’s own form sent with Origin: null under no-referrer, marked same-origin by the browser, is accepted', async () => {
    // What Chromium sends for a same-origin form POST when the page's referrer policy is no-referrer.
    const tenant = await newTenant(ctx)
    await adminBrowser(ctx, tenant)
    const b = browser(ctx, tenant.host)
    const response = await b.post(
      '/console/sign-in',
      { email: tenant.email, password: PASSWORD },
      { origin: 'null', 'sec-fetch-site': 'same-origin' },
    )
    assert.equal(response.statusCode, 303, response.body)
    const page = await b.get('/console/account')
    assert.equal(page.headers['referrer-policy'], 'same-origin', 'console pages let the browser send its Origin')
  })

  test('a signed-in form (invite) posted from Origin: null → 403, nobody invited', async () => {
    const tenant = await newTenant(ctx)
    const b = await adminBrowser(ctx, tenant)
    const response = await b.submit(
      '/console/users',
      '/console/users/invite',
      { email: 'csrf@origin.test' },
      { origin: 'null' },
    )
    assert.equal(response.statusCode, 403)
    const admin = await apiAs(ctx, tenant, tenant.adminUserId)
    const found = await admin({ method: 'GET', url: '/api/v3/users/?search=csrf%40origin.test' })
    assert.equal(found.json().metadata.pagination.count, 0)
  })
})

describe('item 7: one e-mail rule and one name rule on every channel', () => {
  test('console invite with malformed e-mails → 400 with the API message, never 500; x@y refused', async () => {
    const tenant = await newTenant(ctx)
    const b = await adminBrowser(ctx, tenant)
    for (const email of ['x@y', 'a@b@c.example', 'no spaces@example.com', '@example.com', 'a@-example.com']) {
      const response = await b.submit('/console/users', '/console/users/invite', { email })
      assert.equal(response.statusCode, 400, `${email}: ${response.statusCode}`)
      assert.match(response.body, /must be an e-mail address/, email)
      assert.doesNotMatch(response.body, /format|pattern/, email)
    }
    const role = await b.submit('/console/users', '/console/users/invite', {
      email: 'ok@example.com',
      role_id: '999999999999',
    })
    assert.equal(role.statusCode, 400, 'a role id beyond PostgreSQL integer is a 400, not a 500')
  })

  test('a name with U+202E (or a control character) → 400 in the API batch, single, PUT and console', async () => {
    const tenant = await newTenant(ctx)
    const api = await apiAs(ctx, tenant, tenant.adminUserId)
    const requester = await roleId(ctx, tenant, 'Requester')
    const batch = await api({
      method: 'POST',
      url: '/api/v3/users/',
      payload: [{ email: 'bidi@names.test', first_name: `gnp${RLO}.exe`, role_id: requester }],
    })
    assert.equal(batch.statusCode, 400)
    assert.ok(batch.json().errors[0].first_name, batch.body)
    const single = {
      email: 'bell@names.test',
      firstName: 'Ok',
      lastName: 'Bell\u0007',
      location: null,
      department: null,
    }
    const one = await api({ method: 'POST', url: '/api/v3/users/', payload: single })
    assert.equal(one.statusCode, 400)
    assert.ok(one.json().errors.lastName, one.body)
    const created = await api({ method: 'POST', url: '/api/v3/users/', payload: { ...single, lastName: 'Bell' } })
    assert.equal(created.statusCode, 201, created.body)
    const put = await api({
      method: 'PUT',
      url: `/api/v3/users/${created.json().data.id}/`,
      payload: { ...single, lastName: `x${RLO}y` },
    })
    assert.equal(put.statusCode, 400)
    const b = await adminBrowser(ctx, tenant)
    const invite = await b.submit('/console/users', '/console/users/invite', {
      email: 'console-bidi@names.test',
      first_name: `Ad${RLO}min`,
    })
    assert.equal(invite.statusCode, 400)
    assert.match(invite.body, /bidirectional/)
  })

  test('the CLI refuses x@y and a bidi-override name for a new tenant', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'procurement-rules-'))
    try {
      const env = { DATA_DIR: dir, DEMO_SEED: 'false' }
      const email = await runToEnd(
        ['tenants', 'create', '--domain', 'acme', '--name', 'A', '--admin-email', 'x@y'],
        env,
      )
      assert.equal(email.code, 1, email.output)
      assert.match(email.output, /must be an e-mail address/)
      const name = await runToEnd(
        ['tenants', 'create', '--domain', 'acme', '--name', 'A', '--admin-email', 'it@acme.test'].concat([
          '--admin-first-name',
          `Ad${RLO}a`,
        ]),
        env,
      )
      assert.equal(name.code, 1, name.output)
      assert.match(name.output, /bidirectional/)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('item 8: a deactivation is final for what was issued before it', () => {
  test('deactivate, re-activate: the old token → 401, the old session is signed out; new ones work', async () => {
    const tenant = await newTenant(ctx)
    const api = await apiAs(ctx, tenant, tenant.adminUserId)
    const b = await adminBrowser(ctx, tenant)
    assert.equal((await api({ url: '/api/v3/vendors/' })).statusCode, 200)
    await setTenantActive(ctx.database.db, tenant.domain, false)
    await setTenantActive(ctx.database.db, tenant.domain, true)
    assert.equal((await api({ url: '/api/v3/vendors/' })).statusCode, 401)
    assert.notEqual((await b.get('/console/account')).statusCode, 200)
    const fresh = await apiAs(ctx, tenant, tenant.adminUserId)
    assert.equal((await fresh({ url: '/api/v3/vendors/' })).statusCode, 200)
  })
})

describe('item 9: iat and nbf', () => {
  async function forged(change: (claims: Record<string, unknown>) => Record<string, unknown>) {
    const tenant = await newTenant(ctx)
    const api = await apiAs(ctx, tenant, tenant.adminUserId)
    const claims = change({ ...decodeJwt(api.token) })
    const token = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
      .sign(new Uint8Array(ctx.keys.signingKey))
    return ctx.app.inject({
      url: '/api/v3/vendors/',
      headers: { host: tenant.host, authorization: `Bearer ${token}`, 'x-service-client': 'api' },
    })
  }
  const now = () => Math.floor(Date.now() / 1000)

  test('iat 2 minutes in the future → 401; 30 s (clock skew) → 200; nbf to come → 401', async () => {
    assert.equal((await forged((c) => ({ ...c, iat: now() + 120 }))).statusCode, 401)
    assert.equal((await forged((c) => ({ ...c, iat: now() + 30 }))).statusCode, 200)
    assert.equal((await forged((c) => ({ ...c, nbf: now() + 600 }))).statusCode, 401, 'nbf still to come')
  })
})

describe('item 10: console 503', () => {
  test(
    'a console page while the database is gone → 503 with Retry-After, as the API does',
    { skip: engineUnderTest !== 'pglite' && 'embedded-only' },
    async () => {
      const embedded = await testApp({ LOG_LEVEL: 'silent' })
      try {
        await embedded.database.close()
        const response = await embedded.app.inject({
          method: 'POST',
          url: '/console/sign-in',
          payload: 'email=a%40b.example&password=whatever',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        })
        assert.equal(response.statusCode, 503, response.body.slice(0, 200))
        assert.match(String(response.headers['retry-after']), /^\d+$/)
      } finally {
        await embedded.app.close()
      }
    },
  )
})

describe('item 11: idempotency fingerprint', () => {
  test('the same body with its keys reordered replays the first response instead of 422', async () => {
    const tenant = await newTenant(ctx)
    const api = await apiAs(ctx, tenant, tenant.adminUserId)
    const headers = { 'idempotency-key': 'reordered-1' }
    const first = await api({
      method: 'POST',
      url: '/api/v3/vendors/',
      headers,
      payload: { name: 'Ordered', city: 'Oslo', country: 'Norway' },
    })
    assert.equal(first.statusCode, 201, first.body)
    const again = await api({
      method: 'POST',
      url: '/api/v3/vendors/',
      headers,
      payload: { country: 'Norway', city: 'Oslo', name: 'Ordered' },
    })
    assert.equal(again.statusCode, 201, again.body)
    assert.equal(again.headers['idempotent-replayed'], 'true')
    assert.equal(again.json().data.id, first.json().data.id)
    const other = await api({ method: 'POST', url: '/api/v3/vendors/', headers, payload: { name: 'Other' } })
    assert.equal(other.statusCode, 422, 'a different body is still refused')
  })
})
