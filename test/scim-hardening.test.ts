/**
 * SCIM deviations found by an outside-in review, each through HTTP: PATCH paths and values that would reach
 * Object.prototype, externalId on PUT and remove, huge paging numbers, wrong methods on known paths, and the
 * SCIM token list and create (pagination, Idempotency-Key).
 */
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import { signedIn, useTestApp } from './helpers/app.ts'

const ctx = useTestApp()
const SCIM = 'application/scim+json'
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User'
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group'
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp'
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- SCIM bodies, asserted on field by field
type Body = any
type Session = Awaited<ReturnType<typeof signedIn>>

let session: Session
let token: string
let setup: Promise<void> | undefined
const ready = () =>
  (setup ??= (async () => {
    session = await signedIn(ctx)
    const made = await session.api({ method: 'POST', url: '/api/v3/scim-tokens/', payload: { description: 'IdP' } })
    assert.equal(made.statusCode, 201, made.body)
    token = made.json().data.token
  })())

const scim = async (method: string, url: string, payload?: object) => {
  const response = await ctx.app.inject({
    method: method as 'GET',
    url: `/scim/v2${url}`,
    headers: {
      authorization: `Bearer ${token}`,
      ...(payload === undefined ? {} : { 'content-type': SCIM }),
    },
    ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
  })
  const body: Body = response.body === '' ? undefined : JSON.parse(response.body)
  return { status: response.statusCode, body, headers: response.headers }
}

const probe = {} as Record<string, unknown>
const polluted = () =>
  ['polluted', 'polluted2', 'polluted3', 'isAdmin', 'active'].filter((key) => probe[key] !== undefined)

after(() => {
  // Should a case slip through, leave the process clean for the files that run after this one.
  for (const key of ['polluted', 'polluted2', 'polluted3', 'isAdmin', 'active'])
    delete (Object.prototype as Record<string, unknown>)[key]
})

describe('SCIM PATCH cannot reach a shared prototype', () => {
  test('__proto__, constructor and prototype in paths, filters and values are refused; nothing leaks', async () => {
    await ready()
    const user = (await scim('POST', '/Users', { schemas: [USER], userName: 'proto@example.com', active: true })).body
    const group = (await scim('POST', '/Groups', { schemas: [GROUP], displayName: 'Proto group' })).body
    // Fastify's JSON parser already refuses a "constructor": {"prototype": …} body (invalidSyntax).
    const hostile: [Body, string | string[]][] = [
      [{ op: 'replace', path: '__proto__', value: { polluted: 'yes' } }, 'invalidPath'],
      [{ op: 'replace', path: '__proto__', value: { active: false } }, 'invalidPath'],
      [{ op: 'add', path: 'constructor.prototype.polluted2', value: 'yes' }, 'invalidPath'],
      [{ op: 'add', path: '__proto__.isAdmin', value: true }, 'invalidPath'],
      [{ op: 'add', path: 'name.__proto__.polluted', value: 'yes' }, 'invalidPath'],
      [{ op: 'add', path: 'name.constructor', value: 'yes' }, 'invalidPath'],
      [{ op: 'add', path: 'emails[__proto__ eq "x"].value', value: 'yes' }, 'invalidPath'],
      [{ op: 'add', path: `${USER}:__proto__`, value: 'yes' }, 'invalidPath'],
      [
        { op: 'replace', value: { constructor: { prototype: { polluted3: 'yes' } } } },
        ['invalidValue', 'invalidSyntax'],
      ],
      [{ op: 'replace', value: { 'constructor.prototype.polluted3': 'yes' } }, 'invalidValue'],
      [{ op: 'replace', value: { name: { prototype: 'yes' } } }, 'invalidValue'],
      [{ op: 'add', path: 'emails', value: [{ value: 'a@example.com', constructor: 'x' }] }, 'invalidValue'],
    ]
    for (const [operation, scimType] of hostile) {
      for (const url of [`/Users/${user.id}`, `/Groups/${group.id}`]) {
        const response = await scim('PATCH', url, { schemas: [PATCH], Operations: [operation] })
        const what = `${url} ${JSON.stringify(operation)}`
        assert.equal(response.status, 400, what)
        assert.ok([scimType].flat().includes(response.body.scimType), `${what}: ${response.body.scimType}`)
        assert.deepEqual(response.body.schemas, [ERROR], what)
        assert.match(response.body.detail, /\.$/, what)
        assert.deepEqual(polluted(), [], what)
      }
    }
    // A __proto__ key in the JSON text itself (not made by a JS literal, which would set the prototype).
    const raw = await ctx.app.inject({
      method: 'PATCH',
      url: `/scim/v2/Users/${user.id}`,
      headers: { authorization: `Bearer ${token}`, 'content-type': SCIM },
      payload: `{"schemas":["${PATCH}"],"Operations":[{"op":"replace","value":{"__proto__":{"polluted":"yes"}}}]}`,
    })
    assert.equal(raw.statusCode, 400, raw.body)
    assert.deepEqual(polluted(), [])
    // The service is whole: a new user is active and the users list answers.
    const next = await scim('POST', '/Users', { schemas: [USER], userName: 'after.proto@example.com' })
    assert.equal(next.status, 201, JSON.stringify(next.body))
    assert.equal(next.body.active, true)
    const list = await session.api({ method: 'GET', url: '/api/v3/users/' })
    assert.equal(list.statusCode, 200, list.body)
  })

  test('what identity providers really send still applies', async () => {
    await ready()
    const user = (await scim('POST', '/Users', { schemas: [USER], userName: 'real.idp@example.com' })).body
    const patched = await scim('PATCH', `/Users/${user.id}`, {
      schemas: [PATCH],
      Operations: [
        { op: 'Replace', path: 'emails[type eq "work"].value', value: 'real.idp2@example.com' },
        { op: 'Replace', value: { 'name.givenName': 'Real', title: 'Buyer' } },
        { op: 'Add', path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department', value: 'Ops' },
        { op: 'replace', value: { active: 'False' } },
        // A custom extension an administrator mapped, and an attribute we keep nothing of: accepted, ignored.
        { op: 'add', path: 'urn:ietf:params:scim:schemas:extension:acme:2.0:User:costCenter', value: '42' },
        { op: 'replace', value: { 'urn:ietf:params:scim:schemas:extension:acme:2.0:User': { badge: '7' } } },
        { op: 'add', path: 'polluted', value: 'yes' },
      ],
    })
    assert.equal(patched.status, 200, JSON.stringify(patched.body))
    assert.deepEqual(polluted(), [])
    assert.deepEqual(
      [patched.body.userName, patched.body.name.givenName, patched.body.active],
      ['real.idp2@example.com', 'Real', false],
    )
  })
})

describe('SCIM externalId', () => {
  test('PUT without externalId clears it; PATCH remove clears it', async () => {
    await ready()
    const made = await scim('POST', '/Users', { schemas: [USER], userName: 'ext@example.com', externalId: 'e-1' })
    assert.equal(made.body.externalId, 'e-1')
    const put = await scim('PUT', `/Users/${made.body.id}`, { schemas: [USER], userName: 'ext@example.com' })
    assert.equal(put.status, 200, JSON.stringify(put.body))
    assert.equal(put.body.externalId, undefined)
    assert.equal((await scim('GET', `/Users/${made.body.id}`)).body.externalId, undefined)
    const again = await scim('PATCH', `/Users/${made.body.id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'add', path: 'externalId', value: 'e-2' }],
    })
    assert.equal(again.body.externalId, 'e-2')
    const removed = await scim('PATCH', `/Users/${made.body.id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'remove', path: 'externalId' }],
    })
    assert.equal(removed.status, 200, JSON.stringify(removed.body))
    assert.equal(removed.body.externalId, undefined)
    const found = await scim('GET', `/Users?filter=${encodeURIComponent('externalId eq "e-2"')}`)
    assert.equal(found.body.totalResults, 0)
  })

  test('a group: PUT without externalId and remove clear it too', async () => {
    await ready()
    const made = await scim('POST', '/Groups', { schemas: [GROUP], displayName: 'Ext group', externalId: 'g-1' })
    assert.equal(made.body.externalId, 'g-1')
    const put = await scim('PUT', `/Groups/${made.body.id}`, { schemas: [GROUP], displayName: 'Ext group' })
    assert.equal(put.body.externalId, undefined)
    await scim('PATCH', `/Groups/${made.body.id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'add', path: 'externalId', value: 'g-2' }],
    })
    const removed = await scim('PATCH', `/Groups/${made.body.id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'remove', path: 'externalId' }],
    })
    assert.equal(removed.status, 200, JSON.stringify(removed.body))
    assert.equal(removed.body.externalId, undefined)
  })
})

describe('SCIM paging numbers and methods', () => {
  test('a huge count is 200 at most; a huge startIndex is an empty page', async () => {
    await ready()
    await scim('POST', '/Users', { schemas: [USER], userName: 'huge.count@example.com' })
    for (const count of ['99999999999', '9'.repeat(40)]) {
      const response = await scim('GET', `/Users?count=${count}`)
      assert.equal(response.status, 200, JSON.stringify(response.body))
      assert.equal(response.body.itemsPerPage, Math.min(200, response.body.totalResults))
    }
    for (const startIndex of ['99999999999', '9'.repeat(40)]) {
      const response = await scim('GET', `/Users?startIndex=${startIndex}`)
      assert.equal(response.status, 200, JSON.stringify(response.body))
      assert.deepEqual(response.body.Resources, [])
      assert.ok(response.body.totalResults > 0)
    }
    assert.equal((await scim('GET', '/Groups?count=99999999999&startIndex=99999999999')).status, 200)
    assert.equal((await scim('GET', '/Users?count=1.5')).body.scimType, 'invalidValue')
  })

  test('a known path with another method is 405 with Allow and a SCIM error', async () => {
    await ready()
    const cases: [string, string, string][] = [
      ['DELETE', '/Users', 'GET, HEAD, POST'],
      ['PUT', '/Users', 'GET, HEAD, POST'],
      ['POST', '/Users/1', 'DELETE, GET, HEAD, PATCH, PUT'],
      ['PATCH', '/Groups', 'GET, HEAD, POST'],
      ['POST', '/Groups/7/', 'DELETE, GET, HEAD, PATCH, PUT'],
      ['POST', '/ServiceProviderConfig', 'GET, HEAD'],
      ['DELETE', '/Schemas', 'GET, HEAD'],
      ['PUT', '/ResourceTypes/User', 'GET, HEAD'],
    ]
    for (const [method, url, allow] of cases) {
      const response = await scim(method, url, method === 'DELETE' ? undefined : {})
      assert.equal(response.status, 405, `${method} ${url}`)
      assert.equal(response.headers.allow, allow, `${method} ${url}`)
      assert.match(String(response.headers['content-type']), /^application\/scim\+json/)
      assert.deepEqual([response.body.schemas, response.body.status], [[ERROR], '405'])
      assert.match(response.body.detail, /use .*\.$/)
    }
    assert.equal((await scim('DELETE', '/Nothing')).status, 404)
  })
})

describe('SCIM tokens on the API', () => {
  test('the list is paginated like every list', async () => {
    await ready()
    const count = async () =>
      (await session.api({ method: 'GET', url: '/api/v3/scim-tokens/' })).json().metadata.pagination.count as number
    const before = await count()
    for (const description of ['one', 'two'])
      await session.api({ method: 'POST', url: '/api/v3/scim-tokens/', payload: { description } })
    assert.equal(await count(), before + 2)
    const first = await session.api({ method: 'GET', url: '/api/v3/scim-tokens/?page_size=2' })
    assert.equal(first.statusCode, 200, first.body)
    const { pagination } = first.json().metadata
    const pages = Math.ceil((before + 2) / 2)
    assert.deepEqual([pagination.page_size, pagination.num_pages, pagination.current_page], [2, pages, 1])
    assert.match(pagination.next, /page=2/)
    assert.equal(pagination.previous, null)
    assert.equal(first.json().data.length, 2)
    const second = await session.api({ method: 'GET', url: '/api/v3/scim-tokens/?page=2&page_size=2' })
    assert.equal(second.json().data.length, Math.min(2, before + 2 - 2))
    assert.notEqual(second.json().data[0].id, first.json().data[0].id)
    assert.ok(!first.body.includes(token) && !second.body.includes(token))
    const searched = await session.api({ method: 'GET', url: '/api/v3/scim-tokens/?search=TWO' })
    assert.deepEqual(
      searched.json().data.map((t: Body) => t.description),
      ['two'],
    )
    assert.equal((await session.api({ method: 'GET', url: '/api/v3/scim-tokens/?page=0' })).statusCode, 400)
    assert.equal((await session.api({ method: 'GET', url: `/api/v3/scim-tokens/?page=${pages + 1}` })).statusCode, 404)
  })

  test('an Idempotency-Key is accepted, and the token is never stored for a replay', async () => {
    await ready()
    const post = () =>
      session.api({
        method: 'POST',
        url: '/api/v3/scim-tokens/',
        headers: { 'idempotency-key': 'scim-token-once' },
        payload: { description: 'Retried' },
      })
    const first = await post()
    assert.equal(first.statusCode, 201, first.body)
    const second = await post()
    assert.equal(second.statusCode, 201, second.body)
    assert.equal(second.headers['idempotent-replayed'], undefined)
    assert.equal(first.headers['cache-control'], 'no-store')
    const [a, b] = [first.json().data.token as string, second.json().data.token as string]
    assert.notEqual(a, b)
    const stored = await ctx.database.db.selectFrom('idempotency_keys').select('response_body').execute()
    assert.ok(stored.every((row) => !String(row.response_body).includes(a) && !String(row.response_body).includes(b)))
    const works = await ctx.app.inject({
      method: 'GET',
      url: '/scim/v2/Users',
      headers: { authorization: `Bearer ${a}` },
    })
    assert.equal(works.statusCode, 200)
  })
})
