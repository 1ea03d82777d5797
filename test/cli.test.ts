/**
 * The operator's `clients` commands go through the same audited operations as the API: a change that
 * succeeds writes exactly one audit entry, in the same transaction; one that fails writes none.
 */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, test } from 'node:test'
import { runToEnd } from './helpers/process.ts'

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procurement-cli-'))
after(() => fs.rmSync(dataDir, { recursive: true, force: true }))
const cli = (...args: string[]) => runToEnd(args, { DATA_DIR: dataDir })
const lastJson = <T>(output: string): T => JSON.parse(output.trim().split('\n').at(-1)!) as T

test('clients rotate and revoke: one audit entry on success, none on failure', async () => {
  assert.equal((await cli('seed')).code, 0)
  const created = await cli('clients', 'create', '--email', 'buyer@example.com', '--domain', 'demo', '--json')
  assert.equal(created.code, 0, created.output)
  const { client_id } = lastJson<{ client_id: string }>(created.output)

  assert.equal((await cli('clients', 'rotate', client_id, '--json')).code, 0)
  assert.equal((await cli('clients', 'revoke', client_id)).code, 0)
  const again = await cli('clients', 'revoke', client_id)
  assert.equal(again.code, 1, 'revoking a revoked application fails')
  assert.match(again.output, /No active application/)
  const rotateRevoked = await cli('clients', 'rotate', client_id)
  assert.equal(rotateRevoked.code, 1, 'rotating a revoked application fails')
  const unknown = await cli('clients', 'revoke', 'no-such-client')
  assert.equal(unknown.code, 1)

  const audit = await cli('audit', '--domain', 'demo', '--json')
  assert.equal(audit.code, 0, audit.output)
  const entries = lastJson<{ action: string; resource_id: string; actor: string | null; changes: { via?: string } }[]>(
    audit.output,
  )
  const mine = entries.filter((e) => e.resource_id === client_id)
  assert.deepEqual(
    mine.map((e) => e.action),
    ['application.create', 'application.rotate', 'application.revoke'],
  )
  assert.ok(
    mine.every((e) => e.actor === null && e.changes.via === 'cli'),
    'the operator acted, at the command line',
  )
})

test('tenants create prints a one-time link; single-tenant mode with two tenants refuses to start, naming BASE_DOMAIN', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'procurement-tenants-'))
  try {
    const env = { DATA_DIR: dir, DEMO_SEED: 'false', PORT: '0' }
    const first = await runToEnd(
      ['tenants', 'create', '--domain', 'acme', '--name', 'Acme', '--admin-email', 'it@acme.test', '--json'],
      env,
    )
    assert.equal(first.code, 0, first.output)
    const created = lastJson<{ domain: string; admin_email: string; setup_url: string }>(first.output)
    assert.equal(created.domain, 'acme')
    assert.match(created.setup_url, /^http:\/\/127\.0\.0\.1:\d+\/console\/setup\/[A-Za-z0-9_-]{40,}$/)
    // A second tenant needs BASE_DOMAIN (test/cli-usage.test.ts); with it, the domain rules apply.
    const multi = { ...env, BASE_DOMAIN: 'example.test' }
    const taken = await runToEnd(
      ['tenants', 'create', '--domain', 'acme', '--name', 'Again', '--admin-email', 'x@acme.test'],
      multi,
    )
    assert.equal(taken.code, 1)
    assert.match(taken.output, /taken/)
    const bad = await runToEnd(
      ['tenants', 'create', '--domain', 'Not A Domain', '--name', 'X', '--admin-email', 'nope'],
      multi,
    )
    assert.equal(bad.code, 1)
    assert.match(bad.output, /domain/)
    assert.equal(
      (
        await runToEnd(
          ['tenants', 'create', '--domain', 'beta', '--name', 'Beta', '--admin-email', 'it@beta.test'],
          multi,
        )
      ).code,
      0,
    )
    const listed = lastJson<{ domain: string; active: boolean }[]>(
      (await runToEnd(['tenants', 'list', '--json'], env)).output,
    )
    assert.deepEqual(
      listed.map((t) => [t.domain, t.active]),
      [
        ['acme', true],
        ['beta', true],
      ],
    )
    const serve = await runToEnd(['serve'], env)
    assert.equal(serve.code, 1)
    assert.match(serve.output, /2 tenants, but BASE_DOMAIN is not set/)
    const reset = await runToEnd(
      ['users', 'reset-password', '--domain', 'beta', '--email', 'IT@beta.test', '--json'],
      env,
    )
    assert.equal(reset.code, 0, reset.output)
    assert.match(lastJson<{ setup_url: string }>(reset.output).setup_url, /\/console\/setup\//)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})
