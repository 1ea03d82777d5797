/**
 * Console sign-in through a real OpenID provider (oidc-provider on 127.0.0.1) over real HTTP: the service
 * listens, the provider's log-in and consent forms are walked with a cookie jar, the callback is the service's.
 * One tenant of the file has single sign-on (the service runs single-tenant, so /console/sso/start finds it).
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createTenant, resetPasswordLink } from '../src/tenants/service.ts'
import { useTestApp } from './helpers/app.ts'
import { Jar, signInThrough, startProvider, type TestProvider } from './helpers/oidc.ts'
import { apiAs, PASSWORD, roleId, throughLink, type Api, type Tenant } from './helpers/security.ts'

const ctx = useTestApp({ SSO_ALLOW_HTTP_ISSUER: 'true' })
let idp: TestProvider
let base: string
let tenant: Tenant
let admin: Api
let roles: { Buyer: number; Requester: number; Approver: number }
let locationA: number

const signIn = async (login: string, jar = new Jar()) => ({
  jar,
  response: await signInThrough(jar, idp, `${base}/console/sso/start?next=%2Fconsole%2Faccount`, login),
})

const grantsOf = (userId: number) =>
  ctx.database.db
    .selectFrom('role_grants')
    .select(['role_id', 'location_id'])
    .where('user_id', '=', userId)
    .orderBy('role_id')
    .execute()

async function newUser(email: string, role = roles.Requester): Promise<{ profile: number; user: number }> {
  const created = await admin({
    method: 'POST',
    url: '/api/v3/users/',
    payload: { email, firstName: 'Pat', lastName: 'Doe', location: null, department: null, role_id: role },
  })
  assert.equal(created.statusCode, 201, created.body)
  return { profile: created.json().data.id, user: created.json().data.user }
}

describe('console sign-in through the identity provider', () => {
  before(async () => {
    await ctx.app.listen({ port: 0, host: '127.0.0.1' })
    base = `http://127.0.0.1:${(ctx.app.server.address() as { port: number }).port}`
    idp = await startProvider([`${base}/console/sso/callback`])
    const created = await createTenant(ctx.database.db, {
      domain: 'ssoco',
      name: 'SSO Company',
      adminEmail: 'admin@ssoco.test',
      adminFirstName: 'Ada',
    })
    tenant = { domain: 'ssoco', host: 'ssoco', email: 'admin@ssoco.test', ...created }
    admin = await apiAs(ctx, tenant, tenant.adminUserId)
    roles = {
      Buyer: await roleId(ctx, tenant, 'Buyer'),
      Requester: await roleId(ctx, tenant, 'Requester'),
      Approver: await roleId(ctx, tenant, 'Approver'),
    }
    locationA = (await admin({ method: 'GET', url: '/api/v3/locations/' })).json().data[0].id
    const saved = await admin({
      method: 'PUT',
      url: '/api/v3/sso/',
      payload: {
        issuer: idp.issuer,
        client_id: idp.clientId,
        client_secret: idp.clientSecret,
        scopes: 'openid email profile groups',
        allowed_domains: ['ssoco.test'],
        jit_provisioning: true,
        default_role: roles.Requester,
        group_roles: [
          { group: 'Buyers', role: roles.Buyer, location: null },
          { group: 'approvers-a', role: roles.Approver, location: locationA },
        ],
      },
    })
    assert.equal(saved.statusCode, 201, saved.body)
  })
  after(() => idp.close())

  test('the sign-in page offers single sign-on', async () => {
    const page = await fetch(`${base}/console/sign-in`)
    assert.match(await page.text(), /href="\/console\/sso\/start\?next=[^"]*">Sign in with single sign-on/)
  })

  test('an existing user is linked by verified e-mail, signed in, and gets the roles of their groups', async () => {
    const pat = await newUser('pat@ssoco.test')
    idp.accounts.set('pat-sub', { email: 'PAT@ssoco.test', email_verified: true, groups: ['buyers', 'approvers-a'] })
    const { jar, response } = await signIn('pat-sub')
    assert.equal(response.status, 303, await response.text())
    assert.equal(response.headers.get('location'), '/console/account')
    const account = await jar.fetch(`${base}/console/account`)
    assert.equal(account.status, 200)
    assert.match(await account.text(), /pat@ssoco\.test/)
    const linked = await ctx.database.db
      .selectFrom('sso_identities')
      .selectAll()
      .where('user_id', '=', pat.user)
      .execute()
    assert.deepEqual(
      linked.map((l) => [l.issuer, l.subject]),
      [[idp.issuer, 'pat-sub']],
    )
    assert.deepEqual(
      await grantsOf(pat.user),
      [
        { role_id: roles.Buyer, location_id: null },
        { role_id: roles.Requester, location_id: null },
        { role_id: roles.Approver, location_id: locationA },
      ].sort((a, b) => a.role_id - b.role_id),
    )

    // A grant made by hand stays; the provider's grants follow the groups of each sign-in.
    const hand = await admin({
      method: 'PUT',
      url: `/api/v3/users/${pat.profile}/location-roles/`,
      payload: [{ location: locationA, role: roles.Buyer }],
    })
    assert.equal(hand.statusCode, 200, hand.body)
    idp.accounts.set('pat-sub', { email: 'someone-else@ssoco.test', email_verified: true, groups: [] })
    const again = await signIn('pat-sub')
    assert.equal(again.response.status, 303)
    const after = await grantsOf(pat.user)
    assert.ok(!after.some((g) => g.role_id === roles.Buyer && g.location_id === null), JSON.stringify(after))
    assert.ok(
      after.some((g) => g.role_id === roles.Buyer && g.location_id === locationA),
      JSON.stringify(after),
    )
    const audit = await ctx.database.db
      .selectFrom('audit_log')
      .select(['action', 'changes'])
      .where('resource_id', '=', String(pat.user))
      .where('action', 'in', ['user.sso_link', 'user.group_roles'])
      .execute()
    assert.ok(audit.some((a) => a.action === 'user.sso_link'))
    assert.ok(audit.some((a) => a.action === 'user.group_roles' && JSON.stringify(a.changes).includes('"via":"sso"')))
  })

  test('a new person of an allowed domain is created with the default role (JIT), with a user.created event', async () => {
    idp.accounts.set('new-sub', { email: 'newbie@ssoco.test', given_name: 'Nova', family_name: 'Newman' })
    const { jar, response } = await signIn('new-sub')
    assert.equal(response.status, 303, await response.text())
    const me = await jar.fetch(`${base}/console/account`)
    assert.match(await me.text(), /newbie@ssoco\.test/)
    const user = await ctx.database.db
      .selectFrom('users as u')
      .innerJoin('user_profiles as p', 'p.user_id', 'u.id')
      .select(['u.id', 'p.first_name', 'p.last_name', 'p.role_id', 'p.is_sso_enabled'])
      .where('u.email', '=', 'newbie@ssoco.test')
      .executeTakeFirstOrThrow()
    assert.deepEqual(
      [user.first_name, user.last_name, user.role_id, user.is_sso_enabled],
      ['Nova', 'Newman', roles.Requester, true],
    )
    const events = await admin({ method: 'GET', url: '/api/v3/events/?type=user.created' })
    assert.ok(
      events
        .json()
        .data.some((e: { data: { object: { email: string } } }) => e.data.object.email === 'newbie@ssoco.test'),
    )
  })

  test('a changed mapping applies at once to everyone in the group', async () => {
    const kim = await newUser('kim@ssoco.test')
    idp.accounts.set('kim-sub', { email: 'kim@ssoco.test', groups: ['Buyers'] })
    assert.equal((await signIn('kim-sub')).response.status, 303)
    const buyer = { role_id: roles.Buyer, location_id: null }
    assert.ok((await grantsOf(kim.user)).some((g) => g.role_id === buyer.role_id && g.location_id === null))
    const save = (group_roles: object[]) =>
      admin({
        method: 'PUT',
        url: '/api/v3/sso/',
        payload: {
          issuer: idp.issuer,
          client_id: idp.clientId,
          scopes: 'openid email profile groups',
          allowed_domains: ['ssoco.test'],
          jit_provisioning: true,
          default_role: roles.Requester,
          group_roles,
        },
      })
    assert.equal((await save([])).statusCode, 200)
    assert.ok(!(await grantsOf(kim.user)).some((g) => g.role_id === buyer.role_id && g.location_id === null))
    assert.equal(
      (
        await save([
          { group: 'Buyers', role: roles.Buyer, location: null },
          { group: 'approvers-a', role: roles.Approver, location: locationA },
        ])
      ).statusCode,
      200,
    )
    assert.ok((await grantsOf(kim.user)).some((g) => g.role_id === buyer.role_id && g.location_id === null))
  })

  test('every refusal is a page that says why, and signs nobody in', async () => {
    const cases: [string, object, RegExp][] = [
      ['out-sub', { email: 'someone@elsewhere.org' }, /elsewhere\.org cannot join this company/],
      [
        'unverified-sub',
        { email: 'unverified@ssoco.test', email_verified: false },
        /has not verified unverified@ssoco\.test/,
      ],
      ['noemail-sub', {}, /did not send your e-mail address/],
      ['bidi-sub', { email: 'bidi@ssoco.test', given_name: 'Eve\u202Egpj.exe' }, /could not be created.*firstName/],
    ]
    for (const [login, person, reason] of cases) {
      idp.accounts.set(login, person)
      const { jar, response } = await signIn(login)
      const body = await response.text()
      assert.equal(response.status >= 400 && response.status < 500, true, `${login}: ${response.status} ${body}`)
      assert.match(body, reason, login)
      assert.equal((await jar.fetch(`${base}/console/account`)).status, 303, login)
    }
    const made = await ctx.database.db
      .selectFrom('users')
      .select('email')
      .where('email', 'in', ['bidi@ssoco.test', 'someone@elsewhere.org'])
      .execute()
    assert.deepEqual(made, [])
  })

  test('a deactivated user is refused, linked or not', async () => {
    const gone = await newUser('gone@ssoco.test')
    idp.accounts.set('gone-sub', { email: 'gone@ssoco.test' })
    assert.equal((await signIn('gone-sub')).response.status, 303)
    assert.equal((await admin({ method: 'DELETE', url: `/api/v3/users/${gone.profile}/` })).statusCode, 204)
    const { response } = await signIn('gone-sub')
    assert.equal(response.status, 403)
    assert.match(await response.text(), /gone@ssoco\.test is deactivated/)
  })

  test('a callback without its sign-in (forged, replayed, or from another browser) is refused', async () => {
    const forged = await fetch(`${base}/console/sso/callback?code=abc&state=xyz`, { redirect: 'manual' })
    assert.equal(forged.status, 400)
    assert.match(await forged.text(), /not started here/)
    const error = await new Jar().fetch(`${base}/console/sso/callback?error=access_denied`)
    assert.equal(error.status, 400)
  })

  test('tokens and codes never reach the log', async () => {
    idp.accounts.set('log-sub', { email: 'pat@ssoco.test' })
    await signIn('log-sub')
    const text = ctx.logs.join('')
    assert.ok(!/id_token|access_token|eyJ[A-Za-z0-9_-]{20,}/.test(text))
    assert.ok(!text.includes(idp.clientSecret))
  })

  test('the password policy: superusers only, then nobody', async () => {
    const signInWithPassword = async (email: string, password: string) =>
      ctx.app.inject({
        method: 'POST',
        url: '/console/sign-in',
        payload: new URLSearchParams({ email, password }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      })
    await throughLink(ctx, tenant.host, tenant.setupToken)
    await newUser('worker@ssoco.test')
    const link = await resetPasswordLink(ctx.database.db, 'ssoco', 'worker@ssoco.test')
    await throughLink(ctx, tenant.host, link.split('/').pop()!)
    const policy = async (password_login: string) => {
      const saved = await admin({
        method: 'PUT',
        url: '/api/v3/sso/',
        payload: { issuer: idp.issuer, client_id: idp.clientId, password_login },
      })
      assert.equal(saved.statusCode, 200, saved.body)
    }
    await policy('superusers_only')
    assert.equal((await signInWithPassword('admin@ssoco.test', PASSWORD)).statusCode, 303)
    const worker = await signInWithPassword('worker@ssoco.test', PASSWORD)
    assert.equal(worker.statusCode, 403)
    assert.match(worker.body, /signs in through its identity provider/)
    await policy('disabled')
    assert.equal((await signInWithPassword('admin@ssoco.test', PASSWORD)).statusCode, 403)
    await policy('allowed')
    assert.equal((await signInWithPassword('worker@ssoco.test', PASSWORD)).statusCode, 303)
  })
})
