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
