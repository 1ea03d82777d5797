/**
 * Settings → Single sign-on through the console's forms (several tenants, each on its own host): who may open
 * it, what a bad form shows, saving against a real provider, SCIM tokens shown once, and where
 * /console/sso/start sends the browser (PKCE S256, state, nonce, the tenant's own redirect URI).
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { useTestApp } from './helpers/app.ts'
import { startProvider, type TestProvider } from './helpers/oidc.ts'
import { adminBrowser, apiAs, BASE_DOMAIN, createUser, newTenant, roleId, userBrowser } from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, SSO_ALLOW_HTTP_ISSUER: 'true' })

describe('Settings → Single sign-on', () => {
  let idp: TestProvider
  before(async () => {
    idp = await startProvider(['https://unused.example.test/console/sso/callback'])
  })
  after(() => idp.close())

  test('only a superuser opens it; others get a page that says so', async () => {
    const tenant = await newTenant(ctx)
    const admin = await apiAs(ctx, tenant, tenant.adminUserId)
    await createUser(admin, 'clerk@example.test', await roleId(ctx, tenant, 'Requester'))
    const clerk = await userBrowser(ctx, tenant, 'clerk@example.test')
    const page = await clerk.get('/console/settings/sso')
    assert.equal(page.statusCode, 403)
    assert.doesNotMatch((await clerk.get('/console/account')).body, /settings\/sso/)
  })

  test('save, a bad form, SCIM tokens shown once, revoke, turn off; the sign-in page offers it meanwhile', async () => {
    const tenant = await newTenant(ctx)
    const browser = await adminBrowser(ctx, tenant)
    const page = await browser.get('/console/settings/sso')
    assert.equal(page.statusCode, 200)
    assert.match(page.body, new RegExp(`https://${tenant.host}/console/sso/callback`))
    const form = {
      issuer: idp.issuer,
      client_id: idp.clientId,
      client_secret: idp.clientSecret,
      scopes: '',
      allowed_domains: 'example.test',
      jit_provisioning: 'on',
      default_role: '',
      groups_claim: '',
      group_roles: 'Purchasing = Buyer\nBerlin = Nope',
      password_login: 'allowed',
    }
    const bad = await browser.submit('/console/settings/sso', '/console/settings/sso', form)
    assert.equal(bad.statusCode, 400)
    assert.match(bad.body, /there is no role &quot;Nope&quot;|there is no role "Nope"/)
    assert.doesNotMatch(bad.body, new RegExp(idp.clientSecret), 'the secret is not written back into the form')
    const wrongIssuer = await browser.submit('/console/settings/sso', '/console/settings/sso', {
      ...form,
      group_roles: '',
      issuer: `${idp.issuer}/missing`,
    })
    assert.equal(wrongIssuer.statusCode, 400)
    assert.match(wrongIssuer.body, /OpenID discovery/)
    const saved = await browser.submit('/console/settings/sso', '/console/settings/sso', {
      ...form,
      group_roles: 'Purchasing = Buyer',
    })
    assert.equal(saved.statusCode, 303, saved.body)
    const shown = await browser.get('/console/settings/sso?done=saved')
    assert.match(shown.body, /Purchasing = Buyer/)
    assert.match(shown.body, /Single sign-on is on/)

    const signIn = await ctx.app.inject({ url: '/console/sign-in', headers: { host: tenant.host } })
    assert.match(signIn.body, /Sign in with single sign-on/)
    const start = await ctx.app.inject({ url: '/console/sso/start', headers: { host: tenant.host } })
    assert.equal(start.statusCode, 303)
    const to = new URL(String(start.headers.location))
    assert.equal(to.origin, idp.issuer)
    assert.equal(to.searchParams.get('redirect_uri'), `https://${tenant.host}/console/sso/callback`)
    assert.equal(to.searchParams.get('code_challenge_method'), 'S256')
    for (const name of ['state', 'nonce', 'code_challenge']) assert.ok(to.searchParams.get(name), name)
    assert.match(String(start.headers['set-cookie']), /procurement_sso=v1\.[^;]+;.*HttpOnly/i)
    const other = await newTenant(ctx)
    const elsewhere = await ctx.app.inject({ url: '/console/sso/start', headers: { host: other.host } })
    assert.equal(elsewhere.statusCode, 404)
    assert.match(elsewhere.body, /not set up for this company/)

    const session = browser.cookie
    const made = await browser.submit('/console/settings/sso', '/console/settings/sso/tokens', { description: 'Okta' })
    assert.equal(made.statusCode, 303)
    // This test browser keeps one cookie: the session's, plus the one-hop cookie that carries the new token.
    browser.cookie = `${session}; ${browser.cookie}`
    const once = await browser.get('/console/settings/sso')
    browser.cookie = session
    const token = /data-testid="scim-token">(scim_[A-Za-z0-9_-]+)</.exec(once.body)?.[1]
    assert.ok(token, 'the new token is on the page')
    const scim = await ctx.app.inject({
      url: '/scim/v2/Users',
      headers: { host: tenant.host, authorization: `Bearer ${token}` },
    })
    assert.equal(scim.statusCode, 200)
    const wrongHost = await ctx.app.inject({
      url: '/scim/v2/Users',
      headers: { host: other.host, authorization: `Bearer ${token}` },
    })
    assert.equal(wrongHost.statusCode, 401, 'a token works on its own tenant’s host only')
    const again = await browser.get('/console/settings/sso')
    assert.doesNotMatch(again.body, new RegExp(token))
    const id = /\/console\/settings\/sso\/tokens\/(\d+)\/revoke/.exec(again.body)?.[1]
    assert.ok(id)
    assert.equal(
      (await browser.submit('/console/settings/sso', `/console/settings/sso/tokens/${id}/revoke`, {})).statusCode,
      303,
    )
    assert.equal(
      (
        await ctx.app.inject({
          url: '/scim/v2/Users',
          headers: { host: tenant.host, authorization: `Bearer ${token}` },
        })
      ).statusCode,
      401,
    )

    assert.equal((await browser.submit('/console/settings/sso', '/console/settings/sso/delete', {})).statusCode, 303)
    assert.match((await browser.get('/console/settings/sso?done=deleted')).body, /Single sign-on is off/)
    const plain = await ctx.app.inject({ url: '/console/sign-in', headers: { host: tenant.host } })
    assert.doesNotMatch(plain.body, /Sign in with single sign-on/)
  })
})
