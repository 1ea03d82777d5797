/**
 * `procurement backup` → `procurement restore` into a new directory: vendors, users, a client secret and a
 * token issued before the backup all work after, through the real command and server. Restore refuses a
 * non-empty DATA_DIR without --force, and a damaged backup file before it writes anything.
 */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, test } from 'node:test'
import { run, runToEnd } from './helpers/process.ts'

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'procurement-backup-'))
after(() => fs.rmSync(root, { recursive: true, force: true }))

async function serving<T>(dir: string, work: (origin: string) => Promise<T>): Promise<T> {
  const server = run(['serve'], { DATA_DIR: dir, PORT: '0' })
  const [, origin] = await server.waitFor(/listening on (http:\S+)/)
  try {
    return await work(origin!)
  } finally {
    server.child.kill('SIGTERM')
    assert.equal(await server.exited, 0)
  }
}

test('backup, then restore into a new directory: vendors, users, a client secret and an old token all work', async () => {
  const original = path.join(root, 'original')
  assert.equal((await runToEnd(['seed'], { DATA_DIR: original })).code, 0)
  const created = await runToEnd(['clients', 'create', '--email', 'admin@example.com', '--json'], {
    DATA_DIR: original,
  })
  assert.equal(created.code, 0, created.output)
  const creds = JSON.parse(created.output.trim().split('\n').at(-1)!) as { client_id: string; client_secret: string }
  const tokenRequest = (origin: string) =>
    fetch(`${origin}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...creds, audience: 'procurement-api', grant_type: 'client_credentials' }),
    })
  const read = async (origin: string, token: string, what: string) => {
    const response = await fetch(`${origin}/api/v3/${what}/?page_size=100`, {
      headers: { authorization: `Bearer ${token}`, 'x-service-client': 'api' },
    })
    assert.equal(response.status, 200, what)
    return ((await response.json()) as { data: unknown[] }).data
  }
  const before = await serving(original, async (origin) => {
    const token = ((await (await tokenRequest(origin)).json()) as { access_token: string }).access_token
    return { token, vendors: await read(origin, token, 'vendors'), users: await read(origin, token, 'users') }
  })
  assert.ok(before.vendors.length > 0 && before.users.length > 0)

  const file = path.join(root, 'procurement.backup')
  const backedUp = await runToEnd(['backup', file], { DATA_DIR: original })
  assert.equal(backedUp.code, 0, backedUp.output)
  assert.equal(fs.statSync(file).mode & 0o777, 0o600)

  const restored = path.join(root, 'restored')
  const done = await runToEnd(['restore', file], { DATA_DIR: restored })
  assert.equal(done.code, 0, done.output)
  await serving(restored, async (origin) => {
    assert.deepEqual(await read(origin, before.token, 'vendors'), before.vendors, 'the token from before the backup')
    assert.deepEqual(await read(origin, before.token, 'users'), before.users)
    assert.equal((await tokenRequest(origin)).status, 200, 'the client secret from before the backup')
  })

  const refused = await runToEnd(['restore', file], { DATA_DIR: restored })
  assert.equal(refused.code, 1)
  assert.match(refused.output, /is not empty.*--force/)
  assert.equal((await runToEnd(['restore', file, '--force'], { DATA_DIR: restored })).code, 0)
  assert.equal((await runToEnd(['check'], { DATA_DIR: restored })).code, 0)

  const damaged = path.join(root, 'damaged.backup')
  fs.writeFileSync(damaged, fs.readFileSync(file).subarray(0, fs.statSync(file).size - 10))
  const elsewhere = path.join(root, 'elsewhere')
  const bad = await runToEnd(['restore', damaged], { DATA_DIR: elsewhere })
  assert.equal(bad.code, 1)
  assert.match(bad.output, /damaged or incomplete/)
  assert.equal(fs.existsSync(elsewhere), false, 'nothing written')
})
