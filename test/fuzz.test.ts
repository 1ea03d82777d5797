/**
 * Property-based fuzzing of every route: 2,000+ generated bad requests (wrong types, missing and extra
 * fields, huge strings and arrays, bad JSON, bad query values, bad headers, wrong methods). None may get a
 * 5xx; every 4xx outside /oauth/ is a problem document, inside /oauth/ an OAuth error; nothing is written.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import fc from 'fast-check'
import { sql } from 'kysely'
import { signedIn, testApp, type TestContext } from './helpers/app.ts'

let ctx: TestContext
before(async () => {
  ctx = await testApp({ RATE_LIMIT_PER_MINUTE: '0', TOKEN_FAILURES_PER_CLIENT: '1000000', TOKEN_FAILURES_PER_ADDRESS: '1000000', LOG_LEVEL: 'warn' })
})
after(() => ctx.close())

/** Every table's row count and content hash: equal before and after means nothing was written. */
async function snapshot(): Promise<Record<string, string>> {
  const tables = await sql<{ name: string }>`select tablename as name from pg_tables where schemaname = 'public' order by 1`.execute(ctx.database.db)
  const result: Record<string, string> = {}
  for (const { name } of tables.rows) {
    const row = await sql<{ digest: string }>`select count(*) || ':' || md5(coalesce(string_agg(t::text, ',' order by t::text), '')) as digest from ${sql.table(name)} t`.execute(ctx.database.db)
    result[name] = row.rows[0]!.digest
  }
  return result
}

const FIELDS = [
  'name', 'email', 'currency', 'phoneOne', 'primary_billing_address', 'primary_shipping_address', 'shipping_addresses', 'first_name',
  'firstName', 'lastName', 'location', 'department', 'role_id', 'locations', 'legal_entity', 'legal_entities', 'type', 'active',
  'description', 'grant_type', 'client_id', 'client_secret', 'audience', 'token', 'overall_score', 'email_configurations',
] as const
const QUERY_KEYS = ['page', 'page_size', 'order_by', 'search', 'format', 'active', 'type', 'external_id', 'name', 'headquarter', 'is_active', 'location', 'pending_invite', 'role', 'base', 'unknown'] as const

const junk = fc.oneof(
  fc.string({ maxLength: 40 }),
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
const body = fc.oneof(
  fc.dictionary(fc.constantFrom(...FIELDS), junk, { maxKeys: 6 }).map((o) => JSON.stringify({ ...o, __fuzz: true })),
  fc.array(fc.dictionary(fc.constantFrom(...FIELDS), junk, { maxKeys: 4 }).map((o) => ({ ...o, __fuzz: 1 })), { minLength: 1, maxLength: 5 }).map((a) => JSON.stringify(a)),
  fc.constantFrom('{', '[', '{"a":', 'null', '"text"', '123', '{"a":1}}', '\u0000', '[]', '', 'true', '[null]', '{"__proto__":{"x":1}}'),
  fc.constant('x'.repeat(2_000_000)),
)
const badId = fc.oneof(
  fc.constantFrom('0', '-1', '99999999999999999999', '2147483648', 'abc', '1.5', '%00', '%2F..%2F', 'me', 'null', '1e3'),
  fc.integer({ min: 10_000_000, max: 2_000_000_000 }).map(String),
  fc.string({ minLength: 1, maxLength: 30 }).map(encodeURIComponent),
)
const query = fc.dictionary(
  fc.constantFrom(...QUERY_KEYS),
  fc.oneof(fc.string({ maxLength: 20 }), fc.string({ maxLength: 6, unit: 'binary' }), fc.constantFrom('-1', '0', '1e309', 'true', 'csv', '-name', 'NaN', '', 'a\u0000'), fc.constant('x'.repeat(5000))),
  { maxKeys: 4 },
)

test('2,000+ generated bad requests: no 5xx, a proper error body for every 4xx, nothing written', async () => {
  const { token } = await signedIn(ctx)
  const routes = ctx.app.routeTable.filter((r) => !r.url.startsWith('/docs'))
  const before = await snapshot()
  const statuses = new Map<number, number>()
  let requests = 0

  const request = fc.record({
    route: fc.constantFrom(...routes),
    otherMethod: fc.option(fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'), { freq: 5 }),
    id: badId,
    query,
    body,
    contentType: fc.constantFrom('application/json', 'application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/xml', undefined),
    auth: fc.constantFrom('good', 'good', 'good', 'none', 'garbage', 'no-client-header', 'basic-garbage'),
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
      if (r.contentType !== undefined) headers['content-type'] = r.contentType
      if (r.idempotencyKey !== null) headers['idempotency-key'] = r.idempotencyKey
      const hasBody = !['GET', 'DELETE', 'OPTIONS'].includes(method)
      const response = await ctx.app.inject({
        method: method as 'GET',
        url: search ? `${path}?${search}` : path,
        headers,
        ...(hasBody ? { payload: r.body } : {}),
      })
      statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1)
      assert.ok(response.statusCode < 500, `${method} ${path} → ${response.statusCode}: ${response.body.slice(0, 300)}`)
      if (response.statusCode >= 400) {
        const type = String(response.headers['content-type'])
        // Errors from the OAuth routes are OAuth errors; a method no route serves is an HTTP matter (a problem, like everywhere).
        if (path.startsWith('/oauth/') && r.route.methods.has(method)) {
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
    { numRuns: 2100 },
  )
  assert.ok(requests >= 2000)
  const afterwards = await snapshot()
  const changed = Object.keys(before).filter((table) => before[table] !== afterwards[table])
  assert.deepEqual(changed, [], 'the database is unchanged')
  assert.ok((statuses.get(400) ?? 0) > 100 && (statuses.get(401) ?? 0) > 0 && (statuses.get(404) ?? 0) > 0, JSON.stringify([...statuses]))
})
