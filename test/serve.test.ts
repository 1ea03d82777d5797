/**
 * The `procurement` command as an operator runs it: first start, restart, a second process on the same
 * data directory, a first start killed half-way, and the clients CLI.
 */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, describe, test } from 'node:test'
import { createSampleTenant } from '../src/seed/demo.ts'
import { engineUnderTest, testDatabase } from './helpers/db.ts'
import { run, runToEnd, type Running } from './helpers/process.ts'

const dirs: string[] = []
const children: Running[] = []
after(() => {
  for (const c of children) c.child.kill('SIGKILL')
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true })
})

const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'procurement-test-'))
  dirs.push(dir)
  return dir
}

function start(env: Record<string, string>): Running {
  const r = run(['serve'], { PORT: '0', ...env })
  children.push(r)
  return r
}

async function token(base: string, id: string, secret: string): Promise<string> {
  const response = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_id: id,
      client_secret: secret,
      audience: 'procurement-api',
      grant_type: 'client_credentials',
    }),
  })
  assert.equal(response.status, 200, await response.clone().text())
  return ((await response.json()) as { access_token: string }).access_token
}

async function vendorCount(base: string, accessToken: string): Promise<number> {
  const response = await fetch(`${base}/api/v3/vendors/`, {
    headers: { authorization: `Bearer ${accessToken}`, 'x-service-client': 'api' },
  })
  assert.equal(response.status, 200)
  return ((await response.json()) as { metadata: { pagination: { count: number } } }).metadata.pagination.count
}

const LISTENING = /listening on (http:\/\/\S+)/
const CREDENTIALS = /Client ID: (\S+)\nClient Secret: (\S+)/

describe('embedded database, as an operator runs it', { skip: engineUnderTest !== 'pglite' && 'embedded-only' }, () => {
  test('first start, second process, CLI while held, graceful stop, restart', async () => {
    const dataDir = tempDir()
    const first = start({ DATA_DIR: dataDir })
    const base = (await first.waitFor(LISTENING))[1]!
    const [, id, secret] = await first.waitFor(CREDENTIALS)
    const [, setupPath] = await first.waitFor(
      /Console: set a password for admin@example\.com within 24 hours at http:\/\/\S+?(\/console\/setup\/[A-Za-z0-9_-]+)/,
    )
    const setupPage = await fetch(`${base}${setupPath}`)
    assert.equal(setupPage.status, 200, 'the printed console link opens the set-password page')
    // Text past ASCII in the served code (the build's bundle, when built) reads as written.
    assert.match(await setupPage.text(), /<title>[^<]* · Procurement console<\/title>/)
    assert.equal((await fetch(`${base}/readyz`)).status, 200)
    const adminToken = await token(base, id!, secret!)
    assert.equal(await vendorCount(base, adminToken), 28)
    const invited = await fetch(`${base}/api/v3/users/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'x-service-client': 'api', 'content-type': 'application/json' },
      body: JSON.stringify([{ email: 'invitee@example.org', send_invitation_email: true }]),
    })
    assert.equal(invited.status, 201)

    const second = await runToEnd(['serve'], { PORT: '0', DATA_DIR: dataDir })
    assert.notEqual(second.code, 0)
    assert.match(second.output, new RegExp(`^procurement: The data directory .* in use by process ${first.child.pid}`))
    assert.doesNotMatch(second.output, /^\s+at /m, 'one line an operator can act on, no stack')
    // No command at all is `serve`: a setting it cannot use is named the same way.
    const misconfigured = await runToEnd([], { PORT: 'eighty', DATA_DIR: dataDir })
    assert.equal(misconfigured.code, 1)
    assert.match(misconfigured.output, /^procurement: Invalid configuration:\n {2}PORT: /)
    assert.doesNotMatch(misconfigured.output, /^\s+at /m)
    const cli = await runToEnd(['tenants', 'list'], { DATA_DIR: dataDir })
    assert.equal(cli.code, 1)
    assert.match(cli.output, /in use by process/)
    // clients create, audit and outbox are answered by the server itself (DATA_DIR/control.sock).
    const held = await runToEnd(['clients', 'create', '--email', 'admin@example.com', '--json'], { DATA_DIR: dataDir })
    assert.equal(held.code, 0, held.output)
    assert.equal((await fetch(`${base}/readyz`)).status, 200, 'the first keeps serving')

    first.child.kill('SIGTERM')
    assert.equal(await first.exited, 0)

    const created = await runToEnd(
      ['clients', 'create', '--email', 'buyer@example.com', '--description', 'ci', '--json'],
      { DATA_DIR: dataDir },
    )
    assert.equal(created.code, 0, created.output)
    const cliCreds = JSON.parse(created.output.trim().split('\n').at(-1)!) as {
      client_id: string
      client_secret: string
    }

    const again = start({ DATA_DIR: dataDir })
    const base2 = (await again.waitFor(LISTENING))[1]!
    assert.equal((await fetch(`${base2}/readyz`)).status, 200)
    assert.doesNotMatch(again.output(), /Client Secret/, 'a restart prints no new secret')
    assert.equal(await vendorCount(base2, await token(base2, id!, secret!)), 28, 'the first demo secret still works')
    assert.equal(await vendorCount(base2, await token(base2, cliCreds.client_id, cliCreds.client_secret)), 28)
    again.child.kill('SIGTERM')
    assert.equal(await again.exited, 0)

    const rotated = await runToEnd(['clients', 'rotate', cliCreds.client_id, '--json'], { DATA_DIR: dataDir })
    assert.equal(rotated.code, 0, rotated.output)
    const revoked = await runToEnd(['clients', 'revoke', id!], { DATA_DIR: dataDir })
    assert.equal(revoked.code, 0, revoked.output)
    const listed = await runToEnd(['clients', 'list', '--json'], { DATA_DIR: dataDir })
    const rows = JSON.parse(listed.output.trim().split('\n').at(-1)!) as {
      client_id: string
      revoked_at: string | null
    }[]
    assert.equal(rows.find((r) => r.client_id === id)?.revoked_at !== null, true)
    assert.doesNotMatch(listed.output, /client_secret|secret_hash/)
    const outbox = await runToEnd(['outbox', '--json'], { DATA_DIR: dataDir })
    assert.equal(outbox.code, 0, outbox.output)
    const queued = JSON.parse(outbox.output.trim().split('\n').at(-1)!) as {
      to_address: string
      status: string
      body_text: string
    }[]
    // The demo's sent purchase orders wait there too (to their vendor, orders@example.com), and the alert to its
    // accounts-payable clerk that a vendor's bank details changed (requester@example.com, demo-payments.ts).
    const demo = new Set(['orders@example.com', 'requester@example.com'])
    assert.deepEqual(
      queued.filter((m) => !demo.has(m.to_address)).map((m) => [m.to_address, m.status]),
      [['invitee@example.org', 'queued']],
      'without SMTP_URL the invitation waits in the outbox',
    )
    assert.match(
      queued.find((m) => m.to_address === 'invitee@example.org')!.body_text,
      /http:\/\/127\.0\.0\.1:[1-9]\d*\/console\/setup\/[A-Za-z0-9_-]+/,
      'a set-password link on the port served',
    )
    const audit = await runToEnd(['audit', '--since', '1h', '--json'], { DATA_DIR: dataDir })
    assert.equal(audit.code, 0, audit.output)
    const all = JSON.parse(audit.output.trim().split('\n').at(-1)!) as {
      action: string
      changes: { via?: string }
    }[]
    // The demo's own requests, rules and grants come first (made through the services, so audited too).
    const entries = all.slice(-5)
    assert.deepEqual(
      entries.map((e) => e.action),
      // the application made while the server held DATA_DIR, then the one made after it stopped
      ['user.create', 'application.create', 'application.create', 'application.rotate', 'application.revoke'],
    )
    assert.ok(entries.slice(1).every((e) => e.changes.via === 'cli'))
    assert.ok(!listed.output.includes(secret!) && !listed.output.includes(cliCreds.client_secret))
  })

  for (const killAfterMs of [400, 1500, 3000]) {
    test(`a first start killed after ${killAfterMs} ms recovers with the demo data whole`, async () => {
      const dataDir = tempDir()
      const doomed = start({ DATA_DIR: dataDir })
      await new Promise((resolve) => setTimeout(resolve, killAfterMs))
      doomed.child.kill('SIGKILL')
      await doomed.exited
      const next = start({ DATA_DIR: dataDir })
      const base = (await next.waitFor(LISTENING))[1]!
      const printed = next.output().match(CREDENTIALS) ?? doomed.output().match(CREDENTIALS)
      assert.ok(printed, 'credentials were printed by one of the two starts')
      assert.equal(await vendorCount(base, await token(base, printed[1]!, printed[2]!)), 28)
      next.child.kill('SIGTERM')
      assert.equal(await next.exited, 0)
    })
  }
})

describe('clients CLI on PostgreSQL', { skip: engineUnderTest !== 'postgres' && 'PostgreSQL-only' }, () => {
  test('create prints JSON credentials for any active user of any tenant', async () => {
    const database = await testDatabase()
    try {
      await database.db.transaction().execute((tx) => createSampleTenant(tx, 'cli-tenant', 'CLI'))
      const env = {
        DATABASE_URL: database.url!,
        TOKEN_SIGNING_KEY: 'k'.repeat(40),
        SECRET_PEPPER: 'p'.repeat(40),
        DEMO_SEED: 'false',
      }
      const created = await runToEnd(
        ['clients', 'create', '--email', 'requester@example.com', '--domain', 'cli-tenant', '--json'],
        env,
      )
      assert.equal(created.code, 0, created.output)
      const creds = JSON.parse(created.output.trim()) as { client_id: string; client_secret: string }
      assert.match(creds.client_id, /^pc_/)
      assert.ok(Buffer.from(creds.client_secret, 'base64url').length >= 32)
      const row = await database.db
        .selectFrom('applications')
        .select(['secret_hash'])
        .where('client_id', '=', creds.client_id)
        .executeTakeFirstOrThrow()
      assert.ok(!row.secret_hash.toString('utf8').includes(creds.client_secret))
      const unknown = await runToEnd(['clients', 'create', '--email', 'nobody@example.com', '--json'], env)
      assert.equal(unknown.code, 1)
      assert.match(unknown.output, /No user nobody@example.com/)
    } finally {
      await database.close()
    }
  })
})

describe('start-up failures say what to do, in one line', () => {
  const stackless = (output: string) => !/\n\s+at /.test(output)

  test('a taken port is reported before any database work', async () => {
    const net = await import('node:net')
    const blocker = net.createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    const port = (blocker.address() as { port: number }).port
    const dataDir = tempDir()
    try {
      const result = await runToEnd(['serve'], { DATA_DIR: dataDir, PORT: String(port) })
      assert.equal(result.code, 1)
      assert.match(
        result.output,
        new RegExp(
          `procurement: Port ${port} on 127\\.0\\.0\\.1 is in use by another process: stop it, or set PORT to a free port\\.`,
        ),
      )
      assert.ok(stackless(result.output), result.output)
      assert.ok(
        !fs.existsSync(path.join(dataDir, 'pgdata')) && !fs.existsSync(path.join(dataDir, 'pgdata.partial')),
        'no database was built',
      )
    } finally {
      blocker.close()
    }
  })

  test('an unreachable PostgreSQL, and a missing database, name the fix', async () => {
    const keys = {
      TOKEN_SIGNING_KEY: 'k'.repeat(40),
      SECRET_PEPPER: 'p'.repeat(40),
      PORT: '0',
      DATABASE_TIMEOUT_MS: '2000',
    }
    const unreachable = await runToEnd(['serve'], {
      ...keys,
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/procurement',
    })
    assert.equal(unreachable.code, 1)
    assert.match(
      unreachable.output,
      /procurement: Cannot reach PostgreSQL at 127\.0\.0\.1:1 \(ECONNREFUSED\): start it, or fix DATABASE_URL\./,
    )
    assert.ok(stackless(unreachable.output), unreachable.output)
    if (engineUnderTest !== 'postgres') return
    const missing = await runToEnd(['serve'], {
      ...keys,
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/no_such_database_here',
    })
    assert.equal(missing.code, 1)
    assert.match(missing.output, /Database "no_such_database_here" does not exist on 127\.0\.0\.1:5432: create it/)
  })

  test('a first start says it is building the embedded database', async () => {
    const first = start({ DATA_DIR: tempDir() })
    await first.waitFor(/Creating the embedded database in .* \(first start; a few seconds\)/)
    await first.waitFor(LISTENING)
    first.child.kill('SIGTERM')
    assert.equal(await first.exited, 0)
  })
})
