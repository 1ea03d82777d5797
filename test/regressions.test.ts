/**
 * Each finding of the outside review, as a named test: it failed before the fix and must never fail again.
 * (The token brake, the refusing database and the forged links have their own tests: oauth, outage, edge.)
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { signedIn, useTestApp } from './helpers/app.ts'

const ctx = useTestApp()

const problemOf = (response: { statusCode: number; headers: Record<string, unknown>; json(): unknown }) => {
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/)
  return response.json() as {
    status: number
    detail: string
    errors?: Record<string, string[]> | Record<string, string[]>[]
  }
}

describe('field and parameter names of Object.prototype members are just names', () => {
  for (const name of ['toString', 'constructor', 'hasOwnProperty', '__defineGetter__', 'valueOf']) {
    test(`a body field "${name}" is a 400 naming it`, async () => {
      const { api } = await signedIn(ctx)
      const response = await api({
        method: 'POST',
        url: '/api/v3/vendors/',
        payload: `{"name":"x","${name}":1}`,
        headers: { 'content-type': 'application/json' },
      })
      assert.equal(response.statusCode, 400)
      assert.deepEqual((problemOf(response).errors as Record<string, string[]>)[name], ['is not a known field'])
    })
  }

  test('?constructor=1 and ?__proto__=1 on a list are 400s naming them', async () => {
    const { api } = await signedIn(ctx)
    for (const name of ['constructor', '__proto__', 'toString']) {
      const response = await api({ method: 'GET', url: `/api/v3/vendors/?${name}=1` })
      assert.equal(response.statusCode, 400, name)
      assert.ok(Object.keys(problemOf(response).errors as object).includes(name), name)
    }
  })

  test('hasOwnProperty in a batch item is reported for that item', async () => {
    const { api } = await signedIn(ctx)
    const response = await api({
      method: 'POST',
      url: '/api/v3/users/',
      payload: '[{"email":"a@example.org"},{"email":"b@example.org","hasOwnProperty":1}]',
      headers: { 'content-type': 'application/json' },
    })
    assert.equal(response.statusCode, 400)
    const errors = problemOf(response).errors as Record<string, string[]>[]
    assert.deepEqual(Object.keys(errors[0]!), [])
    assert.deepEqual(Object.entries(errors[1]!), [['hasOwnProperty', ['is not a known field']]])
  })
})

describe('lone surrogates are refused on every write, naming the field, and nothing is written', () => {
  test('each write route', async () => {
    const { api } = await signedIn(ctx)
    const location = (await api({ method: 'GET', url: '/api/v2/locations/' })).json().data[0]
    const vendor = (await api({ method: 'GET', url: '/api/v3/vendors/' })).json().data[0]
    const user = (await api({ method: 'GET', url: '/api/v3/users/' })).json().data[0]
    const lone = 'x\ud800'
    const auditBefore = await ctx.database.db.selectFrom('audit_log').select('id').execute()
    const writes = [
      { method: 'POST', url: '/api/v3/vendors/', payload: { name: lone }, field: 'name' },
      { method: 'PUT', url: `/api/v3/vendors/${vendor.id}/`, payload: { name: 'ok', city: lone }, field: 'city' },
      { method: 'PATCH', url: `/api/v3/vendors/${vendor.id}/`, payload: { comments: lone }, field: 'comments' },
      { method: 'POST', url: '/api/v2/locations/', payload: { ...location, name: lone }, field: 'name' },
      {
        method: 'PUT',
        url: `/api/v3/locations/${location.id}/`,
        payload: { ...location, primary_billing_address: { ...location.primary_billing_address, city: lone } },
        field: 'primary_billing_address.city',
      },
      {
        method: 'POST',
        url: '/api/v3/users/',
        payload: [{ email: 'ok@example.org', first_name: lone }],
        field: '0.first_name',
      },
      {
        method: 'POST',
        url: '/api/v3/users/',
        payload: { email: 'ok@example.org', firstName: lone, lastName: 'x', location: null, department: null },
        field: 'firstName',
      },
      {
        method: 'PUT',
        url: `/api/v3/users/${user.id}/`,
        payload: { email: user.email, firstName: 'x', lastName: lone, location: null, department: null },
        field: 'lastName',
      },
      { method: 'POST', url: '/api/v3/applications/', payload: { description: lone }, field: 'description' },
      { method: 'POST', url: '/api/v3/vendors/', payload: { name: 'ok', [lone]: 1 }, field: '(a field name)' },
      {
        method: 'POST',
        url: '/api/v3/requests/',
        payload: { location: location.id, description: lone, lines: [{ quantity: '1', unit_price: '1' }] },
        field: 'description',
      },
      {
        method: 'POST',
        url: '/api/v3/requests/',
        payload: { location: location.id, lines: [{ description: lone, quantity: '1', unit_price: '1' }] },
        field: 'lines.0.description',
      },
      { method: 'POST', url: '/api/v3/roles/', payload: { name: lone, permissions: [] }, field: 'name' },
      { method: 'POST', url: '/api/v3/approvals/1/reject/', payload: { comment: lone }, field: 'comment' },
    ] as const
    for (const w of writes) {
      const response = await api({
        method: w.method,
        url: w.url,
        payload: JSON.stringify(w.payload),
        headers: { 'content-type': 'application/json' },
      })
      assert.equal(response.statusCode, 400, `${w.method} ${w.url}: ${response.body}`)
      const problem = problemOf(response)
      assert.ok(
        Object.keys(problem.errors as object).includes(w.field),
        `${w.method} ${w.url} names ${w.field}: ${response.body}`,
      )
    }
    const audit = await ctx.database.db.selectFrom('audit_log').select('id').execute()
    assert.deepEqual(audit, auditBefore, 'nothing was written (the sample tenant’s own entries aside)')
  })
})

describe('strict bodies', () => {
  test('a key twice in one object is a 400 naming it, at any depth', async () => {
    const { api } = await signedIn(ctx)
    const top = await api({
      method: 'POST',
      url: '/api/v3/vendors/',
      payload: '{"name":"a","name":"b"}',
      headers: { 'content-type': 'application/json' },
    })
    assert.equal(top.statusCode, 400)
    assert.deepEqual(Object.keys(problemOf(top).errors as object), ['name'])
    const deep = await api({
      method: 'POST',
      url: '/api/v3/users/',
      payload: '[{"email":"a@example.org"},{"email":"b@example.org","locations":[{"id":1,"id":2}]}]',
      headers: { 'content-type': 'application/json' },
    })
    assert.equal(deep.statusCode, 400)
    assert.deepEqual(Object.keys(problemOf(deep).errors as object), ['1.locations.0.id'])
    const escaped = await api({
      method: 'POST',
      url: '/api/v3/vendors/',
      payload: '{"name":"a","n\\u0061me":"b"}',
      headers: { 'content-type': 'application/json' },
    })
    assert.equal(escaped.statusCode, 400, 'the same key spelled with an escape')
  })

  test('a charset other than UTF-8 is 415; UTF-8 spelled either way is fine', async () => {
    const { api } = await signedIn(ctx)
    const utf16 = await api({
      method: 'POST',
      url: '/api/v3/vendors/',
      payload: Buffer.from('{"name":"x"}', 'utf16le'),
      headers: { 'content-type': 'application/json; charset=utf-16' },
    })
    assert.equal(utf16.statusCode, 415)
    problemOf(utf16)
    for (const charset of ['utf-8', 'UTF8', '"utf-8"']) {
      const ok = await api({
        method: 'POST',
        url: '/api/v3/vendors/',
        payload: '{"name":"Charset Co"}',
        headers: { 'content-type': `application/json; charset=${charset}` },
      })
      assert.equal(ok.statusCode, 201, charset)
    }
  })

  test('an empty body with a JSON content type is no body: DELETE and a body-less POST work', async () => {
    const { api, creds } = await signedIn(ctx)
    const created = (
      await api({ method: 'POST', url: '/api/v3/users/', payload: [{ email: 'gone@example.org' }] })
    ).json().data[0]
    const del = await api({
      method: 'DELETE',
      url: `/api/v3/users/${created.id}/`,
      payload: '',
      headers: { 'content-type': 'application/json' },
    })
    assert.equal(del.statusCode, 204, del.body)
    const rotate = await api({
      method: 'POST',
      url: `/api/v3/applications/${creds.client_id}/rotate/`,
      payload: '',
      headers: { 'content-type': 'application/json' },
    })
    assert.equal(rotate.statusCode, 200, rotate.body)
  })

  test('an empty Basic header is invalid_request, not invalid_client', async () => {
    for (const authorization of ['Basic ', 'Basic', 'basic    ']) {
      const response = await ctx.app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { authorization },
        payload: { grant_type: 'client_credentials', audience: 'x' },
      })
      assert.equal(response.statusCode, 400, authorization)
      assert.equal(response.json().error, 'invalid_request')
    }
  })

  test('Basic credentials with a NUL or over 1,024 characters are invalid_request, not a 500', async () => {
    const { creds } = await signedIn(ctx)
    const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`
    const cases = [
      basic('a%00b', 'secret'), // percent-encoded NUL in the client id
      basic(creds.client_id, 'x\u0000y'), // a raw NUL in the secret
      basic('x'.repeat(1025), 'secret'),
      basic(creds.client_id, 'x'.repeat(1025)),
    ]
    for (const url of ['/oauth/token', '/oauth/revoke'])
      for (const authorization of cases) {
        const response = await ctx.app.inject({
          method: 'POST',
          url,
          headers: { authorization },
          payload: { grant_type: 'client_credentials', audience: 'procurement-api', token: 'x' },
        })
        assert.equal(response.statusCode, 400, `${url} ${authorization.slice(0, 40)}: ${response.body}`)
        assert.equal(response.json().error, 'invalid_request')
      }
  })
})
