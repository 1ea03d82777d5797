/**
 * The raw floor: a plain node:http server that does the irreducible work of each benchmarked request and
 * nothing else — verify the bearer JWT (jose, HS256, the server's key), replay the SQL the service ran for
 * the same request (captured by the harness, run here as named prepared statements on a pg.Pool of the
 * server's size, or on PGlite), and write the same JSON with JSON.stringify. The rows are mapped with the
 * service's own `toVendor`, their look-ups read once per tenant with the service's statement and then kept
 * in memory, like the service's warm cache; the token endpoint uses the service's HMAC check and signer.
 * Run by the harness: node --import tsx bench/floor/server.ts <spec.json>  (see bench/lib/process.ts, startFloor).
 */
import { createHash, createSecretKey } from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import { jwtVerify } from 'jose'
import pg from 'pg'
import { DUMMY_HASH } from '../../src/applications/credentials.ts'
import { secretMatches } from '../../src/core/secrets.ts'
import { signAccessToken, TOKEN_LIFETIME_SECONDS } from '../../src/oauth/tokens.ts'
import type { Lookups } from '../../src/lookups/cache.ts'
import type { VendorLookupTable } from '../../src/lookups/repository.ts'
import type { VendorLookup } from '../../src/lookups/schema.ts'
import type { VendorRow } from '../../src/vendors/repository.ts'
import { toVendor } from '../../src/vendors/service.ts'
import type { ApprovalRow } from '../../src/approvals/repository.ts'
import { toApproval } from '../../src/approvals/view.service.ts'
import { DEFAULT_PAGE_SIZE } from '../../src/core/list-query.ts'
import type { ProfileRow } from '../../src/users/repository.ts'
import { toProfile } from '../../src/users/service.ts'
import type { BudgetRow } from '../../src/budgets/repository.ts'
import { toBudget } from '../../src/budgets/view.service.ts'
import { monthName, reportNamed } from '../../src/reports/definitions.ts'
import type { FloorSpec, Statement } from './spec.ts'

const spec = JSON.parse(fs.readFileSync(process.argv[2]!, 'utf8'), (_key, value: unknown) => {
  if (typeof value === 'object' && value !== null && '$buffer' in value)
    return Buffer.from((value as { $buffer: string }).$buffer, 'base64')
  if (typeof value === 'object' && value !== null && '$date' in value)
    return new Date((value as { $date: string }).$date)
  return value
}) as FloorSpec

type Row = Record<string, unknown>
/** Runs a request's statements in order, in one session; `values(i)` gives the i-th statement's parameters. */
type Runner = (statements: Statement[], values: (i: number, results: Row[][]) => unknown[]) => Promise<Row[][]>

const PARSERS: Record<number, (text: string) => unknown> = { 20: Number, 1082: (t) => t, 1700: (t) => t }
const names = new Map<string, string>()
const nameOf = (text: string) => {
  let name = names.get(text)
  if (name === undefined)
    names.set(text, (name = `floor_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`))
  return name
}

async function openRunner(): Promise<{ run: Runner; ping: () => Promise<void> }> {
  if (spec.engine === 'postgres') {
    const pool = new pg.Pool({
      connectionString: spec.url,
      max: spec.poolMax,
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary'): unknown =>
          PARSERS[oid] ?? (pg.types.getTypeParser(oid, format) as unknown)) as typeof pg.types.getTypeParser,
      },
    })
    const one = (client: pg.Pool | pg.PoolClient, s: Statement, values: unknown[]) =>
      client.query<Row>(values.length === 0 ? s.sql : { name: nameOf(s.sql), text: s.sql, values }).then((r) => r.rows)
    return {
      // Like the service: a transaction keeps one connection; other statements take any free one.
      async run(statements, values) {
        const results: Row[][] = []
        if (!statements.some((s) => /^\s*begin\b/i.test(s.sql))) {
          for (const [i, s] of statements.entries()) results.push(await one(pool, s, values(i, results)))
          return results
        }
        const client = await pool.connect()
        try {
          for (const [i, s] of statements.entries()) results.push(await one(client, s, values(i, results)))
        } finally {
          client.release()
        }
        return results
      },
      ping: async () => void (await pool.query('select 1')),
    }
  }
  const { PGlite } = await import('@electric-sql/pglite')
  const pglite = await PGlite.create({ dataDir: spec.dataDir!, parsers: PARSERS })
  // One session: a request's statements run as one turn, in arrival order.
  let tail: Promise<unknown> = Promise.resolve()
  return {
    run(statements, values) {
      const turn = tail.then(async () => {
        const results: Row[][] = []
        for (const [i, s] of statements.entries())
          results.push((await pglite.query<Row>(s.sql, values(i, results), { rowMode: 'object' })).rows)
        return results
      })
      tail = turn.catch(() => undefined)
      return turn
    },
    ping: async () => void (await pglite.query('select 1')),
  }
}

const { run, ping } = await openRunner()
const key = createSecretKey(new TextEncoder().encode(spec.signingKey))
const keys = { signingKey: new TextEncoder().encode(spec.signingKey), pepper: Buffer.from(spec.pepper, 'utf8') }
const config = { TOKEN_ISSUER: spec.issuer, API_AUDIENCE: spec.audience }

class Answer extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

/** The tenant id of a valid bearer token (the same checks as the service's verifyAccessToken). */
async function tenantOf(request: http.IncomingMessage): Promise<string> {
  if (request.headers['x-service-client'] !== 'api') throw new Answer(400, 'X-Service-Client')
  const token = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/i.exec(request.headers.authorization ?? '')?.[1]
  if (token === undefined) throw new Answer(401, 'no token')
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: ['HS256'],
      issuer: spec.issuer,
      audience: spec.audience,
      typ: 'at+jwt',
      requiredClaims: ['exp', 'iat', 'jti', 'sub'],
    })
    return String(payload.tid)
  } catch {
    throw new Answer(401, 'invalid token')
  }
}

/** Every SELECT but the one named must find a row (they are the service's liveness checks). */
function checkLive(statements: Statement[], results: Row[][], except: number): void {
  for (const [i, rows] of results.entries())
    if (i !== except && rows.length === 0 && /^\s*select\b/i.test(statements[i]!.sql)) throw new Answer(401, 'revoked')
}

async function readBody(request: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown
  } catch {
    throw new Answer(400, 'body')
  }
}

/** No look-up is referenced (a created vendor names none). */
const NO_LOOKUPS: Lookups = () => null
/** Per tenant, its look-ups read once (a floor need not notice changes: the benchmark makes none). */
const lookupsOfTenant = new Map<string, Promise<Lookups>>()
function lookupsOf(tenantId: string, statement: Statement | undefined): Promise<Lookups> {
  if (statement === undefined) return Promise.resolve(NO_LOOKUPS)
  let lookups = lookupsOfTenant.get(tenantId)
  if (lookups === undefined) {
    lookups = run([statement], () => statement.parameters).then(([rows]) => {
      const found = new Map<string, VendorLookup>()
      for (const { kind, id, name, description, active } of rows as (VendorLookup & { kind: string })[])
        found.set(`${kind}:${id}`, { id, name, description, active })
      return (table: VendorLookupTable, id: number | null) =>
        id === null ? null : (found.get(`${table}:${id}`) ?? null)
    })
    lookupsOfTenant.set(tenantId, lookups)
  }
  return lookups
}

async function listVendors(request: http.IncomingMessage, url: URL) {
  const tenantId = await tenantOf(request)
  const tenant = spec.list?.tenants[tenantId]
  if (tenant === undefined) throw new Answer(401, 'tenant')
  const lookups = await lookupsOf(tenantId, tenant.lookups)
  const results = await run(tenant.statements, (i) => tenant.statements[i]!.parameters)
  checkLive(tenant.statements, results, tenant.page)
  const rows = results[tenant.page]!
  const count = Number(rows[0]?.total_count ?? 0)
  for (const row of rows) delete row.total_count
  const pageSize = spec.list!.pageSize
  const page = 1
  const numPages = Math.max(1, Math.ceil(count / pageSize))
  const link = (n: number) => {
    const u = new URL(url)
    u.searchParams.set('page', String(n))
    return `${tenant.linkBase}${u.pathname}${u.search}`
  }
  return {
    status: 200,
    body: {
      metadata: {
        pagination: {
          count,
          next: page < numPages ? link(page + 1) : null,
          previous: null,
          page_size: pageSize,
          num_pages: numPages,
          current_page: page,
        },
      },
      data: rows.map((row) => toVendor(row as unknown as VendorRow, lookups)),
    },
  }
}

/** A list page or `me` (spec.pages): the same token check, the request's statements, the same JSON. */
async function page(request: http.IncomingMessage, url: URL) {
  const byTenant = spec.pages?.[`${url.pathname}${url.search}`]
  if (byTenant === undefined) throw new Answer(404, 'not found')
  const tenant = byTenant[await tenantOf(request)]
  if (tenant === undefined) throw new Answer(401, 'tenant')
  const results = await run(tenant.statements, (i) => tenant.statements[i]!.parameters)
  const rows = results[tenant.page]!
  if (tenant.map === 'me') {
    const body = structuredClone(tenant.body) as { data: { pending_approvals_count: unknown } }
    const pending = (rows[0] as { pending?: object } | undefined)?.pending
    if (pending === undefined) throw new Answer(401, 'no profile')
    body.data.pending_approvals_count = { order: 0, expense: 0, travel: 0, bill: 0, payment: 0, ...pending }
    return { status: 200, body }
  }
  if (tenant.map === 'budget') {
    const row = rows[0] as unknown as BudgetRow | undefined
    if (row === undefined) throw new Answer(404, 'no budget')
    return { status: 200, body: { ...(tenant.body as object), data: toBudget(row) } }
  }
  if (tenant.map === 'spend') {
    const data = rows.map((r) => ({
      key:
        r.key_id === null
          ? null
          : tenant.group === 'month'
            ? { id: r.key_id, name: monthName(r.key_id as string) }
            : { id: Number(r.key_id), name: r.key_name ?? '' },
      documents: Number(r.documents),
      amount: r.amount,
    }))
    const body = tenant.body as { metadata: object }
    const totals = reportNamed('spend')!.totals(data)
    return { status: 200, body: { data, metadata: { ...body.metadata, totals } } }
  }
  const count = Number(rows[0]?.total_count ?? 0)
  for (const row of rows) delete row.total_count
  const pageSize = DEFAULT_PAGE_SIZE
  const numPages = Math.max(1, Math.ceil(count / pageSize))
  const link = (n: number) => {
    const u = new URL(url)
    u.searchParams.set('page', String(n))
    return `${tenant.linkBase}${u.pathname}${u.search}`
  }
  const map = (row: Row): unknown =>
    tenant.map === 'approval' ? toApproval(row as unknown as ApprovalRow) : toProfile(row as unknown as ProfileRow)
  return {
    status: 200,
    body: {
      metadata: {
        pagination: {
          count,
          next: numPages > 1 ? link(2) : null,
          previous: null,
          page_size: pageSize,
          num_pages: numPages,
          current_page: 1,
        },
      },
      data: rows.map(map),
    },
  }
}

async function createVendor(request: http.IncomingMessage) {
  const tenant = spec.create?.tenants[await tenantOf(request)]
  if (tenant === undefined) throw new Answer(401, 'tenant')
  const body = await readBody(request)
  if (typeof (body as { name?: unknown }).name !== 'string') throw new Answer(400, 'name')
  const { statements, insert, select, capturedId } = tenant
  const results = await run(statements, (i, done) => {
    const parameters = statements[i]!.parameters
    if (i <= insert) return parameters
    const id = done[insert]![0]!.id as number
    return parameters.map((p) => (p === capturedId ? id : p === String(capturedId) ? String(id) : p))
  })
  checkLive(statements, results, select)
  const vendor = toVendor(results[select]![0] as unknown as VendorRow, NO_LOOKUPS)
  return {
    status: 201,
    body: { metadata: {}, data: vendor },
    location: `${tenant.linkBase}/api/v3/vendors/${vendor.id}/`,
  }
}

async function issueToken(request: http.IncomingMessage) {
  const body = (await readBody(request)) as Record<string, unknown>
  const { client_id, client_secret, audience, grant_type } = body
  if (grant_type !== 'client_credentials' || typeof client_id !== 'string' || typeof client_secret !== 'string')
    throw new Answer(400, 'grant')
  const t = spec.token!
  const results = await run(t.statements, (i) =>
    t.statements[i]!.parameters.map((p) => (p === t.clientId ? client_id : p)),
  )
  const app = results[t.lookup]![0] as
    | {
        id: number
        tenant_id: number
        user_id: number
        client_id: string
        secret_hash: Buffer
        secret_version: number
        revoked_at: Date | null
        domain: string
        email: string
        tenant_active: boolean
        user_active: boolean
      }
    | undefined
  const matches = secretMatches(keys.pepper, client_secret, app?.secret_hash ?? DUMMY_HASH)
  if (app === undefined || !matches || app.revoked_at !== null || !app.user_active || !app.tenant_active)
    throw new Answer(401, 'invalid_client')
  if (audience !== spec.audience) throw new Answer(400, 'audience')
  const { token } = await signAccessToken(keys, config, {
    tenantId: app.tenant_id,
    domain: app.domain,
    userId: app.user_id,
    applicationId: app.id,
    clientId: app.client_id,
    secretVersion: app.secret_version,
  })
  return {
    status: 200,
    body: {
      access_token: token,
      scope: `urn:service-api:domain:${app.domain} urn:service-api:email:${app.email}`,
      expires_in: TOKEN_LIFETIME_SECONDS,
      token_type: 'Bearer',
    },
  }
}

/** A captured value's key in the replacement map: its type and text (a Date by its ISO text). */
const keyOf = (value: unknown): string | undefined =>
  typeof value === 'number' || typeof value === 'bigint'
    ? `n:${value}`
    : typeof value === 'string'
      ? `s:${value}`
      : value instanceof Date
        ? `s:${value.toISOString()}`
        : undefined

/** Learns captured → now from two results of the same statement (same shape): every value that differs. */
function learn(map: Map<string, unknown>, captured: unknown, now: unknown): void {
  if (Array.isArray(captured) && Array.isArray(now)) {
    for (let i = 0; i < Math.min(captured.length, now.length); i++) learn(map, captured[i], now[i])
    return
  }
  if (captured instanceof Date && now instanceof Date) {
    if (captured.getTime() !== now.getTime()) map.set(keyOf(captured)!, now.toISOString())
    return
  }
  if (typeof captured === 'object' && captured !== null && typeof now === 'object' && now !== null) {
    for (const k of Object.keys(captured)) learn(map, (captured as Row)[k], (now as Row)[k])
    return
  }
  const key = keyOf(captured)
  if (key !== undefined && captured !== now && typeof now === typeof captured) setPair(map, captured, now)
}

/** captured → now; an id also as text (an audit entry's resource id, a URL's id). */
function setPair(map: Map<string, unknown>, captured: unknown, now: unknown): void {
  map.set(keyOf(captured)!, now)
  if (typeof captured === 'number') map.set(`s:${captured}`, String(now))
}

/** `value` with the map's replacements, inside arrays, objects and JSON text too. */
function replace(map: Map<string, unknown>, value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => replace(map, v))
  if (value instanceof Date) {
    const to = map.get(keyOf(value)!)
    return to === undefined ? value : new Date(to as string)
  }
  if (Buffer.isBuffer(value)) return value
  if (typeof value === 'object' && value !== null) {
    const out: Row = {}
    for (const [k, v] of Object.entries(value)) out[k] = replace(map, v)
    return out
  }
  const key = keyOf(value)
  if (key === undefined) return value
  const to = map.get(key)
  if (to !== undefined) return to
  if (typeof value === 'string' && (value.startsWith('{') || value.startsWith('['))) {
    try {
      return JSON.stringify(replace(map, JSON.parse(value)))
    } catch {
      return value
    }
  }
  return value
}

const replays = (spec.replay ?? []).map((r) => ({ ...r, pattern: new RegExp(`^${r.path}$`) }))

/** A write on a fresh resource (spec.replay): the captured statements with the request's values. */
async function replay(request: http.IncomingMessage, url: URL, r: (typeof replays)[number], match: RegExpExecArray) {
  const tenantId = await tenantOf(request)
  void tenantId
  const body = await readBody(request).catch(() => ({}))
  const key = r.bodyKey === undefined ? match[1]! : String((body as Row)[r.bodyKey])
  const pairs = r.resources[key]
  if (pairs === undefined) throw new Answer(404, `no resource ${key}`)
  const map = new Map<string, unknown>()
  for (const [from, to] of pairs) setPair(map, from, to)
  let learned = 0
  const catchUp = (done: Row[][]) => {
    for (; learned < done.length; learned++) learn(map, r.statements[learned]!.rows, done[learned])
  }
  const results = await run(r.statements, (i, done) => {
    catchUp(done)
    return replace(map, r.statements[i]!.parameters) as unknown[]
  })
  catchUp(results)
  void url
  return { status: r.status, body: replace(map, r.body) }
}

const server = http.createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://floor.invalid')
  const route = `${request.method} ${url.pathname}`
  const replayed = replays.find((r) => r.method === request.method && r.pattern.test(url.pathname))
  const handle = replayed
    ? replay(request, url, replayed, replayed.pattern.exec(url.pathname)!)
    : route === 'GET /api/v3/vendors/'
      ? listVendors(request, url)
      : route === 'POST /api/v3/vendors/'
        ? createVendor(request)
        : route === 'POST /oauth/token'
          ? issueToken(request)
          : request.method === 'GET' && spec.pages?.[`${url.pathname}${url.search}`] !== undefined
            ? page(request, url)
            : route === 'GET /readyz'
              ? ping().then(() => ({ status: 200, body: { status: 'ok' } }))
              : Promise.reject(new Answer(404, 'not found'))
  handle.then(
    (answer: { status: number; body: unknown; location?: string }) => {
      const headers: http.OutgoingHttpHeaders = { 'content-type': 'application/json; charset=utf-8' }
      if (answer.location !== undefined) headers.location = answer.location
      response.writeHead(answer.status, headers).end(JSON.stringify(answer.body))
    },
    (error: unknown) => {
      const status = error instanceof Answer ? error.status : 500
      if (status === 500) console.error(error)
      response
        .writeHead(status, { 'content-type': 'application/json; charset=utf-8' })
        .end(JSON.stringify({ error: (error as Error).message }))
    },
  )
})
server.keepAliveTimeout = 60_000
server.listen(0, '127.0.0.1', () => {
  const address = server.address()
  console.log(`floor listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`)
})
process.once('SIGTERM', () => process.exit(0))
