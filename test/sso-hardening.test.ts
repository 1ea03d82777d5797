/**
 * Single sign-on and password sign-in against an outside probe's findings (issue #44), over real HTTP: the
 * service listens, a real OpenID provider (oidc-provider) and a scripted one of the test's own (its token
 * endpoint answers what the test says) sign people in.
 *
 * - The `email` claim passes the API's e-mail rule and is compared by ASCII case only: U+212A KELVIN SIGN is
 *   not `k` (nor in password sign-in, nor in SCIM).
 * - `email_verified` counts only when absent, `true` or "true" in any case.
 * - ID tokens are verified against the provider's JWKS, and refused when `iat` is far in the future.
 * - Where password sign-in is off for a person, the answer is the same whatever the password, which is never
 *   checked.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { verifyPassword } from '../src/core/passwords.ts'
import { createTenant, resetPasswordLink } from '../src/tenants/service.ts'
import { useTestApp } from './helpers/app.ts'
import {
  Jar,
  signInThrough,
  startProvider,
  startScriptedProvider,
  type ScriptedProvider,
  type TestProvider,
} from './helpers/oidc.ts'
import { apiAs, PASSWORD, roleId, throughLink, type Api, type Tenant } from './helpers/security.ts'

const ctx = useTestApp({ SSO_ALLOW_HTTP_ISSUER: 'true', TOKEN_FAILURES_PER_ADDRESS: '1000' })
const KELVIN = '\u212A'
let idp: TestProvider
let scripted: ScriptedProvider
let base: string
let tenant: Tenant
let admin: Api
let requester: number

/** Points the tenant's single sign-on at `issuer` (its client) with `extra` settings. */
async function useProvider(provider: { issuer: string; clientId: string; clientSecret: string }, extra: object = {}) {
  const saved = await admin({
    method: 'PUT',
    url: '/api/v3/sso/',
    payload: {
      issuer: provider.issuer,
      client_id: provider.clientId,
      client_secret: provider.clientSecret,
      allowed_domains: ['hardco.test'],
      jit_provisioning: true,
      default_role: requester,
      ...extra,
    },
  })
  assert.ok([200, 201].includes(saved.statusCode), saved.body)
}

async function newUser(email: string): Promise<{ profile: number; user: number }> {
  const created = await admin({
    method: 'POST',
    url: '/api/v3/users/',
    payload: { email, firstName: 'Kim', lastName: 'Doe', location: null, department: null, role_id: requester },
  })
  assert.equal(created.statusCode, 201, created.body)
  return { profile: created.json().data.id, user: created.json().data.user }
}

/** Signs in through `provider` as `login`; the callback's answer and whether a session followed. */
async function ssoSignIn(provider: { issuer: string }, login: string) {
  const jar = new Jar()
  const response = await signInThrough(jar, provider, `${base}/console/sso/start?next=%2Fconsole%2Faccount`, login)
  const body = await response.text()
  const account = await jar.fetch(`${base}/console/account`)
  return { status: response.status, body, signedIn: account.status === 200, account: await account.text() }
}

const linksOf = (userId: number) =>
  ctx.database.db.selectFrom('sso_identities').select('subject').where('user_id', '=', userId).execute()

const passwordSignIn = (email: string, password: string) =>
  ctx.app.inject({
    method: 'POST',
    url: '/console/sign-in',
    payload: new URLSearchParams({ email, password }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  })

describe('single sign-on and password sign-in, hardened', () => {
  before(async () => {
    await ctx.app.listen({ port: 0, host: '127.0.0.1' })
    base = `http://127.0.0.1:${(ctx.app.server.address() as { port: number }).port}`
    idp = await startProvider([`${base}/console/sso/callback`])
    scripted = await startScriptedProvider()
    const created = await createTenant(ctx.database.db, {
      domain: 'hardco',
      name: 'Hard Company',
      adminEmail: 'admin@hardco.test',
      adminFirstName: 'Ada',
    })
    tenant = { domain: 'hardco', host: 'hardco', email: 'admin@hardco.test', ...created }
    admin = await apiAs(ctx, tenant, tenant.adminUserId)
    requester = await roleId(ctx, tenant, 'Requester')
  })
  after(async () => {
    await idp.close()
    await scripted.close()
  })

  test('an e-mail with U+212A KELVIN SIGN is not the user with k: SSO refuses it with a page, password sign-in finds nobody', async () => {
    await useProvider(idp)
    const kim = await newUser('kim@hardco.test')
    await throughLink(
      ctx,
      tenant.host,
      (await resetPasswordLink(ctx.database.db, 'hardco', 'kim@hardco.test')).split('/').pop()!,
    )

    idp.accounts.set('kelvin-sub', { email: `${KELVIN}im@hardco.test`, email_verified: true })
    const kelvin = await ssoSignIn(idp, 'kelvin-sub')
    assert.equal(kelvin.status, 403, kelvin.body)
    assert.match(kelvin.body, /which this service does not accept \(must be an e-mail address\)/)
    assert.equal(kelvin.signedIn, false)
    assert.deepEqual(await linksOf(kim.user), [])
    const made = await ctx.database.db
      .selectFrom('users')
      .select('email')
      .where('tenant_id', '=', tenant.tenantId)
      .where('email', 'like', '%im@hardco.test')
      .execute()
    assert.deepEqual(made, [{ email: 'kim@hardco.test' }], 'no look-alike user was created either')

    // ASCII case still folds: KIM@ is kim@.
    idp.accounts.set('ascii-sub', { email: 'KIM@hardco.test', email_verified: true })
    const ascii = await ssoSignIn(idp, 'ascii-sub')
    assert.equal(ascii.status, 303, ascii.body)
    assert.equal(ascii.signedIn, true)
    assert.match(ascii.account, /kim@hardco\.test/)
    assert.deepEqual(await linksOf(kim.user), [{ subject: 'ascii-sub' }])

    // The console's password sign-in compares the same way.
    assert.equal((await passwordSignIn(`${KELVIN}im@hardco.test`, PASSWORD)).statusCode, 401)
    assert.equal((await passwordSignIn('KIM@HARDCO.TEST', PASSWORD)).statusCode, 303)

    // And so does the API: the look-alike is no e-mail address, while KIM@ is kim@.
    const create = (email: string) => admin({ method: 'POST', url: '/api/v3/users/', payload: [{ email }] })
    const lookalike = await create(`${KELVIN}im@hardco.test`)
    assert.equal(lookalike.statusCode, 400, lookalike.body)
    assert.match(lookalike.body, /must be an e-mail address/)
    const again = await create('KIM@hardco.test')
    assert.equal(again.statusCode, 400, again.body)
    assert.match(again.body, /a user with this e-mail already exists/)
  })

  test('email_verified counts only when absent, true or "true" in any case; anything else is refused', async () => {
    await useProvider(scripted)
    const refused: unknown[] = [false, 'false', 'False', 'FALSE', 0, 1, 'no', 'yes', null, '', ' true', {}]
    for (const [i, value] of refused.entries()) {
      scripted.script = {
        claims: { sub: `unverified-${i}`, email: `unverified${i}@hardco.test`, email_verified: value },
      }
      const answer = await ssoSignIn(scripted, `unverified-${i}`)
      assert.equal(answer.status, 403, `${JSON.stringify(value)}: ${answer.body}`)
      assert.match(answer.body, new RegExp(`has not verified unverified${i}@hardco\\.test`), JSON.stringify(value))
      assert.equal(answer.signedIn, false, JSON.stringify(value))
    }
    const none = await ctx.database.db
      .selectFrom('users')
      .select('email')
      .where('email', 'like', 'unverified%')
      .execute()
    assert.deepEqual(none, [])

    const accepted: [string, unknown][] = [
      ['absent', undefined],
      ['true', true],
      ['string', 'true'],
      ['upper', 'TRUE'],
      ['mixed', 'True'],
    ]
    for (const [name, value] of accepted) {
      const claims: Record<string, unknown> = { sub: `verified-${name}`, email: `verified-${name}@hardco.test` }
      if (value !== undefined) claims.email_verified = value
      scripted.script = { claims }
      const answer = await ssoSignIn(scripted, `verified-${name}`)
      assert.equal(answer.status, 303, `${name}: ${answer.body}`)
      assert.equal(answer.signedIn, true, name)
      assert.match(answer.account, new RegExp(`verified-${name}@hardco\\.test`))
    }
  })

  test('an ID token not signed by a key of the provider’s JWKS is refused with a page; the published key signs in', async () => {
    await useProvider(scripted)
    const pat = await newUser('pat@hardco.test')
    for (const key of ['foreign', 'foreign-same-kid'] as const) {
      scripted.script = { claims: { sub: 'pat-sub', email: 'pat@hardco.test' }, key }
      const answer = await ssoSignIn(scripted, 'pat-sub')
      assert.equal(answer.status, 400, `${key}: ${answer.body}`)
      assert.match(answer.body, /answer could not be accepted/, key)
      assert.match(answer.body, key === 'foreign' ? /no applicable keys found/ : /signature verification failed/)
      assert.equal(answer.signedIn, false, key)
      assert.deepEqual(await linksOf(pat.user), [], key)
    }
    scripted.script = { claims: { sub: 'pat-sub', email: 'pat@hardco.test' } }
    const good = await ssoSignIn(scripted, 'pat-sub')
    assert.equal(good.status, 303, good.body)
    assert.equal(good.signedIn, true)
    assert.deepEqual(await linksOf(pat.user), [{ subject: 'pat-sub' }])

    // Once linked, a forged token for the same person is refused all the same.
    scripted.script = { claims: { sub: 'pat-sub', email: 'pat@hardco.test' }, key: 'foreign-same-kid' }
    const forged = await ssoSignIn(scripted, 'pat-sub')
    assert.equal(forged.status, 400, forged.body)
    assert.equal(forged.signedIn, false)
  })

  test('an ID token issued more than 5 minutes in the future is refused; 4 minutes of skew is not', async () => {
    await useProvider(scripted)
    await newUser('lee@hardco.test')
    scripted.script = { claims: { sub: 'lee-sub', email: 'lee@hardco.test' }, iatOffset: 2 * 3600 }
    const ahead = await ssoSignIn(scripted, 'lee-sub')
    assert.equal(ahead.status, 400, ahead.body)
    assert.match(ahead.body, /dated in the future/)
    assert.equal(ahead.signedIn, false)
    scripted.script = { claims: { sub: 'lee-sub', email: 'lee@hardco.test' }, iatOffset: 4 * 60 }
    const skewed = await ssoSignIn(scripted, 'lee-sub')
    assert.equal(skewed.status, 303, skewed.body)
    assert.equal(skewed.signedIn, true)
  })

  test('where passwords are off, a password sign-in answers the same whatever the password, and never checks it', async () => {
    await useProvider(scripted)
    await newUser('worker@hardco.test')
    await throughLink(
      ctx,
      tenant.host,
      (await resetPasswordLink(ctx.database.db, 'hardco', 'worker@hardco.test')).split('/').pop()!,
    )
    await throughLink(
      ctx,
      tenant.host,
      (await resetPasswordLink(ctx.database.db, 'hardco', 'admin@hardco.test')).split('/').pop()!,
    )
    const answer = async (email: string, password: string) => {
      const response = await passwordSignIn(email, password)
      return { status: response.statusCode, body: response.body.replaceAll(email, '<email>') }
    }

    await useProvider(scripted, { password_login: 'disabled' })
    const disabled = await answer('worker@hardco.test', PASSWORD)
    assert.equal(disabled.status, 403)
    assert.match(disabled.body, /signs in through its identity provider/)
    for (const [email, password] of [
      ['worker@hardco.test', 'a wrong password'],
      ['admin@hardco.test', PASSWORD],
      ['admin@hardco.test', 'a wrong password'],
      ['nobody@hardco.test', PASSWORD],
    ] as const)
      assert.deepEqual(await answer(email, password), disabled, `${email} / ${password}`)

    await useProvider(scripted, { password_login: 'superusers_only' })
    const refused = await answer('worker@hardco.test', PASSWORD)
    assert.equal(refused.status, 403)
    assert.match(refused.body, /signs in through its identity provider/)
    for (const [email, password] of [
      ['worker@hardco.test', 'a wrong password'],
      ['nobody@hardco.test', PASSWORD],
      // A superuser's wrong password says the same: the answer does not tell who is a superuser.
      ['admin@hardco.test', 'a wrong password'],
    ] as const)
      assert.deepEqual(await answer(email, password), refused, `${email} / ${password}`)
    assert.equal((await passwordSignIn('admin@hardco.test', PASSWORD)).statusCode, 303)

    // Never checked: a stored hash that would fail if it were worked (scrypt with N = 2^40) changes nothing.
    const tripwire = 'scrypt$40$8$1$c2FsdHNhbHRzYWx0c2FsdA$a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2U'
    await assert.rejects(verifyPassword(PASSWORD, tripwire))
    await ctx.database.db
      .updateTable('users')
      .set({ password_hash: tripwire })
      .where('tenant_id', '=', tenant.tenantId)
      .where('email', '=', 'worker@hardco.test')
      .execute()
    assert.deepEqual(await answer('worker@hardco.test', PASSWORD), refused)
    await useProvider(scripted, { password_login: 'disabled' })
    assert.deepEqual(await answer('worker@hardco.test', 'anything at all'), disabled)
  })
})
