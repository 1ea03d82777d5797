/**
 * DECISIONS, Tenancy: every query of tenant data filters every tenant table it reads by `tenant_id` (a sharded
 * database — Citus — routes a query to one shard only then). This test checks the SQL the app really runs:
 * every statement is recorded (a Kysely plugin on the app's database) while a broad corpus is driven — a sample
 * tenant seeded through the services (its requests, orders, bills and approvals), then every GET route of the
 * API, the console and SCIM in the app's route table (ids filled from the lists; each documented query
 * parameter tried on its own) — and each distinct statement is parsed by PostgreSQL's own parser (libpg-query).
 *
 * The rule, per SELECT, UPDATE and DELETE anywhere in a statement (subqueries, CTEs and lateral joins
 * included): every tenant table in its FROM, JOIN, UPDATE target or DELETE target — a table with a `tenant_id`
 * column, read from the catalog — has a predicate on `<its alias>.tenant_id` (`=`, `IN`, `= ANY`) in the WHERE
 * or a JOIN's ON of that same SELECT/UPDATE/DELETE, or is joined `USING (tenant_id, …)`. The few statements that
 * must search across tenants (a credential that is looked up to find its tenant, the workers' queues) are
 * listed in CROSS_TENANT with the reason; a new one is a decision written down there, never an accident.
 *
 * A failure names each statement, the table and alias lacking the filter, and the requests that ran it (work
 * in the background — the rate limiter's sync, the webhook worker — is named after the request running at the
 * time). Routes added later are driven too: the test walks the route table, not a list.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance, InjectOptions } from 'fastify'
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely'
import { sql } from 'kysely'
import { loadModule, parseSync } from 'libpg-query'
import { buildApp } from '../src/app.ts'
import { insertWithCredentials } from '../src/applications/service.ts'
import { loadConfig } from '../src/config.ts'
import type { Database } from '../src/db/database.ts'
import { createSampleTenant } from '../src/seed/demo.ts'
import { resetPasswordLink } from '../src/tenants/service.ts'
import { TEST_AUDIENCE, testKeys } from './helpers/app.ts'
import { testDatabase, type TestDatabase } from './helpers/db.ts'
import { browser, PASSWORD } from './helpers/security.ts'

const BASE_DOMAIN = 'example.test'

/**
 * Statements that read tenant tables across tenants on purpose, each with why. `table` is the tenant table
 * read without a `tenant_id` filter, `sql` a pattern of the statement.
 */
const CROSS_TENANT: { table: string; sql: RegExp; why: string }[] = [
  {
    table: 'applications',
    sql: /^select .* from "applications" as "a" .* where "a"\."client_id" = \$1$/s,
    why: 'the token endpoint finds an application by its client id, which is unique across tenants, to learn its tenant',
  },
  {
    table: 'sessions',
    sql: /^select .* from "sessions" as "s" .* where "s"\."token_hash" = \$1 /s,
    why: "a console request finds its session by the cookie's hash, unique across tenants, to learn its tenant",
  },
  {
    table: 'invitations',
    sql: /^update "invitations" set .* where "token_hash" = \$\d+ /s,
    why: "a set-password link is found by its token's hash, unique across tenants, to learn its tenant",
  },
  {
    table: 'invitations',
    sql: /^select .* from "invitations" as "i" .* where "i"\."token_hash" = \$\d+/s,
    why: "a set-password link is found by its token's hash, unique across tenants, to learn its tenant",
  },
  {
    table: 'scim_tokens',
    sql: /^select .* from "scim_tokens" as "s" .* where "s"\."token_hash" (= \$1|in \(\$1\))$/s,
    why: "a SCIM request finds its token by the bearer token's hash, unique across tenants, to learn its tenant",
  },
  {
    table: 'rate_limit_windows',
    sql: /^delete from "rate_limit_windows" where "window_start" < \$1$/,
    why: "housekeeping: the rate limiter drops every tenant's windows older than a minute at once",
  },
  {
    table: 'webhook_deliveries',
    sql: /^\s*SELECT extract\(epoch FROM now\(\) - min\(d\.next_attempt_at\)\)/,
    why: "GET /metrics reports the process's webhook queue across all tenants (operations, not tenant data)",
  },
  {
    table: 'webhook_endpoints',
    sql: /^\s*SELECT extract\(epoch FROM now\(\) - min\(d\.next_attempt_at\)\)/,
    why: "GET /metrics reports the process's webhook queue across all tenants (operations, not tenant data)",
  },
]

// ---------------------------------------------------------------------------------------------------------
// Recording

interface Recorded {
  sql: string
  /** What ran it: the request (method and route) or the seeding step. */
  by: Set<string>
}

const recorded = new Map<string, Recorded>()
let running: string | undefined

/** Records every statement compiled through the database while `running` names what runs it. */
class Recorder implements KyselyPlugin {
  constructor(private readonly compile: (node: RootOperationNode, args: PluginTransformQueryArgs) => string) {}
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (running !== undefined) {
      const text = this.compile(args.node, args)
      const seen = recorded.get(text) ?? { sql: text, by: new Set<string>() }
      seen.by.add(running)
      recorded.set(text, seen)
    }
    return args.node
  }
  transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return Promise.resolve(args.result)
  }
}

async function during<T>(label: string, work: () => Promise<T>): Promise<T> {
  const before = running
  running = label
  try {
    return await work()
  } finally {
    running = before
  }
}

// ---------------------------------------------------------------------------------------------------------
// The rule, over PostgreSQL's parse tree

type Node = Record<string, unknown>
const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null

/** Calls `visit(type, body)` for every node of the tree (`{ Type: body }`), depth first. */
function walk(value: unknown, visit: (type: string, body: Node) => void): void {
  if (Array.isArray(value)) {
    for (const item of value) walk(item, visit)
    return
  }
  if (!isNode(value)) return
  for (const [key, child] of Object.entries(value)) {
    if (/^[A-Z]/.test(key) && isNode(child)) visit(key, child)
    walk(child, visit)
  }
}

const names = (fields: unknown): string[] =>
  Array.isArray(fields) ? fields.map((f) => (f as { String?: { sval?: string } }).String?.sval ?? '*') : []

interface Range {
  table: string
  alias: string
  /** Joined USING (tenant_id): filtered by its join partner. */
  using: boolean
}

/** The tables of one FROM list (join trees flattened) and the ON conditions of its joins. */
function rangesOf(items: unknown[], ranges: Range[], quals: unknown[], using = false): void {
  for (const item of items) {
    if (!isNode(item)) continue
    const rv = (item.RangeVar ?? (typeof item.relname === 'string' ? item : undefined)) as Node | undefined
    if (rv !== undefined) {
      const table = rv.relname as string
      const alias = ((rv.alias as Node | undefined)?.aliasname as string | undefined) ?? table
      ranges.push({ table, alias, using })
      continue
    }
    const join = item.JoinExpr as Node | undefined
    if (join !== undefined) {
      const joinedUsing = names(
        (join.usingClause as unknown[] | undefined)?.map((u) => ({ String: (u as Node).String })),
      )
      const byTenant = using || joinedUsing.includes('tenant_id')
      rangesOf([join.larg, join.rarg], ranges, quals, byTenant)
      if (join.quals !== undefined) quals.push(join.quals)
    }
    // RangeSubselect, RangeFunction, …: their own SELECTs are checked where the walk finds them.
  }
}

const FILTERING = new Set(['AEXPR_OP', 'AEXPR_IN', 'AEXPR_OP_ANY'])

/**
 * Whether `quals` hold `<alias>.tenant_id = …` (or IN, = ANY; either side), or bare `tenant_id` when `bare`,
 * against a value: a parameter, a constant, an expression, or another table's `tenant_id` — not another column
 * (`t.id = a.tenant_id`, a join to the shared `tenants`, filters nothing).
 */
function filters(quals: unknown[], alias: string, bare: boolean): boolean {
  let found = false
  const isTenantOf = (side: unknown) => {
    const ref = isNode(side) ? (side.ColumnRef as Node | undefined) : undefined
    if (ref === undefined) return false
    const path = names(ref.fields)
    return (
      (path.length === 2 && path[0] === alias && path[1] === 'tenant_id') || (bare && path.join('.') === 'tenant_id')
    )
  }
  const isValue = (side: unknown) => {
    const ref = isNode(side) ? (side.ColumnRef as Node | undefined) : undefined
    return ref === undefined || names(ref.fields).at(-1) === 'tenant_id'
  }
  // This scope's own conditions only: a subquery's `tenant_id = …` filters the subquery's tables, not these.
  const visit = (value: unknown): void => {
    if (found) return
    if (Array.isArray(value)) return value.forEach(visit)
    if (!isNode(value)) return
    for (const [type, child] of Object.entries(value)) {
      if (!isNode(child)) continue
      if (type === 'SubLink') {
        // `<alias>.tenant_id IN (SELECT …)` filters it; the subquery itself is checked as a scope of its own.
        if (child.subLinkType === 'ANY_SUBLINK' && isTenantOf(child.testexpr)) found = true
        continue
      }
      if (type === 'A_Expr' && FILTERING.has(child.kind as string)) {
        const op = names(child.name)[0]
        if (child.kind === 'AEXPR_IN' || op === '=')
          if ((isTenantOf(child.lexpr) && isValue(child.rexpr)) || (isTenantOf(child.rexpr) && isValue(child.lexpr)))
            found = true
      }
      visit(child)
    }
  }
  visit(quals)
  return found
}

/** Every tenant table (alias) a SELECT, UPDATE or DELETE of `statement` reads without a tenant_id filter. */
function unfiltered(tree: unknown, tenantTables: ReadonlySet<string>): Range[] {
  const missing: Range[] = []
  const scope = (items: unknown[], where: unknown) => {
    const ranges: Range[] = []
    const quals: unknown[] = where === undefined ? [] : [where]
    rangesOf(items, ranges, quals)
    const tenant = ranges.filter((r) => tenantTables.has(r.table))
    for (const range of tenant) {
      if (range.using) continue
      if (!filters(quals, range.alias, tenant.length === 1)) missing.push(range)
    }
  }
  walk(tree, (type, body) => {
    if (type === 'SelectStmt') scope((body.fromClause as unknown[] | undefined) ?? [], body.whereClause)
    else if (type === 'UpdateStmt')
      scope([body.relation, ...((body.fromClause as unknown[] | undefined) ?? [])], body.whereClause)
    else if (type === 'DeleteStmt')
      scope([body.relation, ...((body.usingClause as unknown[] | undefined) ?? [])], body.whereClause)
  })
  return missing
}

// ---------------------------------------------------------------------------------------------------------
// The app, the corpus

let app: FastifyInstance
let database: TestDatabase
let tenantTables: Set<string>

before(async () => {
  await loadModule()
  database = await testDatabase()
  const plain = database.db
  const recording: Database = {
    ...database,
    db: plain.withPlugin(new Recorder((node, args) => plain.getExecutor().compileQuery(node, args.queryId).sql)),
  }
  const { rows } = await sql<{ name: string }>`
    SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped
     WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')`.execute(plain)
  tenantTables = new Set(rows.map((r) => r.name))
  const config = loadConfig({ API_AUDIENCE: TEST_AUDIENCE, LOG_LEVEL: 'warn', DEMO_SEED: 'false', BASE_DOMAIN })
  const keys = testKeys()
  app = await buildApp({ config, database: recording, keys, checkResponses: false })
  await app.ready()
  await app.prepareMounts()
  Object.assign(corpus, { recording, keys })
})
after(async () => {
  await app?.close()
  await database?.close()
})

const corpus = {} as { recording: Database; keys: ReturnType<typeof testKeys> }

/** The first item's `field` (or `id`) of a list answer: `{ data: [...] }`, `{ Resources: [...] }` or an array. */
function firstOf(body: unknown, field: string): string | undefined {
  const list = Array.isArray(body) ? body : isNode(body) ? (body.data ?? body.Resources ?? body.items) : undefined
  if (!Array.isArray(list) || list.length === 0 || !isNode(list[0])) return undefined
  const item = list[0]
  const snake = field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
  const value = item[field] ?? item[snake] ?? item.id
  return typeof value === 'number' || typeof value === 'string' ? String(value) : undefined
}

/** One value per documented query parameter (from the route's querystring schema), each alone. */
function queryVariants(schema: unknown): string[] {
  const query = isNode(schema) ? (schema.querystring as Node | undefined) : undefined
  const properties = isNode(query?.properties) ? query.properties : {}
  const variants: string[] = []
  for (const [name, raw] of Object.entries(properties)) {
    const p = raw as Node
    const options = (p.anyOf as Node[] | undefined)?.[0] ?? p
    let value: string
    const scalar = (v: unknown) =>
      typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : 'a'
    if (Array.isArray(options.enum)) value = scalar(options.enum[0])
    else if (options.const !== undefined) value = scalar(options.const)
    else if (options.type === 'integer' || options.type === 'number') value = '1'
    else if (options.type === 'boolean') value = 'true'
    else if (options.format === 'date') value = '2026-01-01'
    else if (options.format === 'date-time') value = '2026-01-01T00:00:00Z'
    else value = 'a'
    variants.push(`${name}=${encodeURIComponent(value)}`)
  }
  return variants
}

describe('tenant_id on every tenant table a statement reads', () => {
  test('the SQL run by seeding a tenant and by every GET route of the API, the console and SCIM', async () => {
    const db = corpus.recording.db
    const domain = `tj${process.pid}`
    const host = `${domain}.${BASE_DOMAIN}`
    const tenantId = await during('seed: createSampleTenant (documents)', () =>
      db.transaction().execute((tx) => createSampleTenant(tx, domain, 'Joins Inc.', { documents: true })),
    )
    // A second tenant, so that a statement missing its filter has rows of another tenant to find.
    await database.db
      .transaction()
      .execute((tx) => createSampleTenant(tx, `${domain}b`, 'Other Inc.', { documents: false }))
    const admin = await database.db
      .selectFrom('users')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('email', '=', 'admin@example.com')
      .executeTakeFirstOrThrow()

    // The API caller (the token endpoint is in the corpus), the console's signed-in administrator, SCIM.
    const creds = await insertWithCredentials(database.db, corpus.keys.pepper, { tenantId, userId: admin.id })
    const issued = await during('POST /oauth/token', () =>
      app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { host },
        payload: { ...creds, audience: TEST_AUDIENCE, grant_type: 'client_credentials' },
      }),
    )
    assert.equal(issued.statusCode, 200, issued.body)
    const token = issued.json<{ access_token: string }>().access_token
    const link = await resetPasswordLink(database.db, domain, 'admin@example.com')
    const setupToken = link.split('/').pop()!
    const console = browser({ app } as never, host)
    const set = await during('POST /console/setup/:token', () =>
      console.post(`/console/setup/${setupToken}`, { password: PASSWORD, confirm: PASSWORD }),
    )
    assert.equal(set.statusCode, 303, set.body)
    const madeScim = await during('POST /api/v3/scim-tokens/', () =>
      app.inject({
        method: 'POST',
        url: '/api/v3/scim-tokens/',
        headers: { host, authorization: `Bearer ${token}`, 'x-service-client': 'api' },
        payload: { description: 'IdP' },
      }),
    )
    assert.equal(madeScim.statusCode, 201, madeScim.body)
    const scimToken = madeScim.json<{ data: { token: string } }>().data.token

    const headersFor = (url: string): Record<string, string> => {
      if (url.startsWith('/api/')) return { authorization: `Bearer ${token}`, 'x-service-client': 'api' }
      if (url.startsWith('/console')) return console.cookie === '' ? {} : { cookie: console.cookie }
      if (url.startsWith('/scim/')) return { authorization: `Bearer ${scimToken}` }
      return {}
    }
    const get = (route: string, url: string) =>
      during(`GET ${route}`, () =>
        app.inject({ method: 'GET', url, headers: { host, ...headersFor(url) } } satisfies InjectOptions),
      )

    /** The first id of the collection at `path` (the API's, for a console or SCIM page of the same name). */
    const listed = new Map<string, string | undefined>()
    const idFrom = async (path: string, field: string): Promise<string | undefined> => {
      const candidates = [path]
      if (path.startsWith('/console/')) candidates.push(path.replace(/^\/console\//, '/api/v3/'))
      for (const candidate of candidates) {
        const key = `${candidate} ${field}`
        if (!listed.has(key)) {
          const answer = await get(candidate, candidate)
          let body: unknown
          try {
            body = answer.json()
          } catch {
            body = undefined
          }
          listed.set(key, answer.statusCode === 200 ? firstOf(body, field) : undefined)
        }
        if (listed.get(key) !== undefined) return listed.get(key)
      }
      return undefined
    }

    const routes = app.routeTable.filter((r) => r.methods.has('GET') && !r.url.includes('*'))
    let driven = 0
    for (const route of routes) {
      // Fill each :param from the list one level up; unknown ones get 1 (the 404 path runs SQL too).
      const parts = route.url.split('/')
      let url = ''
      for (const part of parts) {
        if (part.startsWith(':')) {
          const id = await idFrom(`${url}/`, part.slice(1))
          url += `/${id ?? '1'}`
        } else url += url === '' && part === '' ? '' : `/${part}`
      }
      if (url === '') url = '/'
      if (route.url.endsWith('/') && !url.endsWith('/')) url += '/'
      await get(route.url, url)
      for (const variant of queryVariants(route.schemas.get('GET'))) await get(route.url, `${url}?${variant}`)
      driven++
    }
    assert.ok(driven > 50, `only ${driven} GET routes were driven; the route table is not what this test expects`)

    // The rule over every distinct statement.
    const failures: string[] = []
    let checked = 0
    for (const { sql: text, by } of recorded.values()) {
      let tree: unknown
      try {
        tree = parseSync(text)
      } catch (error) {
        failures.push(`could not parse (${(error as Error).message}):\n  ${text}`)
        continue
      }
      checked++
      const missing = unfiltered(tree, tenantTables).filter(
        (m) => !CROSS_TENANT.some((c) => c.table === m.table && c.sql.test(text)),
      )
      if (missing.length === 0) continue
      const tables = [...new Set(missing.map((m) => (m.alias === m.table ? m.table : `${m.table} as ${m.alias}`)))]
      const who = [...by].slice(0, 3).join('; ') + (by.size > 3 ? `; and ${by.size - 3} more` : '')
      failures.push(`${tables.join(', ')} without tenant_id — run by ${who}:\n  ${text.replace(/\s+/g, ' ').trim()}`)
    }
    assert.ok(checked > 100, `only ${checked} statements were recorded; the corpus did not run`)
    assert.equal(
      failures.length,
      0,
      `${failures.length} of ${checked} statements read a tenant table without filtering it by tenant_id ` +
        `(filter it — src/db/joins.ts byTenant for a join — or, if it must search across tenants, list it in ` +
        `CROSS_TENANT with the reason):\n\n${failures.join('\n\n')}`,
    )
  })
})
