/**
 * The embedded data directory never fails silently: each kind of damage stops start-up with one line that
 * names the path and the remedy (exit 1, no stack trace), never with new keys over an existing database or a
 * fresh database over damaged files; `procurement check` finds a truncated table file; DATA_DIR is 0700 and
 * its files 0600 after a start. Every case runs the real command on a copy of one seeded directory.
 */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, test } from 'node:test'
import { openPglite } from '../src/db/database.ts'
import { run, runToEnd } from './helpers/process.ts'

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'procurement-datadir-'))
const base = path.join(root, 'base')
after(() => fs.rmSync(root, { recursive: true, force: true }))
let copies = 0

before(async () => {
  const seeded = await runToEnd(['seed'], { DATA_DIR: base })
  assert.equal(seeded.code, 0, seeded.output)
})

/** A copy of the seeded directory, damaged by `damage`. */
function damaged(damage: (dir: string) => void): string {
  const dir = path.join(root, `copy${++copies}`)
  fs.cpSync(base, dir, { recursive: true })
  damage(dir)
  return dir
}

/** Everything in `dir`, with sizes: what a refused start must leave exactly as it was. */
function snapshot(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .map((e) => {
      const full = path.join(e.parentPath, e.name)
      return `${path.relative(dir, full)} ${e.isFile() ? fs.statSync(full).size : 'dir'}`
    })
    .sort()
}

async function refusesToStart(dir: string, names: string) {
  const before = snapshot(dir)
  const server = run(['serve'], { DATA_DIR: dir, PORT: '0' })
  const listening = server.waitFor(/listening on/).then(
    () => 'listening' as const,
    () => 'silent' as const,
  )
  const outcome = await Promise.race([server.exited, listening])
  if (outcome === 'listening') server.child.kill('SIGKILL')
  const started = { code: await server.exited, output: server.output() }
  assert.notEqual(outcome, 'listening', `it must not start:\n${started.output}`)
  assert.equal(started.code, 1, started.output)
  const lines = started.output.trim().split('\n')
  assert.equal(lines.length, 1, `one line:\n${started.output}`)
  assert.ok(lines[0]!.includes(names), `names ${names}: ${lines[0]}`)
  assert.match(lines[0]!, /procurement restore <file>/)
  assert.match(lines[0]!, /procurement check/)
  assert.doesNotMatch(started.output, /\n\s+at |RuntimeError|Listening|listening/)
  assert.deepEqual(snapshot(dir), before, 'nothing in DATA_DIR was made or changed')
}

test('an empty key file stops start-up with one line', async () => {
  const dir = damaged((d) => fs.writeFileSync(path.join(d, 'secrets.json'), ''))
  await refusesToStart(dir, path.join(dir, 'secrets.json'))
})

test('a key file that is not JSON stops start-up with one line', async () => {
  const dir = damaged((d) => fs.writeFileSync(path.join(d, 'secrets.json'), '{"token_signing_key": "'))
  await refusesToStart(dir, path.join(dir, 'secrets.json'))
})

test('a deleted key file next to a database: no new keys, one line', async () => {
  const dir = damaged((d) => fs.rmSync(path.join(d, 'secrets.json')))
  await refusesToStart(dir, path.join(dir, 'secrets.json'))
  assert.equal(fs.existsSync(path.join(dir, 'secrets.json')), false)
})

test('a truncated write-ahead log stops start-up with one line', async () => {
  const dir = damaged((d) => {
    const wal = path.join(d, 'pgdata', 'pg_wal')
    const segment = fs.readdirSync(wal).find((name) => /^[0-9A-F]{24}$/.test(name))!
    fs.truncateSync(path.join(wal, segment), 100_000)
  })
  await refusesToStart(dir, path.join(dir, 'pgdata', 'pg_wal'))
})

test('a truncated pg_control stops start-up with one line', async () => {
  const dir = damaged((d) => fs.truncateSync(path.join(d, 'pgdata', 'global', 'pg_control'), 100))
  await refusesToStart(dir, path.join(dir, 'pgdata', 'global', 'pg_control'))
})

test('a pg_control of the right size but garbage inside stops start-up with one line', async () => {
  const dir = damaged((d) => fs.writeFileSync(path.join(d, 'pgdata', 'global', 'pg_control'), Buffer.alloc(8192, 7)))
  await refusesToStart(dir, path.join(dir, 'pgdata'))
})

test('a deleted PG_VERSION: no fresh database over the old files, one line', async () => {
  const dir = damaged((d) => fs.rmSync(path.join(d, 'pgdata', 'PG_VERSION')))
  await refusesToStart(dir, path.join(dir, 'pgdata', 'PG_VERSION'))
  assert.equal(fs.existsSync(path.join(dir, 'pgdata', 'PG_VERSION')), false)
})

test('procurement check: a whole database passes; a truncated table file is named, exit 1', async () => {
  const whole = await runToEnd(['check'], { DATA_DIR: base })
  assert.equal(whole.code, 0, whole.output)
  assert.match(whole.output, /every count agrees/)

  const dir = damaged(() => {})
  const database = await openPglite({ dataDir: path.join(dir, 'pgdata') })
  const [row] = await database.db
    .selectNoFrom((eb) => eb.fn<string>('pg_relation_filepath', [eb.val('vendors')]).as('file'))
    .execute()
  await database.close()
  fs.truncateSync(path.join(dir, 'pgdata', row!.file), 0)
  const checked = await runToEnd(['check'], { DATA_DIR: dir })
  assert.equal(checked.code, 1, checked.output)
  assert.match(checked.output, /table vendors, tenant demo: 0 rows found, but the service's counts say \d+/)
  assert.doesNotMatch(checked.output, /\n\s+at /)
})

test('DATA_DIR is made 0700 and every file in it 0600 on start, also where they were not', async () => {
  const dir = damaged((d) => {
    fs.chmodSync(d, 0o755)
    fs.chmodSync(path.join(d, 'pgdata', 'PG_VERSION'), 0o666)
    fs.chmodSync(path.join(d, 'secrets.json'), 0o644)
  })
  assert.equal((await runToEnd(['check'], { DATA_DIR: dir })).code, 0)
  assert.equal(fs.statSync(dir).mode & 0o777, 0o700)
  const entries = fs.readdirSync(dir, { recursive: true, withFileTypes: true })
  assert.ok(entries.length > 500)
  const open = entries
    .map((e) => path.join(e.parentPath, e.name))
    .filter((file) => (fs.statSync(file).mode & 0o077) !== 0)
  assert.deepEqual(open, [], 'nothing readable or writable by group or others')
  const fresh = path.join(root, 'fresh')
  assert.equal((await runToEnd(['migrate'], { DATA_DIR: fresh })).code, 0)
  assert.equal(fs.statSync(fresh).mode & 0o777, 0o700)
  assert.equal(fs.statSync(path.join(fresh, 'secrets.json')).mode & 0o777, 0o600)
})
