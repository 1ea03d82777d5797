/** The error contract outside /oauth/ (docs/api.md, Errors): one problem format for everything. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { signedIn, useTestApp } from './helpers/app.ts'

const ctx = useTestApp({ BODY_LIMIT_BYTES: '4096' })

/** The documented problem type of each status (docs/api.md, Errors). */
const TYPES: Record<number, string> = {
  400: '/problems/validation',
  401: '/problems/unauthorized',
  403: '/problems/permission',
  404: '/problems/not-found',
  405: '/problems/method-not-allowed',
  409: '/problems/conflict',
  412: '/problems/precondition-failed',
  413: '/problems/too-large',
  415: '/problems/unsupported-media-type',
  422: '/problems/idempotency-mismatch',
}

function assertProblem(
  response: { statusCode: number; headers: Record<string, unknown>; json(): unknown },
  status: number,
) {
  assert.equal(response.statusCode, status)
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/)
  const body = response.json() as { status: number; title: string; detail: string; type: string }
  assert.equal(body.status, status)
  assert.ok(body.title && body.type)
  assert.ok(body.detail.length > 0)
  if (TYPES[status] !== undefined) assert.equal(body.type, TYPES[status], `type of a ${status}`)
}

test('415 for a non-JSON body, 413 over the body limit, 400 for malformed JSON, 405 with Allow', async () => {
  const { api } = await signedIn(ctx)
  assertProblem(
    await api({
      method: 'POST',
      url: '/api/v3/vendors/',
      payload: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    }),
    415,
  )
  assertProblem(
    await api({ method: 'POST', url: '/api/v3/vendors/', payload: 'name', headers: { 'content-type': 'text/plain' } }),
    415,
  )
  assertProblem(
    await api({
      method: 'POST',
      url: '/api/v3/vendors/',
      payload: JSON.stringify({ name: 'x'.repeat(5000) }),
      headers: { 'content-type': 'application/json' },
    }),
    413,
  )
  assertProblem(
    await api({
      method: 'POST',
      url: '/api/v3/vendors/',
      payload: '{"name": ',
      headers: { 'content-type': 'application/json' },
    }),
    400,
  )
  const wrong = await api({ method: 'DELETE', url: '/api/v3/vendors/' })
  assertProblem(wrong, 405)
  assert.equal(wrong.headers.allow, 'GET, HEAD, POST')
  assertProblem(await api({ method: 'GET', url: '/api/v3/nothing-here/' }), 404)
})

test('a NUL character anywhere is a 400, also at the token endpoint', async () => {
  const { api } = await signedIn(ctx)
  assertProblem(await api({ method: 'GET', url: '/api/v3/vendors/?search=a%00b' }), 400)
  assertProblem(await api({ method: 'POST', url: '/api/v3/vendors/', payload: { name: 'a\u0000b' } }), 400)
  const token = await ctx.app.inject({
    method: 'POST',
    url: '/oauth/token',
    payload: { client_id: '\u0000', client_secret: 'x', audience: 'a', grant_type: 'client_credentials' },
  })
  assert.equal(token.statusCode, 400)
  assert.equal(token.json().error, 'invalid_request')
})

test('validation errors name every bad field, with nested paths', async () => {
  const { api } = await signedIn(ctx)
  const response = await api({
    method: 'POST',
    url: '/api/v3/vendors/',
    payload: { name: 7, email: ['ok@example.com', 'nope'], extra: 1 },
  })
  assertProblem(response, 400)
  const errors = response.json<{ errors: Record<string, string[]> }>().errors
  assert.deepEqual(Object.keys(errors).sort(), ['email.1', 'extra', 'name'])
})

test('each kind of error has its own stable type: 401, 403, 409, 412, 422 too', async () => {
  const { api, tenant } = await signedIn(ctx)
  assertProblem(
    await ctx.app.inject({ method: 'GET', url: '/api/v3/vendors/', headers: { 'x-service-client': 'api' } }),
    401,
  )
  const requester = await signedIn(ctx, 'requester', tenant)
  assertProblem(await requester.api({ method: 'POST', url: '/api/v3/vendors/', payload: { name: 'Nope' } }), 403)
  const location = (await api({ method: 'GET', url: '/api/v2/locations/' })).json().data[0]
  const stale = await api({
    method: 'PUT',
    url: `/api/v2/locations/${location.id}/`,
    payload: location,
    headers: { 'if-match': '"stale"' },
  })
  assertProblem(stale, 412)
  const key = { 'idempotency-key': `errors-${Date.now()}` }
  assert.equal(
    (await api({ method: 'POST', url: '/api/v3/vendors/', payload: { name: 'Once' }, headers: key })).statusCode,
    201,
  )
  assertProblem(await api({ method: 'POST', url: '/api/v3/vendors/', payload: { name: 'Other' }, headers: key }), 422)
  const me = (await api({ method: 'GET', url: '/api/v3/users/me/' })).json().data
  assertProblem(await api({ method: 'DELETE', url: `/api/v3/users/${me.id}/` }), 409)
})

test('messages say how to fix it: allowed values, expected types, the path parameter by name', async () => {
  const { api } = await signedIn(ctx)
  const errorsOf = async (options: Parameters<typeof api>[0]) =>
    (await api(options)).json().errors as Record<string, string[]>
  assert.deepEqual((await errorsOf({ method: 'GET', url: '/api/v3/vendors/?format=xml' })).format, [
    'must be one of: json, csv',
  ])
  assert.match(
    (await errorsOf({ method: 'GET', url: '/api/v3/vendors/?order_by=city' })).order_by![0]!,
    /^must be one of: id, -id, name, -name/,
  )
  assert.deepEqual(
    (await errorsOf({ method: 'POST', url: '/api/v3/vendors/', payload: { name: 'x', currency: 'USD' } })).currency,
    ['must be a whole number or null'],
  )
  const path = await api({ method: 'GET', url: '/api/v3/vendors/abc/' })
  assert.match(path.json().detail, /The path is not valid/)
  assert.ok(path.json().errors.id)
})

test('the token endpoint names the audience it expects, and takes it from the query for tools that cannot add body fields', async () => {
  const { creds } = await signedIn(ctx)
  const wrong = await ctx.app.inject({
    method: 'POST',
    url: '/oauth/token',
    payload: { ...creds, audience: 'nope', grant_type: 'client_credentials' },
  })
  assert.equal(wrong.statusCode, 403)
  assert.match(wrong.json().error_description, /procurement-api-test/)
  const missing = await ctx.app.inject({
    method: 'POST',
    url: '/oauth/token',
    payload: { ...creds, grant_type: 'client_credentials' },
  })
  assert.match(missing.json().error_description, /audience is required: send "procurement-api-test"/)
  // What Swagger UI's "Authorize" sends: form body, HTTP Basic, ?audience=.
  const basic = Buffer.from(`${creds.client_id}:${creds.client_secret}`).toString('base64')
  const viaQuery = await ctx.app.inject({
    method: 'POST',
    url: '/oauth/token?audience=procurement-api-test',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'grant_type=client_credentials&scope=',
  })
  assert.equal(viaQuery.statusCode, 200, viaQuery.body)
})
