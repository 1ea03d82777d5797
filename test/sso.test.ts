/** The tenant's identity provider through the API (DECISIONS, "Single sign-on and provisioning"), against a real provider. */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { signedIn, testApp, useTestApp } from './helpers/app.ts'
import { startProvider, type TestProvider } from './helpers/oidc.ts'

const ctx = useTestApp({ SSO_ALLOW_HTTP_ISSUER: 'true' })
let idp: TestProvider
before(async () => {
  idp = await startProvider(['http://127.0.0.1:3000/console/sso/callback'])
})
after(() => idp.close())

const config = (extra: object = {}) => ({
  issuer: idp.issuer,
  client_id: idp.clientId,
  client_secret: idp.clientSecret,
  ...extra,
})

describe('SSO configuration API', () => {
  test('a superuser saves, reads and deletes it; the secret is never read back; is_sso_enabled follows it', async () => {
    const { api } = await signedIn(ctx)
    assert.equal((await api({ method: 'GET', url: '/api/v3/sso/' })).statusCode, 404)
    const me = async () => (await api({ method: 'GET', url: '/api/v3/users/me/' })).json().data.is_sso_enabled
    assert.equal(await me(), false)
    const roles = (await api({ method: 'GET', url: '/api/v3/roles/' })).json().data as { id: number; name: string }[]
    const requester = roles.find((r) => r.name === 'Requester')!.id
    const saved = await api({
      method: 'PUT',
      url: '/api/v3/sso/',
      payload: config({
        allowed_domains: ['Example.com'],
        jit_provisioning: true,
        default_role: requester,
        group_roles: [{ group: 'buyers', role: requester, location: null }],
        password_login: 'superusers_only',
      }),
    })
    assert.equal(saved.statusCode, 201, saved.body)
    const data = saved.json().data
    assert.equal(data.issuer, idp.issuer)
    assert.equal(data.client_secret, undefined)
    assert.ok(!saved.body.includes(idp.clientSecret))
    assert.deepEqual(data.allowed_domains, ['example.com'])
    assert.equal(data.scopes, 'openid email profile')
    assert.equal(data.groups_claim, 'groups')
    assert.match(data.redirect_uri, /^http:\/\/127\.0\.0\.1:\d+\/console\/sso\/callback$/)
    assert.match(data.scim_base_url, /\/scim\/v2$/)
    assert.equal(await me(), true)

    // Saved again without the secret: the stored one is kept (discovery still passes with it).
    const again = await api({
      method: 'PUT',
      url: '/api/v3/sso/',
      payload: { issuer: idp.issuer, client_id: idp.clientId },
    })
    assert.equal(again.statusCode, 200, again.body)
    assert.equal(again.json().data.jit_provisioning, false)
    const read = await api({ method: 'GET', url: '/api/v3/sso/' })
    assert.equal(read.statusCode, 200)
    assert.ok(!read.body.includes('secret'))
    const stored = await ctx.database.db.selectFrom('sso_configs').selectAll().execute()
    assert.ok(stored.every((row) => !row.client_secret_sealed.includes(idp.clientSecret)))

    assert.equal((await api({ method: 'DELETE', url: '/api/v3/sso/' })).statusCode, 204)
    assert.equal((await api({ method: 'GET', url: '/api/v3/sso/' })).statusCode, 404)
    assert.equal(await me(), false)
    assert.equal((await api({ method: 'DELETE', url: '/api/v3/sso/' })).statusCode, 404)
  })

  test('an issuer that fails discovery is a 400 naming what failed, and nothing is saved', async () => {
    const { api } = await signedIn(ctx)
    const wrong = await api({
      method: 'PUT',
      url: '/api/v3/sso/',
      payload: config({ issuer: `${idp.issuer}/nothing-here` }),
    })
    assert.equal(wrong.statusCode, 400, wrong.body)
    assert.match(wrong.json().detail, /OpenID discovery .* failed/)
    assert.ok(wrong.json().errors.issuer)
    const down = await api({ method: 'PUT', url: '/api/v3/sso/', payload: config({ issuer: 'http://127.0.0.1:9/' }) })
    assert.equal(down.statusCode, 400, down.body)
    assert.match(down.json().errors.issuer[0], /OpenID discovery failed/)
    assert.equal((await api({ method: 'GET', url: '/api/v3/sso/' })).statusCode, 404)
  })

  test('bad fields are 400s naming them: no secret at first, JIT without domains, unknown roles, bad domains', async () => {
    const { api } = await signedIn(ctx)
    const response = await api({
      method: 'PUT',
      url: '/api/v3/sso/',
      payload: {
        issuer: 'not a url',
        client_id: 'x',
        jit_provisioning: true,
        default_role: 999999,
        allowed_domains: ['not a domain'],
        group_roles: [{ group: 'g', role: 999999, location: 999999 }],
      },
    })
    assert.equal(response.statusCode, 400, response.body)
    const errors = response.json().errors
    for (const field of [
      'issuer',
      'client_secret',
      'default_role',
      'allowed_domains.0',
      'group_roles.0.role',
      'group_roles.0.location',
    ])
      assert.ok(errors[field], `${field} in ${response.body}`)
    const jit = await api({ method: 'PUT', url: '/api/v3/sso/', payload: config({ jit_provisioning: true }) })
    assert.equal(jit.statusCode, 400)
    assert.ok(jit.json().errors.allowed_domains)
    const extra = await api({ method: 'PUT', url: '/api/v3/sso/', payload: config({ client_secrets: 'x' }) })
    assert.equal(extra.statusCode, 400)
  })

  test('only a superuser may read or change it', async () => {
    const { api } = await signedIn(ctx, 'buyer')
    assert.equal((await api({ method: 'GET', url: '/api/v3/sso/' })).statusCode, 403)
    assert.equal((await api({ method: 'PUT', url: '/api/v3/sso/', payload: config() })).statusCode, 403)
    assert.equal((await api({ method: 'DELETE', url: '/api/v3/sso/' })).statusCode, 403)
  })
})

describe('without SSO_ALLOW_HTTP_ISSUER', () => {
  test('an http:// issuer is refused, naming the setting', async () => {
    const strict = await testApp()
    try {
      const { api } = await signedIn(strict)
      const response = await api({ method: 'PUT', url: '/api/v3/sso/', payload: config() })
      assert.equal(response.statusCode, 400, response.body)
      assert.match(response.json().errors.issuer[0], /SSO_ALLOW_HTTP_ISSUER/)
    } finally {
      await strict.close()
    }
  })
})
