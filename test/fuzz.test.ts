/**
 * Property-based fuzzing of every route: 10,000+ generated bad requests (wrong types, missing and extra
 * fields, field and query names of Object.prototype members at every depth, lone surrogates, invalid UTF-8,
 * duplicate keys, numeric edge cases, huge strings and arrays, bad JSON, bad query values, duplicate and
 * bad headers, absolute-form targets, wrong methods). None may get a 5xx; every 4xx outside /oauth/ is a
 * problem document, inside /oauth/ an OAuth error; nothing is written.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { sql } from 'kysely'
import { signedIn, useTestApp } from './helpers/app.ts'

const ctx = useTestApp({
  RATE_LIMIT_PER_MINUTE: '0',
  TOKEN_FAILURES_PER_CLIENT: '1000000',
  TOKEN_FAILURES_PER_ADDRESS: '1000000',
  LOG_LEVEL: 'warn',
})

/** Every table's row count and content hash: equal before and after means nothing was written. */
async function snapshot(): Promise<Record<string, string>> {
  const tables = await sql<{
    name: string
  }>`select tablename as name from pg_tables where schemaname = 'public' order by 1`.execute(ctx.database.db)
  const result: Record<string, string> = {}
  for (const { name } of tables.rows) {
    const row = await sql<{
      digest: string
    }>`select count(*) || ':' || md5(coalesce(string_agg(t::text, ',' order by t::text), '')) as digest from ${sql.table(name)} t`.execute(
      ctx.database.db,
    )
    result[name] = row.rows[0]!.digest
  }
  return result
}

const FIELDS = [
  'name',
  'email',
  'currency',
  'phoneOne',
  'primary_billing_address',
  'primary_shipping_address',
  'shipping_addresses',
  'first_name',
  'firstName',
  'lastName',
  'location',
  'department',
  'role_id',
  'locations',
  'legal_entity',
  'legal_entities',
  'type',
  'active',
  'description',
  'grant_type',
  'client_id',
  'client_secret',
  'audience',
  'token',
  'overall_score',
  'email_configurations',
] as const
/** Names that break code which keeps user-chosen keys in plain objects. */
const PROTO_NAMES = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  '__defineGetter__',
] as const
const LONE = ['x\ud800', '\udfff', 'a\udc00b', '\ud83d'] as const
/** Numbers JSON can write that JavaScript reads oddly: overflow to Infinity, negative zero, beyond 2^53. */
const RAW_NUMBERS = [
  '1e309',
  '-1e309',
  '-0',
  '9007199254740993',
  '1e-400',
  '0.1e1',
  '123456789012345678901234567890',
] as const
const QUERY_KEYS = [
  ...PROTO_NAMES,
  'page',
  'page_size',
  'order_by',
  'search',
  'format',
  'active',
  'type',
  'external_id',
  'name',
  'headquarter',
  'is_active',
  'location',
  'pending_invite',
  'role',
  'base',
  'unknown',
] as const

const key = fc.oneof(fc.constantFrom(...FIELDS), fc.constantFrom(...PROTO_NAMES), fc.constantFrom(...LONE))
const junkLeaf = fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.constantFrom(...LONE), fc.constant(null))
/** Nested objects whose keys are prototype-member names and field names, at every depth. */
const nested = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    junkLeaf,
    fc.dictionary(key, tie('node'), { maxKeys: 3 }),
    fc.array(tie('node'), { maxLength: 3 }),
  ),
})).node
const junk = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom(...LONE),
  nested,
  fc.string({ maxLength: 10, unit: 'binary' }),
  fc.constant('a\u0000b'),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant('x'.repeat(100_000)),
  fc.constant(Array.from({ length: 3000 }, (_, i) => i)),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
)
/** Bodies that can never be valid: every object carries a field no schema knows. */
const rawNumber = fc.constantFrom(...RAW_NUMBERS)
const body: fc.Arbitrary<string | Buffer> = fc.oneof(
  fc.dictionary(key, junk, { maxKeys: 6 }).map((o) => JSON.stringify({ ...o, __fuzz: true })),
  // Duplicate keys and raw numeric edge cases, written as JSON text.
  fc
    .tuple(fc.constantFrom(...FIELDS), junkLeaf, junkLeaf)
    .map(
      ([k, a, b]) => `{"__fuzz":1,${JSON.stringify(k)}:${JSON.stringify(a)},${JSON.stringify(k)}:${JSON.stringify(b)}}`,
    ),
  fc.tuple(fc.constantFrom(...FIELDS), rawNumber).map(([k, n]) => `{"__fuzz":1,${JSON.stringify(k)}:${n}}`),
  fc
    .tuple(fc.constantFrom(...FIELDS), rawNumber)
    .map(([k, n]) => `[{"__fuzz":1,"email":"a@example.com",${JSON.stringify(k)}:${n}}]`),
  // Invalid UTF-8 and lone surrogates as JSON escapes.
  fc.constantFrom(
    Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
    Buffer.from([0xc3, 0x28]),
    Buffer.from('{"name":"\\ud800","__fuzz":1}'),
  ),
  fc
    .array(
      fc.dictionary(fc.constantFrom(...FIELDS), junk, { maxKeys: 4 }).map((o) => ({ ...o, __fuzz: 1 })),
      { minLength: 1, maxLength: 5 },
    )
    .map((a) => JSON.stringify(a)),
  fc.constantFrom(
    '{',
    '[',
    '{"a":',
    'null',
    '"text"',
    '123',
    '{"a":1}}',
    '\u0000',
    '[]',
    '',
    'true',
    '[null]',
    '{"__proto__":{"x":1}}',
  ),
  fc.constant('x'.repeat(2_000_000)),
)
const badId = fc.oneof(
  fc.constantFrom(
    '0',
    '-1',
    '99999999999999999999',
    '2147483648',
    'abc',
    '1.5',
    '%00',
    '%2F..%2F',
    'me',
    'null',
    '1e3',
    '1e0',
    '%2B1',
    '01',
    '0x1',
    '-0',
    '1e309',
    '9007199254740993',
    '%ED%A0%80',
    '%FF',
    'constructor',
    '__proto__',
  ),
  fc.integer({ min: 10_000_000, max: 2_000_000_000 }).map(String),
  fc.string({ minLength: 1, maxLength: 30 }).map(encodeURIComponent),
)
const query = fc.dictionary(
  fc.constantFrom(...QUERY_KEYS),
  fc.oneof(
    fc.string({ maxLength: 20 }),
    fc.string({ maxLength: 6, unit: 'binary' }),
    fc.constantFrom(
      '-1',
      '0',
      '-0',
      '1e309',
      '9007199254740993',
      'true',
      'csv',
      '-name',
      'NaN',
      '',
      'a\u0000',
      ...LONE,
    ),
    fc.constant('x'.repeat(5000)),
  ),
  { maxKeys: 4 },
)

test('10,000+ generated bad requests: no 5xx, a proper error body for every 4xx, nothing written', async () => {
  const { token, api } = await signedIn(ctx)
  const routes = ctx.app.routeTable.filter((r) => !r.url.startsWith('/docs'))
  // The first read of the feed gives the sample data's events their numbers (migration 0012): bookkeeping,
  // done once before the snapshot; after it, a read writes nothing more unless something new was written.
  assert.equal((await api({ method: 'GET', url: '/api/v3/events/' })).statusCode, 200)
  const before = await snapshot()
  const statuses = new Map<number, number>()
  let requests = 0

  const request = fc.record({
    route: fc.constantFrom(...routes),
    otherMethod: fc.option(fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'), { freq: 5 }),
    id: badId,
    query,
    body,
    contentType: fc.constantFrom(
      'application/json',
      'application/json',
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/xml',
      undefined,
    ),
    auth: fc.constantFrom(
      'good',
      'good',
      'good',
      'none',
      'garbage',
      'no-client-header',
      'basic-garbage',
      'basic-empty',
    ),
    edge: fc.constantFrom(
      'none',
      'none',
      'none',
      'none',
      'absolute-form',
      'two-hosts',
      'bad-host',
      'two-client-headers',
      'utf16',
      'forwarded',
    ),
    idempotencyKey: fc.option(fc.oneof(fc.string({ maxLength: 10 }), fc.constant('k'.repeat(300))), { freq: 4 }),
  })

  await fc.assert(
    fc.asyncProperty(request, async (r) => {
      requests++
      const method = r.otherMethod ?? [...r.route.methods].filter((m) => m !== 'HEAD')[0] ?? 'GET'
      const path = r.route.url.replace(/:[A-Za-z_]+/g, r.id)
      const search = new URLSearchParams(r.query).toString()
      const headers: Record<string, string> = {}
      if (r.auth !== 'no-client-header') headers['x-service-client'] = 'api'
      if (r.auth === 'good' || r.auth === 'no-client-header') headers.authorization = `Bearer ${token}`
      if (r.auth === 'garbage') headers.authorization = 'Bearer ' + 'a'.repeat(50)
      if (r.auth === 'basic-garbage') headers.authorization = 'Basic !!!'
      if (r.auth === 'basic-empty') headers.authorization = 'Basic '
      if (r.contentType !== undefined) headers['content-type'] = r.contentType
      if (r.idempotencyKey !== null) headers['idempotency-key'] = r.idempotencyKey
      const multi: Record<string, string[]> = {}
      if (r.edge === 'two-hosts') multi.host = ['localhost', 'evil.example']
      if (r.edge === 'two-client-headers') multi['x-service-client'] = ['api', 'api']
      if (r.edge === 'bad-host') headers.host = 'evil example:99999'
      if (r.edge === 'utf16' && r.contentType !== undefined)
        headers['content-type'] = `${r.contentType}; charset=utf-16`
      if (r.edge === 'forwarded')
        Object.assign(headers, { 'x-forwarded-proto': 'javascript', 'x-forwarded-host': 'evil.example' })
      const hasBody = !['GET', 'DELETE', 'OPTIONS'].includes(method)
      const target = search ? `${path}?${search}` : path
      const response = await ctx.app.inject({
        method: method as 'GET',
        url: r.edge === 'absolute-form' ? `http://evil.example${target}` : target,
        headers: { ...headers, ...multi } as Record<string, string>,
        ...(hasBody ? { payload: r.body } : {}),
      })
      statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1)
      assert.ok(response.statusCode < 500, `${method} ${path} → ${response.statusCode}: ${response.body.slice(0, 300)}`)
      assert.doesNotMatch(
        `${JSON.stringify(response.headers)}${response.body}`,
        /evil\.example|javascript:/,
        'nothing of a forged host in the answer',
      )
      if (response.statusCode >= 400) {
        const type = String(response.headers['content-type'])
        // Errors from the OAuth routes are OAuth errors; a method no route serves is an HTTP matter (a problem, like everywhere).
        if (path.startsWith('/console')) {
          // The console answers people: an error page in HTML.
          assert.match(type, /text\/html/, `${method} ${path} → ${response.statusCode} ${type}`)
        } else if (path.startsWith('/scim/') && /application\/scim\+json/.test(type)) {
          // SCIM answers identity providers in its own error schema (RFC 7644 §3.12), its token checked first.
          const error = response.json()
          assert.deepEqual(error.schemas, ['urn:ietf:params:scim:api:messages:2.0:Error'])
          assert.equal(error.status, String(response.statusCode))
        } else if (path.startsWith('/oauth/') && r.route.methods.has(method)) {
          assert.match(type, /application\/json/, `${method} ${path}`)
          assert.equal(typeof response.json().error, 'string')
        } else {
          assert.match(type, /application\/problem\+json/, `${method} ${path} → ${response.statusCode} ${type}`)
          const problem = response.json()
          assert.equal(problem.status, response.statusCode)
          assert.ok(typeof problem.detail === 'string' && problem.detail.length > 0)
        }
      }
    }),
    { numRuns: 10_500 },
  )
  assert.ok(requests >= 10_000)
  const afterwards = await snapshot()
  const changed = Object.keys(before).filter((table) => before[table] !== afterwards[table])
  assert.deepEqual(changed, [], 'the database is unchanged')
  assert.ok(
    (statuses.get(400) ?? 0) > 100 && (statuses.get(401) ?? 0) > 0 && (statuses.get(404) ?? 0) > 0,
    JSON.stringify([...statuses]),
  )
})

test('client credentials of any text, in the body or HTTP Basic: an OAuth error, never a 5xx', async () => {
  const { creds } = await signedIn(ctx)
  // Any code point (control characters, NUL, lone surrogates), %-escapes that decode to them, any length.
  const text = fc.oneof(
    fc.string({ unit: 'binary' }),
    fc.constantFrom('%00', 'a%00b', '%ED%A0%80', '%', creds.client_id, 'x'.repeat(1100)),
  )
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom('/oauth/token', '/oauth/revoke'),
      fc.boolean(),
      text,
      text,
      async (url, basic, id, secret) => {
        const payload = { grant_type: 'client_credentials', audience: 'procurement-api', token: 'x' }
        const response = await ctx.app.inject({
          method: 'POST',
          url,
          ...(basic
            ? {
                headers: { authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` },
                payload,
              }
            : { payload: { ...payload, client_id: id, client_secret: secret } }),
        })
        assert.ok(response.statusCode >= 400 && response.statusCode < 500, `${response.statusCode} ${response.body}`)
        assert.equal(typeof response.json().error, 'string')
      },
    ),
    { numRuns: 500 },
  )
})
