/**
 * Key rotation (DECISIONS, "Operations"): tokens carry a kid; a previous signing key verifies only, so a
 * token issued before a rotation keeps working and one whose key is gone is a 401; a secret hashed under a
 * previous pepper verifies and is hashed again under the current one. `procurement keys rotate` does it for
 * the embedded default, end to end through the real command and server.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import { after, test } from 'node:test'
import { decodeProtectedHeader } from 'jose'
import { buildApp } from '../src/app.ts'
import type { ServerKeys } from '../src/keys.ts'
import { hashSecret } from '../src/core/secrets.ts'
import { clientFor, sampleTenant, TEST_AUDIENCE, useTestApp } from './helpers/app.ts'
import { run, runToEnd } from './helpers/process.ts'

const ctx = useTestApp()
const quiet = new Writable({ write: (_chunk, _encoding, done) => done() })

/** The service with other keys, on the same database (as after a restart with new settings). */
async function serviceWith(keys: ServerKeys) {
  const app = await buildApp({ config: ctx.config, database: ctx.database, keys, logStream: quiet })
  await app.ready()
  const token = (creds: { client_id: string; client_secret: string }) =>
    app.inject({
      method: 'POST',
      url: '/oauth/token',
      payload: { ...creds, audience: TEST_AUDIENCE, grant_type: 'client_credentials' },
    })
  const vendors = (bearer: string) =>
    app.inject({ url: '/api/v3/vendors/', headers: { authorization: `Bearer ${bearer}`, 'x-service-client': 'api' } })
  return { app, token, vendors }
}

test('a token issued before a signing-key rotation stays valid; once its key is removed, 401', async () => {
  const tenant = await sampleTenant(ctx)
  const creds = await clientFor(ctx, tenant)
  const oldKey = randomBytes(32)
  const newKey = randomBytes(32)
  const before = await serviceWith({ signingKey: oldKey, pepper: ctx.keys.pepper })
  const issued = await before.token(creds)
  assert.equal(issued.statusCode, 200, issued.body)
  const oldToken = issued.json<{ access_token: string }>().access_token
  assert.equal(typeof decodeProtectedHeader(oldToken).kid, 'string', 'tokens carry a kid')
  await before.app.close()

  const rotated = await serviceWith({ signingKey: newKey, previousSigningKeys: [oldKey], pepper: ctx.keys.pepper })
  assert.equal((await rotated.vendors(oldToken)).statusCode, 200, 'the old token still works')
  const fresh = (await rotated.token(creds)).json<{ access_token: string }>().access_token
  assert.notEqual(decodeProtectedHeader(fresh).kid, decodeProtectedHeader(oldToken).kid, 'new tokens name the new key')
  assert.equal((await rotated.vendors(fresh)).statusCode, 200)
  await rotated.app.close()

  const retired = await serviceWith({ signingKey: newKey, pepper: ctx.keys.pepper })
  const refused = await retired.vendors(oldToken)
  assert.equal(refused.statusCode, 401, 'its key is gone')
  assert.match(String(refused.headers['www-authenticate']), /invalid_token/)
  assert.equal((await retired.vendors(fresh)).statusCode, 200)
  await retired.app.close()
})

test('a secret hashed under a previous pepper verifies and is hashed again under the current one', async () => {
  const tenant = await sampleTenant(ctx)
  const used = await clientFor(ctx, tenant) // hashed under ctx.keys.pepper
  const idle = await clientFor(ctx, tenant)
  const newPepper = randomBytes(32)
  const stored = (clientId: string) =>
    ctx.database.db
      .selectFrom('applications')
      .select(['secret_hash', 'secret_version'])
      .where('client_id', '=', clientId)
      .executeTakeFirstOrThrow()
  const versionBefore = (await stored(used.client_id)).secret_version

  const onlyNew = await serviceWith({ signingKey: ctx.keys.signingKey, pepper: newPepper })
  assert.equal((await onlyNew.token(used)).statusCode, 401, 'without the previous pepper the old hash matches nothing')
  await onlyNew.app.close()

  const rotated = await serviceWith({
    signingKey: ctx.keys.signingKey,
    pepper: newPepper,
    previousPeppers: [ctx.keys.pepper],
  })
  const issued = await rotated.token(used)
  assert.equal(issued.statusCode, 200, issued.body)
  const row = await stored(used.client_id)
  assert.ok(
    Buffer.from(row.secret_hash).equals(hashSecret(newPepper, used.client_secret)),
    're-hashed under the current pepper',
  )
  assert.equal(row.secret_version, versionBefore, 'the secret did not change: its tokens stay valid')
  assert.equal((await rotated.token({ ...used, client_secret: 'wrong' })).statusCode, 401)
  await rotated.app.close()

  const retired = await serviceWith({ signingKey: ctx.keys.signingKey, pepper: newPepper })
  assert.equal((await retired.token(used)).statusCode, 200, 'the re-hashed secret needs no previous pepper')
  assert.equal((await retired.token(idle)).statusCode, 401, 'one never used during the rotation does')
  await retired.app.close()
})

test('procurement keys rotate: the old token and the old secret keep working after a restart', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'procurement-keys-'))
  after(() => fs.rmSync(dir, { recursive: true, force: true }))
  const env = { DATA_DIR: dir, PORT: '0' }
  assert.equal((await runToEnd(['seed'], env)).code, 0)
  const created = await runToEnd(['clients', 'create', '--email', 'buyer@example.com', '--json'], env)
  assert.equal(created.code, 0, created.output)
  const creds = JSON.parse(created.output.trim().split('\n').at(-1)!) as { client_id: string; client_secret: string }

  const serving = async <T>(work: (origin: string) => Promise<T>): Promise<T> => {
    const server = run(['serve'], env)
    const [, origin] = await server.waitFor(/listening on (http:\S+)/)
    try {
      return await work(origin!)
    } finally {
      server.child.kill('SIGTERM')
      assert.equal(await server.exited, 0)
    }
  }
  const token = (origin: string) =>
    fetch(`${origin}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...creds, audience: 'procurement-api', grant_type: 'client_credentials' }),
    })
  const vendors = (origin: string, bearer: string) =>
    fetch(`${origin}/api/v3/vendors/`, { headers: { authorization: `Bearer ${bearer}`, 'x-service-client': 'api' } })

  const oldToken = await serving(
    async (origin) => ((await (await token(origin)).json()) as { access_token: string }).access_token,
  )
  const keyFile = path.join(dir, 'secrets.json')
  const before = JSON.parse(fs.readFileSync(keyFile, 'utf8')) as { token_signing_key: string; secret_pepper: string }

  const rotated = await runToEnd(['keys', 'rotate'], env)
  assert.equal(rotated.code, 0, rotated.output)
  const after1 = JSON.parse(fs.readFileSync(keyFile, 'utf8')) as Record<string, unknown>
  assert.notEqual(after1.token_signing_key, before.token_signing_key)
  assert.deepEqual(after1.previous_token_signing_keys, [before.token_signing_key])
  assert.deepEqual(after1.previous_secret_peppers, [before.secret_pepper])
  assert.equal(fs.statSync(keyFile).mode & 0o777, 0o600)

  await serving(async (origin) => {
    assert.equal((await vendors(origin, oldToken)).status, 200, 'the token from before the rotation')
    assert.equal((await token(origin)).status, 200, 'the secret from before the rotation (now re-hashed)')
  })
  assert.equal((await runToEnd(['keys', 'rotate', '--forget-previous'], env)).code, 0)
  await serving(async (origin) => {
    assert.equal((await vendors(origin, oldToken)).status, 401, 'its key is gone')
    assert.equal((await token(origin)).status, 200, 'the secret was re-hashed under the current pepper')
  })
})
