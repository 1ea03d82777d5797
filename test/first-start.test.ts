/**
 * The first embedded start copies the database the build made (dist/embedded-template/) instead of running
 * initdb: PostgreSQL's system identifier, which initdb draws at random and writes at the start of
 * global/pg_control, is the template's. Needs the compiled build (`npm run build`, which `npm install` runs);
 * while src/ is newer than dist/ the command runs the sources, which build the database themselves.
 */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, test } from 'node:test'
import { runToEnd } from './helpers/process.ts'

const root = path.resolve(import.meta.dirname, '..')
const template = path.join(root, 'dist/embedded-template')
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'procurement-first-start-'))
after(() => fs.rmSync(dir, { recursive: true, force: true }))

function newest(folder: string): number {
  return Math.max(
    ...fs.readdirSync(folder, { withFileTypes: true }).map((e) => {
      const p = path.join(folder, e.name)
      return e.isDirectory() ? newest(p) : fs.statSync(p).mtimeMs
    }),
  )
}
const built =
  fs.existsSync(template) &&
  fs.statSync(path.join(root, 'dist/procurement.js')).mtimeMs >= newest(path.join(root, 'src'))

const systemIdentifier = (pgdata: string) => fs.readFileSync(path.join(pgdata, 'global/pg_control')).subarray(0, 8)

test(
  'a first start copies the build’s migrated database and seeds the demo on it',
  { skip: !built && 'dist/ is not built or older than src/' },
  async () => {
    const seeded = await runToEnd(['seed'], { DATA_DIR: path.join(dir, 'data') })
    assert.equal(seeded.code, 0, seeded.output)
    assert.match(seeded.output, /Created the demo tenant/)
    assert.deepEqual(
      systemIdentifier(path.join(dir, 'data/pgdata')),
      systemIdentifier(template),
      'the template, copied',
    )
    assert.equal(fs.existsSync(path.join(dir, 'data/pgdata.partial')), false)
    const again = await runToEnd(['migrate', '--status'], { DATA_DIR: path.join(dir, 'data') })
    assert.equal(again.code, 0, again.output)
    assert.match(again.output, /The database is up to date\./)
  },
)
