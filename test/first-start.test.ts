/**
 * The first embedded start copies a database the build made instead of running initdb — `serve` the one with
 * the demo seeded (dist/embedded-template-demo/), a command that seeds nothing itself the empty one
 * (dist/embedded-template/): PostgreSQL's system identifier, which initdb draws at random and writes at the
 * start of global/pg_control, is the template's. Needs the compiled build (`npm run build`, which `npm install` runs);
 * while src/ is newer than dist/ the command runs the sources, which build the database themselves.
 */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, test } from 'node:test'
import { run, runToEnd } from './helpers/process.ts'

const root = path.resolve(import.meta.dirname, '..')
const template = path.join(root, 'dist/embedded-template')
const demoTemplate = path.join(root, 'dist/embedded-template-demo')
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

test(
  'a first start of the server copies the build’s database with the demo in it, and its new credentials work',
  { skip: !built && 'dist/ is not built or older than src/' },
  async () => {
    const dataDir = path.join(dir, 'serve')
    const server = run(['serve'], { DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1' })
    try {
      const [, origin] = await server.waitFor(/listening on (http:\/\/\S+)/)
      const [, clientId, secret] = await server.waitFor(/Client ID: (\S+)\nClient Secret: (\S+)/)
      assert.deepEqual(systemIdentifier(path.join(dataDir, 'pgdata')), systemIdentifier(demoTemplate))
      const token = await fetch(`${origin!}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          grant_type: 'client_credentials',
          client_id: clientId,
          client_secret: secret,
          audience: 'procurement-api',
        }),
      })
      assert.equal(token.status, 200, await token.clone().text())
      const { access_token } = (await token.json()) as { access_token: string }
      const vendors = await fetch(`${origin!}/api/v3/vendors/`, {
        headers: { authorization: `Bearer ${access_token}`, 'x-service-client': 'api' },
      })
      assert.equal(vendors.status, 200)
      const body = (await vendors.json()) as { metadata: { pagination: { count: number } } }
      assert.equal(body.metadata.pagination.count, 28, 'the demo’s vendors')
    } finally {
      server.child.kill('SIGTERM')
      await server.exited
    }
  },
)
