/**
 * The command explains itself (per-command --help, unknown options named with exit 2, --version), refuses a
 * second tenant without BASE_DOMAIN up front, and — with the embedded database — works while the server
 * runs: audit, outbox and clients create are answered by the server through DATA_DIR/control.sock (0600).
 */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, test } from 'node:test'
import { run, runToEnd } from './helpers/process.ts'

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'procurement-usage-'))
after(() => fs.rmSync(root, { recursive: true, force: true }))
const none = path.join(root, 'never-made')
const cli = (...args: string[]) => runToEnd(args, { DATA_DIR: none })

test('--version prints the version in package.json', async () => {
  const { version } = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string
  }
  for (const flag of ['--version', '-V']) {
    const printed = await cli(flag)
    assert.equal(printed.code, 0)
    assert.equal(printed.output.trim(), version)
  }
})

test('<command> --help prints that command’s usage, not the global one, and touches nothing', async () => {
  for (const [command, mentions] of [
    ['tenants', /tenants create --domain/],
    ['clients', /clients rotate <client_id>/],
    ['audit', /--since/],
    ['migrate', /--status/],
    ['backup', /backup <file>/],
    ['check', /compare it with the service's own counts/],
  ] as const) {
    const help = await cli(command, '--help')
    assert.equal(help.code, 0, help.output)
    assert.match(help.output, new RegExp(`^Usage: procurement ${command} `))
    assert.match(help.output, mentions)
    assert.doesNotMatch(help.output, /outbox \[--all\]/, `${command} --help is not the global usage`)
  }
  assert.equal(fs.existsSync(none), false, 'no data directory made for --help')
})

test('an unknown option is named, with the command’s usage, exit 2; a missing value too', async () => {
  const unknown = await cli('tenants', 'create', '--domian', 'acme')
  assert.equal(unknown.code, 2)
  assert.match(unknown.output, /^procurement tenants: unknown option --domian\n/)
  assert.match(unknown.output, /Usage: procurement tenants/)
  const stray = await cli('serve', 'now')
  assert.equal(stray.code, 2)
  assert.match(stray.output, /procurement serve: unexpected argument now/)
  const missing = await cli('audit', '--since')
  assert.equal(missing.code, 2)
  assert.match(missing.output, /--since/)
  const command = await cli('frobnicate')
  assert.equal(command.code, 2)
  assert.match(command.output, /unknown command frobnicate/)
  assert.equal(fs.existsSync(none), false)
})

test('tenants create refuses a second tenant without BASE_DOMAIN, up front', async () => {
  const dir = path.join(root, 'tenancy')
  const env = { DATA_DIR: dir, DEMO_SEED: 'false' }
  const create = (domain: string, extra: Record<string, string> = {}) =>
    runToEnd(['tenants', 'create', '--domain', domain, '--name', domain, '--admin-email', `it@${domain}.test`], {
      ...env,
      ...extra,
    })
  assert.equal((await create('acme')).code, 0)
  const second = await create('beta')
  assert.equal(second.code, 1)
  assert.match(second.output, /already has a tenant \(acme\) and BASE_DOMAIN is not set/)
  const listed = await runToEnd(['tenants', 'list', '--json'], env)
  assert.deepEqual(
    (JSON.parse(listed.output.trim()) as { domain: string }[]).map((t) => t.domain),
    ['acme'],
    'nothing was made',
  )
  assert.equal((await create('beta', { BASE_DOMAIN: 'example.test' })).code, 0)
})

test('while the embedded server runs: audit, outbox and clients create are answered through its control socket', async () => {
  const dir = path.join(root, 'running')
  const server = run(['serve'], { DATA_DIR: dir, PORT: '0' })
  try {
    const [, origin] = await server.waitFor(/listening on (http:\S+)/)
    const socket = path.join(dir, 'control.sock')
    assert.equal(fs.statSync(socket).mode & 0o777, 0o600)
    const env = { DATA_DIR: dir }

    const created = await runToEnd(['clients', 'create', '--email', 'buyer@example.com', '--json'], env)
    assert.equal(created.code, 0, created.output)
    const creds = JSON.parse(created.output.trim()) as { client_id: string; client_secret: string }
    const token = await fetch(`${origin}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...creds, audience: 'procurement-api', grant_type: 'client_credentials' }),
    })
    assert.equal(token.status, 200, 'the running server knows the new application at once')

    const audit = await runToEnd(['audit', '--json'], env)
    assert.equal(audit.code, 0, audit.output)
    const entries = JSON.parse(audit.output.trim()) as { action: string; resource_id: string }[]
    assert.ok(entries.some((e) => e.action === 'application.create' && e.resource_id === creds.client_id))
    const text = await runToEnd(['audit', '--since', '1h'], env)
    assert.match(text.output, new RegExp(`application.create application/${creds.client_id}`))

    const outbox = await runToEnd(['outbox', '--all'], env)
    assert.equal(outbox.code, 0, outbox.output)
    assert.match(outbox.output, /outbox is empty|#\d+/)

    const unknown = await runToEnd(['clients', 'create', '--email', 'nobody@example.com'], env)
    assert.equal(unknown.code, 1)
    assert.match(unknown.output, /^procurement: No user nobody@example.com/)

    const locked = await runToEnd(['tenants', 'list'], env)
    assert.equal(locked.code, 1, 'other commands still need the server stopped')
    assert.match(locked.output, /in use by process/)
  } finally {
    server.child.kill('SIGTERM')
    assert.equal(await server.exited, 0)
  }
  assert.equal(fs.existsSync(path.join(dir, 'control.sock')), false, 'removed on stop')
  const after = await runToEnd(['audit', '--json'], { DATA_DIR: dir })
  assert.equal(after.code, 0, 'with the server stopped the command opens the database itself')
})
