/**
 * The approvals inbox (GET /api/v3/approvals/?status=pending, page 1), `me` (GET /api/v3/users/me/, with its
 * live pending_approvals_count) and the users list (GET /api/v3/users/, live counts on every row), against the
 * real server (its own process) and, in the same run, the raw floor replaying the same SQL (bench/floor).
 * PostgreSQL only: one tenant with BENCH_SMALL purchase requests (10,000) and one with BENCH_BIG (1,000,000),
 * 40 % of them pending with an approval whose candidates include the benchmark's user (an approver).
 * The users list has no form without counts, so the floor also runs its page statement with the count
 * sub-query replaced by 0: "floor, no counts".
 * `BENCH_BASE=<built checkouts, bench/ copied in>` also measures their inbox, server and floor, in the same rounds.
 * Run: npm run bench -- approvals   (BENCH_CONNECTIONS=10  BENCH_SECONDS=10  BENCH_RUNS=3)
 */
import { isDeepStrictEqual } from 'node:util'
import { sql, type Kysely } from 'kysely'
import { insertWithCredentials } from '../src/applications/service.ts'
import { pageOfApprovals } from '../src/approvals/repository.ts'
import type { Config } from '../src/config.ts'
import type { DB } from '../src/db/schema.ts'
import { publicBase } from '../src/http/public-url.ts'
import type { ServerKeys } from '../src/keys.ts'
import { signAccessToken } from '../src/oauth/tokens.ts'
import { findProfileOfUser, pageOfProfiles, profilePendingOrders } from '../src/users/repository.ts'
import type { FloorSpec, Statement } from './floor/spec.ts'
import { startBases } from './lib/base.ts'
import { captureRequest, indexOf, statementsOf, writeSpec } from './lib/capture.ts'
import { serveAndWait, serveTo } from './lib/serve.ts'
import { main } from './lib/cleanup.ts'
import { describeMachine, measure, type Measured } from './lib/load.ts'
import { startFloor, startServer, type Running } from './lib/process.ts'
import { fmt, median, medians, row, verdict } from './lib/report.ts'
import { request } from './lib/request.ts'
import { apiHeaders, seedTenant, type Tenant } from './lib/seed.ts'
import { BASE_DOMAIN, envNumber, POOL_MAX, RUNS, SECONDS, SECRETS, serverEnv, WARMUP_SECONDS } from './lib/settings.ts'
import { configFor, openRecorded, scratchDatabase, storeEnv } from './lib/store.ts'

const INBOX = '/api/v3/approvals/?status=pending'
const ME = '/api/v3/users/me/'
const USERS = '/api/v3/users/'
/** Served by the floor alone: the users list's page statement without the count sub-query. */
const USERS_NO_COUNTS = '/api/v3/users/?counts=none'
const APPROVERS = 20
const connections = envNumber('BENCH_CONNECTIONS', 10)
const small = envNumber('BENCH_SMALL', 10_000)
const big = envNumber('BENCH_BIG', 1_000_000)
/** Requests timed one at a time per target and tenant (BENCH_SEQUENTIAL). */
const SEQUENTIAL = envNumber('BENCH_SEQUENTIAL', 5)

/**
 * The sample tenant plus an Approver role (nav_approval), APPROVERS approvers at the first location, a rule
 * naming them, and `n` requests there (set-based): 40 % pending with a pending step-1 approval whose candidates
 * are the benchmark's approver and one other, 40 % approved and 10 % rejected (with their decided approval),
 * 10 % drafts; one line each. The tenant's token is the benchmark approver's.
 */
async function seedApprovals(
  db: Kysely<DB>,
  keys: ServerKeys,
  config: Readonly<Config>,
  domain: string,
  n: number,
): Promise<Tenant> {
  const started = performance.now()
  const sample = await seedTenant(db, keys, config, domain, 0)
  const tid = sample.id
  const one = async <T>(q: ReturnType<typeof sql<T>>) => (await q.execute(db)).rows[0]!
  const { location, currency, requester } = await one(sql<{ location: number; currency: number; requester: number }>`
    select (select min(id) from locations where tenant_id = ${tid}) as location,
      (select id from currencies where tenant_id = ${tid} and name = 'USD') as currency,
      (select id from users where tenant_id = ${tid} and email = 'requester@example.com') as requester`)
  const { role } = await one(sql<{ role: number }>`
    with r as (insert into roles (tenant_id, name, type) values (${tid}, 'Bench approver', 1) returning id)
    insert into role_permissions (tenant_id, role_id, permission_id)
      select ${tid}, r.id, p.id from r, permissions p where p.key in ('nav_approval', 'nav_request') returning role_id as role`)
  const approvers = (
    await sql<{ id: number }>`insert into users (tenant_id, email)
      select ${tid}, 'approver' || g || '@example.com' from generate_series(1, ${APPROVERS}) g returning id`.execute(db)
  ).rows
    .map((r) => r.id)
    .sort((a, b) => a - b)
  await sql`insert into user_profiles (tenant_id, user_id, first_name, last_name, role_id, location_id)
    select ${tid}, u, 'Approver', u::text, ${role}, ${location} from unnest(${approvers}::int[]) u`.execute(db)
  await sql`insert into role_grants (tenant_id, user_id, location_id, role_id)
    select ${tid}, u, null, ${role} from unnest(${approvers}::int[]) u`.execute(db)
  await sql`insert into user_locations (tenant_id, user_id, location_id, all_departments)
    select ${tid}, u, ${location}, true from unnest(${approvers}::int[]) u`.execute(db)
  await sql`insert into approval_rules (tenant_id, location_id, step, approvers)
    values (${tid}, ${location}, 1, ${approvers}::int[])`.execute(db)
  const benchUser = approvers[0]!
  const { after } = await one(sql<{ after: number }>`
    select coalesce(max(id), 0) as after from purchase_requests where tenant_id = ${tid}`)
  // Status by g % 10: 0–3 pending, 4–7 approved, 8 rejected, 9 draft.
  await sql`insert into purchase_requests (tenant_id, status, requester_id, location_id, currency_id, description,
      total, chain, submitted_at, created_at, updated_at)
    select ${tid}, case when g % 10 < 4 then 'pending' when g % 10 < 8 then 'approved' when g % 10 = 8 then 'rejected'
        else 'draft' end,
      ${requester}, ${location}, ${currency}, 'Bench request ' || g, 10 + g % 1000,
      case when g % 10 = 9 then '[]'::jsonb else jsonb_build_array(jsonb_build_object('step', 1,
        'candidates', jsonb_build_array(${benchUser}::int, (${approvers}::int[])[2 + g % ${APPROVERS - 1}]))) end,
      case when g % 10 = 9 then null else now() - make_interval(secs => ${n} - g) end,
      now() - make_interval(secs => ${n} - g), now() - make_interval(secs => ${n} - g)
    from generate_series(1, ${n}) g`.execute(db)
  await sql`insert into request_lines (tenant_id, request_id, position, description, quantity, unit_price)
    select tenant_id, id, 1, 'Bench line', 1, total from purchase_requests where tenant_id = ${tid} and id > ${after}`.execute(
    db,
  )
  await sql`insert into request_approvals (tenant_id, request_id, document_type, document_id, location_id, submitter_id,
      plan, step, status, candidates, acted_by, acted_at, created_at)
    select r.tenant_id, r.id, 'request', r.id, r.location_id, r.requester_id, r.chain, 1, r.status,
      array(select jsonb_array_elements_text(r.chain -> 0 -> 'candidates')::int),
      case when r.status = 'pending' then null else ${benchUser}::int end,
      case when r.status = 'pending' then null else r.submitted_at end, r.submitted_at
    from purchase_requests r where r.tenant_id = ${tid} and r.id > ${after} and r.status <> 'draft'`.execute(db)
  for (const table of ['users', 'user_profiles', 'purchase_requests', 'request_lines', 'request_approvals'])
    await sql`VACUUM ANALYZE ${sql.table(table)}`.execute(db)

  const app = await insertWithCredentials(db, keys.pepper, { tenantId: tid, userId: benchUser }, 'benchmark')
  const { secret_version } = await db
    .selectFrom('applications')
    .select('secret_version')
    .where('id', '=', app.id)
    .executeTakeFirstOrThrow()
  const { token } = await signAccessToken(keys, config, {
    tenantId: tid,
    domain,
    userId: benchUser,
    applicationId: app.id,
    clientId: app.client_id,
    secretVersion: secret_version,
  })
  console.log(
    `seeded tenant ${domain}: ${fmt(n)} requests (${fmt(Math.ceil(n * 0.4))} pending for the benchmark's approver) in ${fmt((performance.now() - started) / 1000, 1)} s`,
  )
  return { ...sample, adminId: benchUser, clientId: app.client_id, clientSecret: app.client_secret, token }
}

/**
 * The compiled text of the users list's per-row count (no parameters), to take it out of the page statement.
 * An older build in serve mode (BENCH_BASE), whose count still took its kind as a parameter, gets undefined: only
 * its inbox is measured.
 */
function countText(db: Kysely<DB>): string | undefined {
  const compiled = db.selectNoFrom(profilePendingOrders.as('bench_count')).compile()
  const text = /^select (.*) as "bench_count"$/s.exec(compiled.sql)?.[1]
  if (text !== undefined && compiled.parameters.length === 0) return text
  if (serveTo() !== undefined) return undefined
  throw new Error(`unexpected count SQL: ${compiled.sql}`)
}

await main(async () => {
  const store = { engine: 'postgres' as const, url: await scratchDatabase('approvals') }
  const { config, keys } = configFor(store)
  const recorded = await openRecorded(store)
  const { db } = recorded.database
  const tenants = [await seedApprovals(db, keys, config, 'small', small)]
  if (big > 0) tenants.push(await seedApprovals(db, keys, config, 'big', big))
  const sizeOf = (t: Tenant) => (t === tenants[0] ? small : big)

  // The floor replays what the service runs for each request; the statement that holds the answer is found
  // by calling the repository function the service calls, so a change to either is noticed here.
  const pages: NonNullable<FloorSpec['pages']> = { [INBOX]: {}, [ME]: {}, [USERS]: {}, [USERS_NO_COUNTS]: {} }
  const count = countText(db)
  for (const t of tenants) {
    const linkBase = publicBase(config, t.domain) ?? ''
    const [inboxPage] = await statementsOf(recorded, () =>
      pageOfApprovals(db, t.id, { status: 'pending' }, [t.adminId, []]),
    )
    const [profile] = await statementsOf(recorded, () => findProfileOfUser(db, t.id, t.adminId))
    const [usersPage] = await statementsOf(recorded, () => pageOfProfiles(db, t.id, {}))
    const capture = async (url: string, wanted: Statement, what: string) => {
      const captured = await captureRequest(recorded, store, { method: 'GET', url, headers: apiHeaders(t) })
      if (t === tenants[0])
        console.log(
          `${url} runs ${captured.statements.length} statement(s):\n${captured.statements.map((s) => `  ${s.sql.replace(/\s+/g, ' ').slice(0, 140)}…`).join('\n')}`,
        )
      return { ...captured, page: indexOf(captured.statements, wanted, what) }
    }
    const inbox = await capture(INBOX, inboxPage!, 'inbox page')
    pages[INBOX]![t.id] = { statements: inbox.statements, page: inbox.page, map: 'approval', linkBase }
    const me = await capture(ME, profile!, 'profile')
    pages[ME]![t.id] = {
      statements: me.statements,
      page: me.page,
      map: 'me',
      linkBase,
      body: JSON.parse(me.body) as unknown,
    }
    const users = await capture(USERS, usersPage!, 'users page')
    pages[USERS]![t.id] = { statements: users.statements, page: users.page, map: 'profile', linkBase }
    const withCounts = users.statements[users.page]!
    if (count === undefined) {
      pages[USERS_NO_COUNTS]![t.id] = pages[USERS]![t.id]!
      continue
    }
    if (!withCounts.sql.includes(count))
      throw new Error(`the users page no longer contains the count sub-query:\n${withCounts.sql}`)
    pages[USERS_NO_COUNTS]![t.id] = {
      statements: users.statements.map((s, i) => (i === users.page ? { ...s, sql: s.sql.split(count).join('0') } : s)),
      page: users.page,
      map: 'profile',
      linkBase,
    }
  }
  // BENCH_EXPLAIN=1: the plans of the statements that hold the answers (EXPLAIN ANALYZE, with their values);
  // BENCH_EXPLAIN=only: then stop.
  if (process.env.BENCH_EXPLAIN !== undefined && process.env.BENCH_EXPLAIN !== '')
    for (const t of tenants)
      for (const path of [INBOX, ME, USERS, USERS_NO_COUNTS]) {
        const p = pages[path]![t.id]!
        const s = p.statements[p.page]!
        const explained = await db.connection().execute(async (c) =>
          c.executeQuery<{ 'QUERY PLAN': string }>({
            sql: `explain (analyze, buffers) ${s.sql}`,
            parameters: s.parameters,
            query: sql``.toOperationNode(),
            queryId: { queryId: 'explain' },
          }),
        )
        console.log(
          `\n${path} at ${fmt(sizeOf(t))} requests:\n${explained.rows.map((r) => r['QUERY PLAN']).join('\n')}`,
        )
      }
  await recorded.database.close()
  if (process.env.BENCH_EXPLAIN === 'only') return

  const spec: FloorSpec = {
    engine: 'postgres',
    url: store.url,
    poolMax: POOL_MAX,
    signingKey: SECRETS.TOKEN_SIGNING_KEY,
    pepper: SECRETS.SECRET_PEPPER,
    issuer: config.TOKEN_ISSUER,
    audience: config.API_AUDIENCE,
    pages,
  }
  const server = await startServer(
    serverEnv({ ...storeEnv(store), BASE_DOMAIN, RATE_LIMIT_PER_MINUTE: process.env.BENCH_RATE_LIMIT ?? '1000000000' }),
  )
  const floor = await startFloor(writeSpec('approvals', spec))

  // Same answer from both (parsed: the server writes keys in its schema's order).
  for (const t of tenants)
    for (const path of [INBOX, ME, USERS]) {
      const [a, b] = [
        await request(server.base, { path, headers: apiHeaders(t) }),
        await request(floor.base, { path, headers: apiHeaders(t) }),
      ]
      if (a.status !== 200 || b.status !== 200)
        throw new Error(
          `${path}: server ${a.status}, floor ${b.status}: ${a.body.slice(0, 300)} ${b.body.slice(0, 300)}`,
        )
      if (!isDeepStrictEqual(JSON.parse(a.body), JSON.parse(b.body)))
        throw new Error(
          `${path}: the floor's JSON differs from the server's:\nserver ${a.body.slice(0, 600)}\nfloor  ${b.body.slice(0, 600)}`,
        )
      if (path === ME) {
        const counts = (JSON.parse(a.body) as { data: { pending_approvals_count: { order: number } } }).data
        console.log(`${t.domain}: me.pending_approvals_count.order = ${fmt(counts.pending_approvals_count.order)}`)
      }
    }
  // Serve mode (another build's run with BENCH_BASE naming this checkout): it measures; this waits.
  const served = { headers: apiHeaders(tenants[0]!) }
  if (serveTo() !== undefined) await serveAndWait([server, floor], served)
  const bases = await startBases<typeof served>('bench/approvals.ts')
  console.log(`server and floor give the same JSON; ${describeMachine(connections)}`)

  const targets: [Running, string][] = [
    [server, INBOX],
    [floor, INBOX],
    [server, ME],
    [floor, ME],
    [server, USERS],
    [floor, USERS],
    [floor, USERS_NO_COUNTS],
  ]
  // The other builds' inbox, server and floor, in the same rounds (their own tenants: headers by target name).
  const baseHeaders = new Map<string, Record<string, string>>()
  for (const b of bases)
    for (const target of b.targets) {
      targets.push([target, INBOX])
      baseHeaders.set(target.name, b.info.headers)
    }
  const one = (target: Running, path: string, t: Tenant, seconds: number) =>
    measure(target, { path, headers: baseHeaders.get(target.name) ?? apiHeaders(t), connections, seconds }).then(
      (m) => {
        if (m.errors > 0 || m.answered !== m.ok)
          throw new Error(`${target.name} ${path}: ${m.answered - m.ok} non-2xx, ${m.errors} errors`)
        return m
      },
    )
  // Under load: the small tenant only (at 1,000,000 requests an answer takes seconds, longer than a run).
  const [s, b] = tenants as [Tenant, Tenant | undefined]
  for (const [target, path] of targets) await one(target, path, s, WARMUP_SECONDS)
  const results = new Map<string, Measured[]>()
  for (let run = 0; run < RUNS; run++)
    for (const [target, path] of targets) {
      const key = `${target.name} ${path}`
      results.set(key, [...(results.get(key) ?? []), await one(target, path, s, SECONDS)])
    }
  // One at a time: the time of a single answer, for both tenants (after one unmeasured request each).
  const sequential = new Map<string, number>()
  for (const t of tenants)
    for (const [target, path] of targets.filter(([target]) => !baseHeaders.has(target.name))) {
      const times: number[] = []
      for (let i = 0; i <= SEQUENTIAL; i++) {
        const answer = await request(target.base, { path, headers: apiHeaders(t) })
        if (answer.status !== 200)
          throw new Error(`${target.name} ${path}: ${answer.status} ${answer.body.slice(0, 300)}`)
        if (i > 0) times.push(answer.ms)
      }
      sequential.set(`${target.name} ${path} ${t.domain}`, median(times))
    }
  await server.stop()
  await floor.stop()

  const m = (target: string, path: string) => medians(results.get(`${target} ${path}`)!)
  const ms = (target: string, path: string, t: Tenant) => sequential.get(`${target} ${path} ${t.domain}`)!
  for (const [target, path] of targets) console.log(row(`${target.name} ${path} ${fmt(small)}`, m(target.name, path)))
  for (const t of tenants)
    for (const [target, path] of targets.filter(([target]) => !baseHeaders.has(target.name)))
      console.log(
        `one at a time, ${target.name} ${path} at ${fmt(sizeOf(t))}: median ${fmt(ms(target.name, path, t), 1)} ms of ${SEQUENTIAL}`,
      )
  for (const path of [INBOX, ME, USERS])
    console.log(
      `INFO  ${path} at ${fmt(small)} requests, under load: server ÷ floor ${fmt((m('server', path).rps / m('floor', path).rps) * 100, 1)} %`,
    )
  // Per build, the inbox's server ÷ floor of each run, and their median.
  const inboxRatios = (serverName: string, floorName: string) =>
    results.get(`${serverName} ${INBOX}`)!.map((r, i) => r.rps / results.get(`${floorName} ${INBOX}`)![i]!.rps)
  const ours = median(inboxRatios('server', 'floor'))
  for (const b of bases) {
    const theirs = median(inboxRatios(b.targets[0]!.name, b.targets[1]!.name))
    console.log(
      `INFO  ${INBOX}: median of the runs' server ÷ floor, this build ${fmt(ours * 100, 1)} % (${inboxRatios(
        'server',
        'floor',
      )
        .map((r) => fmt(r * 100, 1))
        .join(', ')}), ${b.label} ${fmt(theirs * 100, 1)} % (${inboxRatios(b.targets[0]!.name, b.targets[1]!.name)
        .map((r) => fmt(r * 100, 1))
        .join(', ')})`,
    )
    verdict(`inbox: this build's ratio vs ${b.label} (no slower)`, ours >= theirs * 0.98)
  }
  if (b !== undefined)
    for (const path of [INBOX, ME]) {
      const slower = ms('server', path, b) / ms('server', path, s)
      const floorSlower = ms('floor', path, b) / ms('floor', path, s)
      verdict(
        `${path} one at a time at ${fmt(big)} requests takes ${fmt(slower, 2)}× the time of ${fmt(small)} (floor ${fmt(floorSlower, 2)}×; target ≤ 1.5×)`,
        slower <= 1.5,
      )
    }
  const counts = m('floor', USERS_NO_COUNTS).rps / m('floor', USERS).rps
  verdict(
    `users list at ${fmt(small)} requests, under load: the floor with live counts takes ${fmt(counts, 2)}× the time of the floor without them (target ≤ 1.2×); the server with counts ${fmt(m('floor', USERS_NO_COUNTS).rps / m('server', USERS).rps, 2)}×`,
    counts <= 1.2,
  )
  for (const t of tenants) {
    const times = ms('floor', USERS, t) / ms('floor', USERS_NO_COUNTS, t)
    verdict(
      `users list at ${fmt(sizeOf(t))} requests, one at a time: the floor with live counts takes ${fmt(times, 2)}× the time of the floor without them (target ≤ 1.2×); the server with counts ${fmt(ms('server', USERS, t) / ms('floor', USERS_NO_COUNTS, t), 2)}×`,
      times <= 1.2,
    )
  }
})
