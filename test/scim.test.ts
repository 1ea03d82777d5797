/**
 * SCIM 2.0 through HTTP, as Okta and Microsoft Entra ID really send it (the request shapes of their published
 * SCIM guides: Okta's path-less `value` object, Entra's capitalised ops and `"False"` strings, member removal
 * by `members[value eq "…"]` and by a value list), and the SCIM error schema for what is refused.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { nameProblem } from '../src/users/service.ts'
import { signedIn, useTestApp } from './helpers/app.ts'

const ctx = useTestApp()
const SCIM = 'application/scim+json'
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User'
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group'
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp'
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error'

type Admin = Awaited<ReturnType<typeof signedIn>>['api']
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- SCIM bodies, asserted on field by field
type Body = any

let admin: Admin
let token: string
let roles: Record<string, number>

const scim = async (
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  payload?: object,
  bearer = token,
) => {
  const response = await ctx.app.inject({
    method,
    url: `/scim/v2${url}`,
    headers: {
      authorization: `Bearer ${bearer}`,
      ...(payload === undefined ? {} : { 'content-type': `${SCIM}; charset=utf-8` }),
    },
    ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
  })
  const body: Body = response.body === '' ? undefined : JSON.parse(response.body)
  return { status: response.statusCode, body, headers: response.headers }
}

const rolesOf = async (userId: number) =>
  (
    await ctx.database.db
      .selectFrom('role_grants')
      .select(['role_id', 'location_id'])
      .where('user_id', '=', userId)
      .execute()
  )
    .map((g) => `${g.role_id}@${g.location_id ?? 'all'}`)
    .sort()

async function init(): Promise<void> {
  const session = await signedIn(ctx)
  admin = session.api
  const list = (await admin({ method: 'GET', url: '/api/v3/roles/' })).json().data as { id: number; name: string }[]
  roles = Object.fromEntries(list.map((r) => [r.name, r.id]))
  const made = await admin({ method: 'POST', url: '/api/v3/scim-tokens/', payload: { description: 'Okta' } })
  assert.equal(made.statusCode, 201, made.body)
  token = made.json().data.token
  assert.match(token, /^scim_/)
  assert.match(made.json().data.scim_base_url, /\/scim\/v2$/)
}
let setup: Promise<void> | undefined
/** The file's tenant, roles and SCIM token, made once (before the first test that needs them). */
const ready = () => (setup ??= init())

describe('SCIM tokens and discovery', () => {
  test('tokens are listed without the secret, and a revoked token stops working at once', async () => {
    await ready()
    const listed = await admin({ method: 'GET', url: '/api/v3/scim-tokens/' })
    assert.equal(listed.statusCode, 200)
    assert.ok(!listed.body.includes(token))
    const extra = (await admin({ method: 'POST', url: '/api/v3/scim-tokens/', payload: {} })).json().data
    assert.equal((await scim('GET', '/Users', undefined, extra.token)).status, 200)
    assert.equal((await admin({ method: 'DELETE', url: `/api/v3/scim-tokens/${extra.id}/` })).statusCode, 204)
    const refused = await scim('GET', '/Users', undefined, extra.token)
    assert.equal(refused.status, 401)
    assert.deepEqual(refused.body.schemas, [ERROR])
    assert.equal((await scim('GET', '/Users', undefined, 'scim_not-a-real-token-at-all-000')).status, 401)
    const stored = await ctx.database.db.selectFrom('scim_tokens').select('token_hash').execute()
    assert.ok(stored.every((row) => !row.token_hash.toString('utf8').includes(token)))
  })

  test('only a superuser makes tokens', async () => {
    await ready()
    const buyer = await signedIn(ctx, 'buyer')
    assert.equal((await buyer.api({ method: 'POST', url: '/api/v3/scim-tokens/', payload: {} })).statusCode, 403)
    assert.equal((await buyer.api({ method: 'GET', url: '/api/v3/scim-tokens/' })).statusCode, 403)
  })

  test('ServiceProviderConfig, ResourceTypes and Schemas', async () => {
    await ready()
    const config = await scim('GET', '/ServiceProviderConfig')
    assert.equal(config.status, 200)
    assert.match(String(config.headers['content-type']), /^application\/scim\+json/)
    assert.equal(config.body.patch.supported, true)
    assert.equal(config.body.filter.maxResults, 200)
    const types = await scim('GET', '/ResourceTypes')
    assert.deepEqual(
      types.body.Resources.map((r: Body) => r.id),
      ['User', 'Group'],
    )
    const schemas = await scim('GET', '/Schemas')
    assert.deepEqual(
      schemas.body.Resources.map((s: Body) => s.id),
      [USER, GROUP],
    )
    assert.equal((await scim('GET', `/Schemas/${USER}`)).status, 200)
    assert.equal((await scim('GET', '/Nothing')).body.schemas[0], ERROR)
  })
})

describe('Okta', () => {
  test('create, find by userName, update, deactivate with a path-less value, re-activate', async () => {
    await ready()
    // Okta first looks the person up, then creates them (its SCIM 2.0 guide's requests).
    const lookup = await scim(
      'GET',
      '/Users?filter=userName%20eq%20%22ursula.okta%40example.com%22&startIndex=1&count=100',
    )
    assert.equal(lookup.status, 200)
    assert.deepEqual([lookup.body.totalResults, lookup.body.Resources], [0, []])
    const created = await scim('POST', '/Users', {
      schemas: [USER],
      userName: 'ursula.okta@example.com',
      name: { givenName: 'Ursula', familyName: 'Okta' },
      emails: [{ primary: true, value: 'ursula.okta@example.com', type: 'work' }],
      displayName: 'Ursula Okta',
      locale: 'en-US',
      externalId: '00ujl29u0le5T6Aj10h7',
      groups: [],
      password: '1mz050nq',
      active: true,
    })
    assert.equal(created.status, 201, JSON.stringify(created.body))
    const id = created.body.id as string
    assert.equal(created.headers.location, created.body.meta.location)
    assert.equal(created.body.userName, 'ursula.okta@example.com')
    assert.equal(created.body.active, true)
    assert.equal(created.body.externalId, '00ujl29u0le5T6Aj10h7')

    const found = await scim('GET', '/Users?filter=userName eq "URSULA.okta@example.com"&startIndex=1&count=100')
    assert.equal(found.body.totalResults, 1)
    assert.equal(found.body.Resources[0].id, id)
    assert.equal((await scim('GET', '/Users?filter=externalId eq "00ujl29u0le5T6Aj10h7"')).body.totalResults, 1)
    assert.equal((await scim('GET', '/Users?filter=emails.value eq "ursula.okta@example.com"')).body.totalResults, 1)

    // The API sees the same person: the id is the profile id.
    const profile = await admin({ method: 'GET', url: `/api/v3/users/${id}/` })
    assert.equal(profile.statusCode, 200)
    assert.equal(profile.json().data.firstName, 'Ursula')

    const renamed = await scim('PUT', `/Users/${id}`, {
      schemas: [USER],
      id,
      userName: 'ursula.okta@example.com',
      name: { givenName: 'Ursa', familyName: 'Okta' },
      emails: [{ primary: true, value: 'ursula.okta@example.com', type: 'work' }],
      active: true,
    })
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body))
    assert.equal(renamed.body.name.givenName, 'Ursa')

    const off = await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', value: { active: false } }],
    })
    assert.equal(off.status, 200, JSON.stringify(off.body))
    assert.equal(off.body.active, false)
    assert.equal((await admin({ method: 'GET', url: `/api/v3/users/${id}/` })).json().data.is_active, false)
    const events = (await admin({ method: 'GET', url: '/api/v3/events/?type=user.*&page_size=1000' })).json()
      .data as Body[]
    const mine = events.filter((e) => e.data.object.id === Number(id)).map((e) => e.type)
    assert.deepEqual(mine, ['user.created', 'user.updated', 'user.deactivated'])

    const on = await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', value: { active: true } }],
    })
    assert.equal(on.body.active, true)
    const audit = await ctx.database.db
      .selectFrom('audit_log')
      .select(['action', 'changes'])
      .where('action', '=', 'user.create')
      .execute()
    assert.ok(
      audit.some(
        (a) =>
          JSON.stringify(a.changes).includes('ursula.okta@example.com') &&
          JSON.stringify(a.changes).includes('"via":"scim"'),
      ),
    )
  })

  test('groups: create, add members without wiping the others, remove by members[value eq], rename, roles follow', async () => {
    await ready()
    const mapped = await admin({ method: 'GET', url: '/api/v3/locations/' })
    const location = mapped.json().data[0].id as number
    // Group roles are configured on the tenant's SSO configuration; SCIM groups use the same mapping.
    await ctx.database.db
      .insertInto('sso_configs')
      .values({
        tenant_id: (await ctx.database.db.selectFrom('scim_tokens').select('tenant_id').executeTakeFirstOrThrow())
          .tenant_id,
        issuer: 'https://idp.example.com',
        client_id: 'x',
        client_secret_sealed: 'v1.unused',
        scopes: 'openid',
        allowed_domains: [],
        jit_provisioning: false,
        groups_claim: 'groups',
        password_login: 'allowed',
        group_roles: JSON.stringify([
          { group: 'Purchasing', role: roles.Buyer, location: null },
          { group: 'Approvers', role: roles.Approver, location },
        ]),
      })
      .execute()
    const person = async (email: string) => {
      const made = await scim('POST', '/Users', {
        schemas: [USER],
        userName: email,
        name: { givenName: 'G', familyName: 'M' },
        active: true,
      })
      assert.equal(made.status, 201, JSON.stringify(made.body))
      const profile = (await admin({ method: 'GET', url: `/api/v3/users/${made.body.id}/` })).json().data
      return { id: made.body.id as string, user: profile.user as number }
    }
    const a = await person('gina@example.com')
    const b = await person('milo@example.com')
    const c = await person('otto@example.com')
    const baseline = await rolesOf(a.user)

    const group = await scim('POST', '/Groups', { schemas: [GROUP], displayName: 'Purchasing', members: [] })
    assert.equal(group.status, 201, JSON.stringify(group.body))
    const gid = group.body.id as string
    assert.equal(
      (await scim('GET', '/Groups?filter=displayName eq "purchasing"&startIndex=1&count=100')).body.totalResults,
      1,
    )

    const add = (members: string[]) =>
      scim('PATCH', `/Groups/${gid}`, {
        schemas: [PATCH],
        Operations: [{ op: 'add', path: 'members', value: members.map((value) => ({ value, display: value })) }],
      })
    assert.equal((await add([a.id, b.id])).status, 200)
    const added = await add([c.id])
    assert.deepEqual(added.body.members.map((m: Body) => m.value).sort(), [a.id, b.id, c.id].sort())
    assert.deepEqual(await rolesOf(a.user), [...baseline, `${roles.Buyer}@all`].sort())

    const removed = await scim('PATCH', `/Groups/${gid}`, {
      schemas: [PATCH],
      Operations: [{ op: 'remove', path: `members[value eq "${a.id}"]` }],
    })
    assert.equal(removed.status, 200, JSON.stringify(removed.body))
    assert.deepEqual(removed.body.members.map((m: Body) => m.value).sort(), [b.id, c.id].sort())
    assert.deepEqual(await rolesOf(a.user), baseline)
    assert.ok((await rolesOf(b.user)).includes(`${roles.Buyer}@all`))

    // Okta renames a group with a path-less replace of id and displayName: the roles follow the new name.
    const renamed = await scim('PATCH', `/Groups/${gid}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', value: { id: gid, displayName: 'Approvers' } }],
    })
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body))
    assert.equal(renamed.body.displayName, 'Approvers')
    const bRoles = await rolesOf(b.user)
    assert.ok(bRoles.includes(`${roles.Approver}@${location}`) && !bRoles.includes(`${roles.Buyer}@all`), bRoles.join())

    const user = await scim('GET', `/Users/${b.id}`)
    assert.deepEqual(
      user.body.groups.map((g: Body) => g.display),
      ['Approvers'],
    )

    assert.equal((await scim('DELETE', `/Groups/${gid}`)).status, 204)
    assert.equal((await scim('GET', `/Groups/${gid}`)).status, 404)
    assert.ok(!(await rolesOf(b.user)).includes(`${roles.Approver}@${location}`))
    const updated = (await admin({ method: 'GET', url: '/api/v3/events/?type=user.updated&page_size=1000' })).json()
      .data as Body[]
    assert.ok(updated.some((e) => e.data.object.id === Number(b.id)))
  })
})

describe('Microsoft Entra ID', () => {
  test('create, find by externalId, Entra-style updates, disable with "False", DELETE deactivates', async () => {
    await ready()
    const created = await scim('POST', '/Users', {
      schemas: [USER, 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
      externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
      userName: 'test.user.entra@example.com',
      active: true,
      emails: [{ primary: true, type: 'work', value: 'test.user.entra@example.com' }],
      meta: { resourceType: 'User' },
      name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
      roles: [],
    })
    assert.equal(created.status, 201, JSON.stringify(created.body))
    const id = created.body.id as string
    const again = await scim('POST', '/Users', {
      schemas: [USER],
      userName: 'Test.User.Entra@example.com',
      active: true,
    })
    assert.equal(again.status, 409)
    assert.deepEqual([again.body.schemas, again.body.status, again.body.scimType], [[ERROR], '409', 'uniqueness'])

    const byExternal = await scim('GET', '/Users?filter=externalId eq "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef"')
    assert.equal(byExternal.body.Resources[0].id, id)

    const updated = await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [
        { op: 'Replace', path: 'emails[type eq "work"].value', value: 'updated.entra@example.com' },
        { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' },
        { op: 'Add', path: 'externalId', value: 'new-external-id' },
      ],
    })
    assert.equal(updated.status, 200, JSON.stringify(updated.body))
    assert.deepEqual(
      [updated.body.userName, updated.body.name.familyName, updated.body.externalId],
      ['updated.entra@example.com', 'updatedFamilyName', 'new-external-id'],
    )

    const disabled = await scim('PATCH', `/Users/${id}`, {
      Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
      schemas: [PATCH],
    })
    assert.equal(disabled.status, 200, JSON.stringify(disabled.body))
    assert.equal(disabled.body.active, false)
    const filtered = await scim('GET', '/Users?filter=userName eq "updated.entra@example.com"')
    assert.equal(filtered.body.Resources[0].active, false)
    const enabled = await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Replace', path: 'active', value: 'True' }],
    })
    assert.equal(enabled.body.active, true)

    assert.equal((await scim('DELETE', `/Users/${id}`)).status, 204)
    const gone = await scim('GET', `/Users/${id}`)
    assert.equal(gone.status, 200, 'deactivated, never deleted')
    assert.equal(gone.body.active, false)
    const missing = await scim('GET', '/Users/999999999')
    assert.deepEqual([missing.status, missing.body.schemas], [404, [ERROR]])
  })

  test('groups: Add and Remove members by value lists, excludedAttributes=members', async () => {
    await ready()
    const user = await scim('POST', '/Users', { schemas: [USER], userName: 'entra.member@example.com', active: true })
    const other = await scim('POST', '/Users', { schemas: [USER], userName: 'entra.other@example.com', active: true })
    const group = await scim('POST', '/Groups', {
      externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159',
      displayName: 'Group1DisplayName',
      meta: { resourceType: 'Group' },
      members: [{ value: other.body.id }],
      schemas: [GROUP],
    })
    assert.equal(group.status, 201, JSON.stringify(group.body))
    const gid = group.body.id as string
    const dup = await scim('POST', '/Groups', { schemas: [GROUP], displayName: 'group1displayname' })
    assert.deepEqual([dup.status, dup.body.scimType], [409, 'uniqueness'])
    const add = await scim('PATCH', `/Groups/${gid}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Add', path: 'members', value: [{ $ref: null, value: user.body.id }] }],
    })
    assert.equal(add.status, 200, JSON.stringify(add.body))
    assert.equal(add.body.members.length, 2)
    const lean = await scim('GET', `/Groups?excludedAttributes=members&filter=displayName eq "Group1DisplayName"`)
    assert.equal(lean.body.totalResults, 1)
    assert.equal(lean.body.Resources[0].members, undefined)
    assert.equal((await scim('GET', `/Groups/${gid}?excludedAttributes=members`)).body.members, undefined)
    const remove = await scim('PATCH', `/Groups/${gid}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Remove', path: 'members', value: [{ $ref: null, value: user.body.id }] }],
    })
    assert.equal(remove.status, 200, JSON.stringify(remove.body))
    assert.deepEqual(
      remove.body.members.map((m: Body) => m.value),
      [other.body.id],
    )
    assert.equal(
      (await scim('GET', '/Groups?filter=externalId eq "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159"')).body.totalResults,
      1,
    )
  })
})

describe('what SCIM refuses', () => {
  test('filters outside the supported grammar are invalidFilter', async () => {
    await ready()
    for (const filter of [
      'userName co "a"',
      'userName eq "a" and active eq true',
      'title eq "x"',
      'userName eq',
      'userName eq 5',
    ]) {
      const response = await scim('GET', `/Users?filter=${encodeURIComponent(filter)}`)
      assert.deepEqual([response.status, response.body.scimType], [400, 'invalidFilter'], filter)
    }
    const groups = await scim('GET', `/Groups?filter=${encodeURIComponent('userName eq "x"')}`)
    assert.equal(groups.body.scimType, 'invalidFilter')
  })

  test('paging: startIndex and count (at most 200)', async () => {
    await ready()
    for (const n of [1, 2, 3])
      await scim('POST', '/Users', { schemas: [USER], userName: `page${n}@example.com`, active: true })
    const all = await scim('GET', '/Users?count=1000')
    assert.equal(all.body.itemsPerPage, Math.min(200, all.body.totalResults))
    const second = await scim('GET', '/Users?startIndex=2&count=2')
    assert.deepEqual([second.body.startIndex, second.body.itemsPerPage], [2, 2])
    assert.equal(second.body.Resources[0].id, all.body.Resources[1].id)
    const none = await scim('GET', '/Users?count=0')
    assert.deepEqual([none.body.itemsPerPage, none.body.totalResults], [0, all.body.totalResults])
    assert.equal((await scim('GET', '/Users?count=ten')).body.scimType, 'invalidValue')
  })

  test('e-mail and name rules (bidi controls included) are invalidValue, and nothing is made', async () => {
    await ready()
    const cases: object[] = [
      { userName: 'not-an-email' },
      { userName: 'bidi@example.com', name: { givenName: 'Eve\u202E', familyName: 'X' } },
      { userName: 'iso\u2066@example.com' },
      {},
    ]
    for (const body of cases) {
      const response = await scim('POST', '/Users', { schemas: [USER], ...body })
      assert.deepEqual([response.status, response.body.scimType], [400, 'invalidValue'], JSON.stringify(body))
    }
    const made = await ctx.database.db
      .selectFrom('users')
      .select('email')
      .where('email', 'in', ['bidi@example.com', 'marks@example.com'])
      .execute()
    assert.deepEqual(made, [])
  })

  // U+200E, U+200F and U+061C join the shared name rule in another change of this wave (users/rules.ts):
  // SCIM calls that rule, so these run once it refuses them.
  const sharedRuleHasMarks = nameProblem('x\u200F') !== undefined && nameProblem('x\u061C') !== undefined
  test(
    'the other bidi marks (U+200E, U+200F, U+061C) are refused through the shared name rule',
    { skip: sharedRuleHasMarks ? false : 'the shared name rule does not refuse these marks yet' },
    async () => {
      await ready()
      for (const mark of ['\u200E', '\u200F', '\u061C']) {
        const response = await scim('POST', '/Users', {
          schemas: [USER],
          userName: 'marks@example.com',
          name: { givenName: `Eve${mark}`, familyName: 'X' },
        })
        assert.deepEqual([response.status, response.body.scimType], [400, 'invalidValue'], JSON.stringify(mark))
      }
    },
  )

  test('PATCH: bad ops, more than 100 operations, changing id, malformed bodies', async () => {
    await ready()
    const user = (await scim('POST', '/Users', { schemas: [USER], userName: 'patchy@example.com', active: true })).body
    const patch = (Operations: unknown) => scim('PATCH', `/Users/${user.id}`, { schemas: [PATCH], Operations })
    assert.equal((await patch([{ op: 'move', path: 'active', value: false }])).body.scimType, 'invalidValue')
    const many = Array.from({ length: 101 }, () => ({ op: 'replace', path: 'name.givenName', value: 'N' }))
    assert.equal((await patch(many)).body.scimType, 'tooMany')
    assert.equal((await patch([{ op: 'replace', path: 'id', value: '1' }])).body.scimType, 'mutability')
    assert.equal((await patch([{ op: 'replace', path: 'active', value: 'maybe' }])).body.scimType, 'invalidValue')
    assert.equal((await patch([{ op: 'remove' }])).status, 400)
    assert.equal((await patch([])).status, 400)
    const garbage = await ctx.app.inject({
      method: 'PATCH',
      url: `/scim/v2/Users/${user.id}`,
      headers: { authorization: `Bearer ${token}`, 'content-type': SCIM },
      payload: '{"Operations": [',
    })
    assert.equal(garbage.statusCode, 400)
    assert.equal(JSON.parse(garbage.body).schemas[0], ERROR)
    const members = await scim('POST', '/Groups', {
      schemas: [GROUP],
      displayName: 'Ghosts',
      members: [{ value: '999999999' }],
    })
    assert.deepEqual([members.status, members.body.scimType], [400, 'invalidValue'])
  })
})
