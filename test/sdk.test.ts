/**
 * The SDK against the real server (listening, on the engine under test): token caching and single flight,
 * refresh after revocation, retries after 503 that write once, iteration over 1,000+ vendors, typed errors.
 */
import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'node:test'
import { OAuthError, ProblemError, ProcurementClient } from '../sdk/src/index.ts'
import { clientFor, sampleTenant, TEST_AUDIENCE, useTestApp } from './helpers/app.ts'

const ctx = useTestApp({ RATE_LIMIT_PER_MINUTE: '0' })
let base = ''
/** The app listening on a port of its own (once). */
const listening = async () => (base ||= await ctx.app.listen({ port: 0, host: '127.0.0.1' }))

/** A fetch that counts what it sends, per path. */
function countingFetch() {
  const counts = new Map<string, number>()
  const fetcher: typeof fetch = (input, init) => {
    const path = new URL(input instanceof Request ? input.url : String(input)).pathname
    counts.set(path, (counts.get(path) ?? 0) + 1)
    return fetch(input, init)
  }
  return { fetcher, count: (path: string) => counts.get(path) ?? 0 }
}

async function newClient(options: { fetch?: typeof fetch; baseUrl?: string; documents?: boolean } = {}) {
  await listening()
  const tenant = await sampleTenant(ctx, undefined, { documents: options.documents ?? false })
  const creds = await clientFor(ctx, tenant)
  const client = new ProcurementClient({
    baseUrl: options.baseUrl ?? base,
    clientId: creds.client_id,
    clientSecret: creds.client_secret,
    audience: TEST_AUDIENCE,
    retryDelayMs: 10,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  })
  return { client, tenant, creds }
}

test('100 concurrent calls need one token request; the token is reused afterwards', async () => {
  const { fetcher, count } = countingFetch()
  const { client } = await newClient({ fetch: fetcher })
  const pages = await Promise.all(Array.from({ length: 100 }, () => client.vendors.list({ page_size: 1 })))
  assert.ok(pages.every((p) => p.data.length === 1))
  await client.me()
  assert.equal(count('/oauth/token'), 1)
  assert.equal(count('/api/v3/vendors/'), 100)
})

test('a revoked token is replaced once, transparently', async () => {
  const { fetcher, count } = countingFetch()
  const { client, creds } = await newClient({ fetch: fetcher })
  const token = await client.accessToken()
  const revoked = await fetch(`${base}/oauth/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...creds, token }),
  })
  assert.equal(revoked.status, 200)
  assert.equal((await client.vendors.list()).pagination.count, 28)
  assert.equal(count('/oauth/token'), 2)
})

/** A proxy in front of the server that answers 503 (Retry-After: 0) to the first `failures` requests — after forwarding them when `afterForwarding`. */
async function flakyProxy(failures: number, afterForwarding: boolean) {
  await listening()
  let failed = 0
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const fail = request.url!.startsWith('/api/') && failed < failures
      if (fail) failed++
      if (fail && !afterForwarding) {
        response.writeHead(503, { 'retry-after': '0', 'content-type': 'application/problem+json' })
        return response.end(
          JSON.stringify({
            type: '/problems/unavailable',
            title: 'Service Unavailable',
            status: 503,
            detail: 'try again',
          }),
        )
      }
      const upstream = http.request(
        `${base}${request.url}`,
        { method: request.method, headers: request.headers },
        (answer) => {
          if (fail) {
            answer.resume()
            response.writeHead(503, { 'retry-after': '0' })
            return response.end()
          }
          response.writeHead(answer.statusCode!, answer.headers)
          answer.pipe(response)
        },
      )
      upstream.end(Buffer.concat(chunks))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(resolve)),
    failed: () => failed,
  }
}

test('retries after 503 honour Retry-After; a POST whose answer was lost writes once (same Idempotency-Key)', async () => {
  const before503 = await flakyProxy(2, false)
  const lost = await flakyProxy(1, true)
  try {
    const { client } = await newClient({ baseUrl: before503.url })
    assert.equal((await client.vendors.list()).pagination.count, 28)
    assert.equal(before503.failed(), 2)
    const { client: writer, tenant } = await newClient({ baseUrl: lost.url })
    const vendor = await writer.vendors.create({ name: 'Written Once Ltd' })
    assert.equal(lost.failed(), 1, 'the first answer was lost after the write')
    const rows = await ctx.database.db
      .selectFrom('vendors')
      .select('id')
      .where('tenant_id', '=', tenant.tenantId)
      .where('name', '=', 'Written Once Ltd')
      .execute()
    assert.deepEqual(
      rows.map((r) => r.id),
      [vendor.id],
    )
  } finally {
    await before503.close()
    await lost.close()
  }
})

test('iterate walks every page: 1,000+ vendors, each once', async () => {
  const { client, tenant } = await newClient()
  await ctx.database.db
    .insertInto('vendors')
    .values(
      Array.from({ length: 1000 }, (_, i) => ({
        tenant_id: tenant.tenantId,
        name: `Bulk ${String(i).padStart(4, '0')}`,
      })),
    )
    .execute()
  const seen: number[] = []
  for await (const vendor of client.vendors.iterate()) seen.push(vendor.id)
  assert.equal(seen.length, 1028)
  assert.equal(new Set(seen).size, 1028)
  let active = 0
  for await (const vendor of client.vendors.iterate({ active: true, search: 'Bulk 09' }))
    active += vendor.name.startsWith('Bulk 09') ? 1 : 0
  assert.equal(active, 100)
})

test('errors are typed: ProblemError with type and field errors; OAuthError for bad credentials', async () => {
  const { client } = await newClient()
  await assert.rejects(client.vendors.create({ name: '' }), (error: unknown) => {
    assert.ok(error instanceof ProblemError)
    assert.equal(error.status, 400)
    assert.equal(error.type, '/problems/validation')
    assert.ok((error.errors as Record<string, string[]>).name)
    return true
  })
  await assert.rejects(
    client.vendors.get(999_999_999),
    (error: unknown) => error instanceof ProblemError && error.type === '/problems/not-found',
  )
  const wrong = new ProcurementClient({
    baseUrl: base,
    clientId: 'pc_nobody',
    clientSecret: 'nope',
    audience: TEST_AUDIENCE,
  })
  await assert.rejects(
    wrong.vendors.list(),
    (error: unknown) => error instanceof OAuthError && error.error === 'invalid_client' && error.status === 401,
  )
})

test('every resource answers through its typed method', async () => {
  const { client } = await newClient()
  const me = await client.me()
  assert.equal(me.email, 'admin@example.com')
  for (const lookup of [
    client.currencies,
    client.legalEntities,
    client.departments,
    client.roles,
    client.paymentTerms,
    client.shippingTerms,
    client.paymentMethods,
    client.shippingMethods,
  ]) {
    assert.ok((await lookup.list()).data.length > 0)
  }
  const { data, etag } = await client.locations.getVersioned((await client.locations.list()).data[0]!.id)
  assert.ok(etag)
  const replaced = await client.locations.replace(
    data.id,
    { ...data, currency: data.currency.name, legal_entity: data.legal_entity?.id ?? null, fax: '+1 555 0199' },
    { ifMatch: etag },
  )
  assert.equal(replaced.data.fax, '+1 555 0199')
  await assert.rejects(
    client.locations.replace(data.id, { ...data, currency: data.currency.name, legal_entity: null }, { ifMatch: etag }),
    (e: unknown) => e instanceof ProblemError && e.status === 412,
  )
  const users = await client.users.createBatch([{ email: 'sdk1@example.org' }, { email: 'sdk2@example.org' }])
  assert.equal(users.length, 2)
  const one = await client.users.create({
    email: 'sdk3@example.org',
    firstName: 'S',
    lastName: 'D',
    location: null,
    department: null,
  })
  await client.users.deactivate(one.id)
  assert.equal((await client.users.get(one.id)).is_active, false)
  const app = await client.applications.create('sdk test')
  assert.equal((await client.applications.get(app.client_id)).description, 'sdk test')
  const rotated = await client.applications.rotate(app.client_id)
  assert.notEqual(rotated.client_secret, app.client_secret)
  await client.applications.revoke(app.client_id)
  const vendor = await client.vendors.update((await client.vendors.list({ page_size: 1 })).data[0]!.id, {
    city: 'Oslo',
  })
  assert.equal(vendor.city, 'Oslo')
})

test('the request → approval flow through the SDK: roles, grants, rules, requests, approvals, delegation', async () => {
  const { client } = await newClient({ documents: true }) // counts the demo's approvals
  const role = await client.roles.create({
    name: 'SDK approver',
    type: 1,
    permissions: ['nav_approval', 'nav_request'],
  })
  assert.deepEqual(role.permissions, ['nav_approval', 'nav_request'])
  const location = (await client.locations.list()).data[0]!.id
  const approver = await client.users.create({
    email: 'sdk-approver@example.org',
    firstName: 'Sam',
    lastName: 'Approver',
    location: null,
    department: null,
  })
  assert.deepEqual(await client.userAccess.setLocationRoles(approver.id, [{ location, role: role.id }]), [
    { location, role: role.id },
  ])
  assert.deepEqual(await client.userAccess.locationRoles(approver.id), [{ location, role: role.id }])
  await assert.rejects(client.roles.delete(role.id), (e: unknown) => e instanceof ProblemError && e.status === 409)
  const rule = await client.approvalRules.create({ location, step: 1, approvers: [approver.id] })
  assert.equal((await client.approvalRules.get(rule.id)).step, 1)
  const draft = await client.requests.create({ location, lines: [{ quantity: '2', unit_price: '10.005' }] })
  assert.equal(draft.total, '20.01')
  const pending = await client.requests.submit(draft.id)
  assert.equal(pending.status, 'pending')
  const approvalId = pending.approvals[0]!.id
  assert.equal((await client.approvals.list({ request: draft.id })).data[0]!.id, approvalId)
  assert.equal((await client.approvals.get(approvalId)).status, 'pending')
  const inbox = (await client.approvals.inbox()).data
  assert.equal(
    inbox.length,
    5,
    'the demo data waits on the admin for two requests, a bill, an expense report and a payment run',
  )
  assert.ok(!inbox.some((a) => a.id === approvalId), 'the requester is no candidate of their own request')
  const cancelled = await client.requests.cancel(draft.id)
  assert.equal(cancelled.approvals[0]!.status, 'cancelled')
  await assert.rejects(
    client.approvals.approve(approvalId),
    (e: unknown) => e instanceof ProblemError && e.status === 409,
  )
  await client.approvalRules.delete(rule.id)
  const me = await client.me()
  const set = await client.userAccess.setDelegation(me.id, { delegatee: approver.id, expected_return_date: null })
  assert.equal(set.delegatee?.id, approver.id)
  assert.equal((await client.userAccess.delegation(me.id)).delegatee?.id, approver.id)
  await client.userAccess.endDelegation(me.id)
  assert.equal((await client.userAccess.delegation(me.id)).delegatee, null)
})

test('examples/sync-vendors.ts writes every vendor to a CSV file, with a progress line', async () => {
  const { spawn } = await import('node:child_process')
  const fs = await import('node:fs')
  const os = await import('node:os')
  const path = await import('node:path')
  const { creds, tenant } = await newClient()
  await ctx.database.db
    .insertInto('vendors')
    .values(Array.from({ length: 150 }, (_, i) => ({ tenant_id: tenant.tenantId, name: `Synced, "quoted" ${i}` })))
    .execute()
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sync-'))
  const file = path.join(dir, 'vendors.csv')
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/sync-vendors.ts', file], {
    env: {
      ...process.env,
      PROCUREMENT_URL: base,
      CLIENT_ID: creds.client_id,
      CLIENT_SECRET: creds.client_secret,
      AUDIENCE: TEST_AUDIENCE,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
  assert.equal(code, 0, stderr)
  assert.match(stderr, /synced 178 of 178 vendors/)
  const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\r\n')
  assert.equal(lines.length, 1 + 178)
  assert.ok(lines.some((line) => line.includes('"Synced, ""quoted"" 149"')))
  fs.rmSync(dir, { recursive: true, force: true })
})
