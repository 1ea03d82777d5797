/**
 * Every file under DATA_DIR is 0600 (folders 0700) whoever writes it: checked while the service is serving
 * (PGlite writes `pg_internal.init` and other files after the sweep at start) and after a restore, through
 * the real command.
 */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, test } from 'node:test'
import { run, runToEnd, type Running } from './helpers/process.ts'

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'procurement-private-'))
const children: Running[] = []
after(() => {
  for (const c of children) c.child.kill('SIGKILL')
  fs.rmSync(root, { recursive: true, force: true })
})

/** Files and folders under `dir` that the group or others may read, write or enter. */
function notPrivate(dir: string): string[] {
  const found: string[] = []
  const walk = (folder: string) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name)
      if (entry.isDirectory()) walk(full)
      const mode = fs.lstatSync(full).mode & 0o777
      if ((mode & 0o077) !== 0) found.push(`${mode.toString(8)} ${path.relative(dir, full)}`)
    }
  }
  walk(dir)
  return found
}

async function serving(dataDir: string): Promise<Running> {
  const r = run(['serve'], { DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' })
  children.push(r)
  const base = (await r.waitFor(/listening on (http:\/\/\S+)/))[1]!
  // Requests that read the catalog and the demo's tables: what PGlite writes while serving is written now.
  for (const url of ['/readyz', '/api/v3/vendors/', '/console/sign-in', '/readyz'])
    await (await fetch(`${base}${url}`, { headers: { 'x-service-client': 'api' } })).text()
  return r
}

async function stop(r: Running) {
  r.child.kill('SIGTERM')
  assert.equal(await r.exited, 0, r.output())
}

test('while serving, and after a restore, nothing under DATA_DIR is readable by others', async () => {
  const original = path.join(root, 'original')
  const first = await serving(original)
  assert.ok(fs.existsSync(path.join(original, 'pgdata')))
  assert.deepEqual(notPrivate(original), [], 'while serving a new DATA_DIR')
  await stop(first)
  const again = await serving(original)
  assert.ok(
    fs.readdirSync(path.join(original, 'pgdata', 'global')).length > 0,
    'the database has its global folder (where pg_internal.init is written)',
  )
  assert.deepEqual(notPrivate(original), [], 'while serving an existing DATA_DIR')
  await stop(again)
  assert.deepEqual(notPrivate(original), [], 'after a stop')

  const file = path.join(root, 'backup.procurement')
  assert.equal((await runToEnd(['backup', file], { DATA_DIR: original })).code, 0)
  const restored = path.join(root, 'restored')
  const restore = await runToEnd(['restore', file], { DATA_DIR: restored })
  assert.equal(restore.code, 0, restore.output)
  assert.deepEqual(notPrivate(restored), [], 'after a restore')
  const third = await serving(restored)
  assert.deepEqual(notPrivate(restored), [], 'while serving a restored DATA_DIR')
  await stop(third)
})
