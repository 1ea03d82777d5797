/**
 * `procurement users reset-password` (DECISIONS, "Daily use of the console"): while the embedded server holds
 * DATA_DIR, the server makes the link through its control socket (as for `clients create`), at once; on
 * PostgreSQL the command opens the database itself. A wrong e-mail is refused in one line, quickly.
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

const SETUP_URL = /\/console\/setup\/[A-Za-z0-9_-]+$/

describe(
  'reset-password while the embedded server runs',
  { skip: engineUnderTest !== 'pglite' && 'embedded-only' },
  () => {
    test('the running server makes the link; an unknown e-mail fails in seconds, not minutes', async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procurement-test-'))
      dirs.push(dataDir)
      const server = run(['serve'], { PORT: '0', DATA_DIR: dataDir })
      children.push(server)
      const base = (await server.waitFor(/listening on (http:\/\/\S+)/, 240_000))[1]!
      await server.waitFor(/Client ID: /, 240_000)

      let started = Date.now()
      const reset = await runToEnd(
        ['users', 'reset-password', '--domain', 'demo', '--email', 'admin@example.com', '--json'],
        { DATA_DIR: dataDir },
      )
      assert.equal(reset.code, 0, reset.output)
      assert.ok(Date.now() - started < 60_000, 'answered through the control socket, not after a wait for the lock')
      const { setup_url } = JSON.parse(reset.output.trim().split('\n').at(-1)!) as { setup_url: string }
      assert.match(setup_url, SETUP_URL)
      const page = await fetch(`${base}${new URL(setup_url).pathname}`)
      assert.equal(page.status, 200, 'the link opens the set-password page of the running server')

      started = Date.now()
      const unknown = await runToEnd(['users', 'reset-password', '--domain', 'demo', '--email', 'nobody@example.com'], {
        DATA_DIR: dataDir,
      })
      assert.equal(unknown.code, 1, unknown.output)
      assert.doesNotMatch(unknown.output, /in use by process/)
      assert.doesNotMatch(unknown.output, /^\s+at /m, 'one line, no stack')
      assert.ok(Date.now() - started < 60_000)
      assert.equal((await fetch(`${base}/readyz`)).status, 200, 'the server keeps serving')
      server.child.kill('SIGTERM')
      assert.equal(await server.exited, 0)
    })
  },
)

describe('reset-password on PostgreSQL', { skip: engineUnderTest !== 'postgres' && 'PostgreSQL-only' }, () => {
  test('the command opens the database itself and prints the link', async () => {
    const database = await testDatabase()
    try {
      await database.db.transaction().execute((tx) => createSampleTenant(tx, 'reset-tenant', 'Reset'))
      const env = {
        DATABASE_URL: database.url!,
        TOKEN_SIGNING_KEY: 'k'.repeat(40),
        SECRET_PEPPER: 'p'.repeat(40),
        DEMO_SEED: 'false',
      }
      const reset = await runToEnd(
        ['users', 'reset-password', '--domain', 'reset-tenant', '--email', 'requester@example.com', '--json'],
        env,
      )
      assert.equal(reset.code, 0, reset.output)
      const { setup_url } = JSON.parse(reset.output.trim().split('\n').at(-1)!) as { setup_url: string }
      assert.match(setup_url, SETUP_URL)
      const unknown = await runToEnd(
        ['users', 'reset-password', '--domain', 'reset-tenant', '--email', 'nobody@example.com'],
        env,
      )
      assert.equal(unknown.code, 1, unknown.output)
    } finally {
      await database.close()
    }
  })
})
