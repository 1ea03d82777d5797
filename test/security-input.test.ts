/**
 * What issue 30 found in the input and the output, each through HTTP (or the CLI): dates outside
 * 0001…9999 are 400s, not 500s; CSV exports defuse formula cells; the webhook filter refuses IPv6 forms that
 * embed a refused IPv4 address; names and e-mails refuse every bidi control; the console's invite form names
 * the e-mail field; event ids reveal nothing of other tenants' activity.
 */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { beforeEach, describe, test } from 'node:test'
import { sql } from 'kysely'
import { useTestApp } from './helpers/app.ts'
import { runToEnd } from './helpers/process.ts'
import { setUp, type Setup } from './helpers/requests.ts'
import { BASE_DOMAIN, adminBrowser, apiAs, newTenant, type Api } from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn' })

let s: Setup
let ready = false
beforeEach(async () => {
  if (ready) return
  ready = true
  s = await setUp(ctx)
})

function assertNames(response: { statusCode: number; body: string }, field: string) {
  assert.equal(response.statusCode, 400, response.body)
  const problem = JSON.parse(response.body)
  const named = JSON.stringify(problem.errors ?? {}).includes(field) || String(problem.detail).includes(field)
  assert.ok(named, `the problem names ${field}: ${response.body}`)
}

describe('dates outside 0001-01-01…9999-12-31 are a 400 naming the field', () => {
  test('needed_by, expected_return_date and updated_since', async () => {
    for (const needed_by of ['0000-01-01', '0000-12-31']) {
      const created = await s.admin({
        method: 'POST',
        url: '/api/v3/requests/',
        payload: { location: s.A, needed_by, lines: [{ description: 'x', quantity: '1', unit_price: '1' }] },
      })
      assertNames(created, 'needed_by')
    }
    const user = await s.user('dated', s.roles.Approver, s.A)
    const other = await s.user('covering', s.roles.Approver, s.A)
    const delegation = await s.admin({
      method: 'PUT',
      url: `/api/v3/users/${user.profileId}/delegation/`,
      payload: { delegatee: other.profileId, expected_return_date: '0000-06-01' },
    })
    assertNames(delegation, 'expected_return_date')
    for (const resource of ['vendors', 'users', 'locations']) {
      for (const since of ['0000-01-01T00:00:00Z', '0000-12-31T23:59:59+00:00']) {
        const list = await s.admin({ url: `/api/v3/${resource}/?updated_since=${encodeURIComponent(since)}` })
        assertNames(list, 'updated_since')
      }
    }
    // The edges themselves are fine.
    const edge = await s.admin({ url: `/api/v3/vendors/?updated_since=${encodeURIComponent('0001-01-01T00:00:00Z')}` })
    assert.equal(edge.statusCode, 200, edge.body)
    const far = await s.admin({
      method: 'POST',
      url: '/api/v3/requests/',
      payload: {
        location: s.A,
        needed_by: '9999-12-31',
        lines: [{ description: 'x', quantity: '1', unit_price: '1' }],
      },
    })
    assert.equal(far.statusCode, 201, far.body)
  })
})

describe('CSV exports defuse formula cells', () => {
  test("a cell starting with =, +, -, @, tab or CR is prefixed with '", async () => {
    const names = ['=HYPERLINK("http://evil.example")', '+1+1', '-2+3', '@SUM(A1)', 'Plain']
    for (const name of names) {
      const created = await s.admin({ method: 'POST', url: '/api/v3/vendors/', payload: { name } })
      assert.equal(created.statusCode, 201, created.body)
    }
    // A name refuses control characters (DECISIONS); a contact may start with a tab or a carriage return.
    for (const contact of ['\tTabbed', '\rCarriage']) {
      const refused = await s.admin({ method: 'POST', url: '/api/v3/vendors/', payload: { name: contact } })
      assert.equal(refused.statusCode, 400, refused.body)
      const created = await s.admin({
        method: 'POST',
        url: '/api/v3/vendors/',
        payload: { name: `Contact ${contact.trim()}`, contact },
      })
      assert.equal(created.statusCode, 201, created.body)
    }
    const csv = await s.admin({ url: '/api/v3/vendors/?format=csv&page_size=100' })
    assert.equal(csv.statusCode, 200)
    assert.match(csv.body, /(^|,)"'=HYPERLINK\(""http:\/\/evil\.example""\)"(,|\r\n)/m)
    for (const cell of ["'+1+1", "'-2+3", "'@SUM(A1)", "'\tTabbed", '"\'\rCarriage"'])
      assert.ok(csv.body.includes(cell), `${JSON.stringify(cell)} in the export`)
    assert.ok(/(^|,)Plain(,|\r\n)/m.test(csv.body), 'other cells are as they were')
    for (const bare of ['+1+1', '-2+3', '@SUM(A1)'])
      assert.ok(!new RegExp(`(^|,)\\${bare[0]}`, 'm').test(csv.body.replaceAll(`'${bare}`, '')), bare)
  })
})

describe('webhook destinations: IPv6 forms that embed a refused IPv4 address', () => {
  test('IPv4-compatible, NAT64, 6to4 and Teredo forms of loopback, private and metadata addresses → 400', async () => {
    for (const host of [
      '[::7f00:1]', // ::127.0.0.1, IPv4-compatible
      '[::a9fe:a9fe]', // ::169.254.169.254
      '[::a00:1]', // ::10.0.0.1
      '[64:ff9b::7f00:1]', // NAT64 of 127.0.0.1
      '[64:ff9b::a9fe:a9fe]',
      '[2002:7f00:1::1]', // 6to4 of 127.0.0.1
      '[2002:a9fe:a9fe::1]',
      '[2001:0:4136:e378:8000:63bf:80ff:fffe]', // Teredo, client 127.0.0.1 (inverted)
      '[2001:0:4136:e378:8000:63bf:f5ff:fffe]', // Teredo, client 10.0.0.1
    ]) {
      const response = await s.admin({
        method: 'POST',
        url: '/api/v3/webhook-endpoints/',
        payload: { url: `https://${host}/hook` },
      })
      assert.equal(response.statusCode, 400, `${host}: ${response.body}`)
      assert.ok(response.json().errors.url, response.body)
    }
  })
})

describe('names and e-mails refuse control characters and every bidi control', () => {
  const BIDI = ['\u061C', '\u200E', '\u200F', '\u202A', '\u202E', '\u2066', '\u2069']

  test('API: single and batch create, names and e-mails, 400 naming the field', async () => {
    for (const mark of BIDI) {
      const single = await s.admin({
        method: 'POST',
        url: '/api/v3/users/',
        payload: {
          email: `ok${mark.charCodeAt(0)}@bidi.test`,
          firstName: `Ad${mark}a`,
          lastName: 'X',
          location: null,
          department: null,
        },
      })
      assertNames(single, 'firstName')
      const batch = await s.admin({
        method: 'POST',
        url: '/api/v3/users/',
        payload: [{ email: `b${mark.charCodeAt(0)}@bidi.test`, last_name: `L${mark}` }],
      })
      assertNames(batch, 'last_name')
      const email = await s.admin({
        method: 'POST',
        url: '/api/v3/users/',
        payload: [{ email: `e${mark}x@bidi.test` }],
      })
      assertNames(email, 'email')
    }
  })

  test('console: the invite form refuses U+200F in a name and names the e-mail field for a 300-character e-mail', async () => {
    const tenant = await newTenant(ctx)
    const b = await adminBrowser(ctx, tenant)
    const mark = await b.submit('/console/users', '/console/users/invite', {
      email: 'rlm@bidi.test',
      first_name: 'Ad\u200Fa',
    })
    assert.equal(mark.statusCode, 400)
    assert.match(mark.body, /bidirectional/)
    const long = await b.submit('/console/users', '/console/users/invite', { email: `${'a'.repeat(290)}@bidi.test` })
    assert.equal(long.statusCode, 400, long.body.slice(0, 300))
    assert.match(long.body, /<li>email: must be at most 254 characters long<\/li>/)
    const admin: Api = await apiAs(ctx, tenant, tenant.adminUserId)
    assert.equal((await admin({ url: '/api/v3/users/?search=bidi.test' })).json().metadata.pagination.count, 0)
  })

  test('CLI: tenants create refuses U+200F and U+061C in the administrator’s name', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'procurement-bidi-'))
    try {
      const env = { DATA_DIR: dir, DEMO_SEED: 'false' }
      const args = ['tenants', 'create', '--domain', 'acme', '--name', 'A', '--admin-email', 'it@acme.test']
      const rlm = await runToEnd([...args, '--admin-first-name', 'Ad\u200Fa'], env)
      assert.equal(rlm.code, 1, rlm.output)
      assert.match(rlm.output, /admin-first-name/)
      const alm = await runToEnd([...args, '--admin-last-name', 'L\u061C'], env)
      assert.equal(alm.code, 1, alm.output)
      assert.match(alm.output, /admin-last-name/)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('event ids reveal nothing of other tenants’ activity', () => {
  /** The same writes in a fresh tenant; between them, `between` runs. Returns the tenant's event ids. */
  async function writesWith(between: () => Promise<void>) {
    const tenant = await newTenant(ctx)
    const admin = await apiAs(ctx, tenant, tenant.adminUserId)
    for (const name of ['one', 'two', 'three']) {
      assert.equal((await admin({ method: 'POST', url: '/api/v3/vendors/', payload: { name } })).statusCode, 201)
      await between()
    }
    const feed = await admin({ url: '/api/v3/events/' })
    assert.equal(feed.statusCode, 200, feed.body)
    return { admin, ids: (feed.json().data as { id: string }[]).map((e) => e.id) }
  }

  test('a tenant’s ids are the same whether or not another tenant wrote in between, and still sort and page', async () => {
    const quiet = await writesWith(async () => undefined)
    const busyTenant = await newTenant(ctx)
    const busy = await apiAs(ctx, busyTenant, busyTenant.adminUserId)
    let n = 0
    const noisy = await writesWith(async () => {
      for (let i = 0; i < 5; i++)
        assert.equal(
          (await busy({ method: 'POST', url: '/api/v3/vendors/', payload: { name: `v${++n}` } })).statusCode,
          201,
        )
    })
    assert.ok(quiet.ids.length >= 3)
    assert.deepEqual(noisy.ids, quiet.ids, 'ids depend only on the tenant’s own writes')
    assert.deepEqual([...quiet.ids].sort(), quiet.ids, 'ids sort in feed order')
    const after = await quiet.admin({ url: `/api/v3/events/?after=${quiet.ids[0]}` })
    assert.deepEqual(
      (after.json().data as { id: string }[]).map((e) => e.id),
      quiet.ids.slice(1),
    )
    const one = await quiet.admin({ url: `/api/v3/events/${quiet.ids.at(-1)}/` })
    assert.equal(one.statusCode, 200, one.body)
  })

  test('more unnumbered events than one batch (as after the upgrade) are numbered in order, none skipped', async () => {
    const tenant = await newTenant(ctx)
    const admin = await apiAs(ctx, tenant, tenant.adminUserId)
    await sql`INSERT INTO events (tenant_id, type, object)
      SELECT ${tenant.tenantId}, 'vendor.created', jsonb_build_object('id', g) FROM generate_series(1, 10050) g`.execute(
      ctx.database.db,
    )
    const seen: string[] = []
    let after = ''
    for (;;) {
      const page = (await admin({ url: `/api/v3/events/?type=vendor.created&page_size=1000${after}` })).json()
      seen.push(...(page.data as { id: string }[]).map((e) => e.id))
      if (!page.metadata.has_more) break
      after = `&after=${page.metadata.next_cursor}`
    }
    assert.equal(seen.length, 10050)
    assert.deepEqual([...seen].sort(), seen)
    assert.equal(new Set(seen).size, seen.length)
  })

  test('an id of the earlier form (transaction id and sequence number) still works as a cursor', async () => {
    const { admin, ids } = await writesWith(async () => undefined)
    const first = (await admin({ url: `/api/v3/events/${ids[0]}/` })).json().data
    const [row] = (
      await sql<{ xid: string; seq: string }>`SELECT xid::text AS xid, seq::text AS seq FROM events
        WHERE object = ${JSON.stringify(first.data.object)}::jsonb AND type = ${first.type}`.execute(ctx.database.db)
    ).rows
    const hex = (n: string) => BigInt(n).toString(16).padStart(16, '0')
    const legacy = `evt_${hex(row!.xid)}${hex(row!.seq)}`
    const after = await admin({ url: `/api/v3/events/?after=${legacy}` })
    assert.equal(after.statusCode, 200, after.body)
    assert.deepEqual(
      (after.json().data as { id: string }[]).map((e) => e.id),
      ids.slice(1),
    )
    assert.equal((await admin({ url: `/api/v3/events/${legacy}/` })).json().data.id, ids[0])
  })
})
