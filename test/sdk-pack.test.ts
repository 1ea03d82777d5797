/**
 * The SDK as an outsider gets it: `npm pack` in sdk/ gives a tarball that installs into an empty folder
 * outside this repository, where the example (examples/sync-vendors.ts, which imports 'procurement-sdk')
 * type-checks against the installed package and runs with plain node against a real server.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, test } from 'node:test'
import { promisify } from 'node:util'
import { run } from './helpers/process.ts'

const exec = promisify(execFile)
const repo = path.resolve(import.meta.dirname, '..')
const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'procurement-sdk-user-'))
after(() => fs.rmSync(outside, { recursive: true, force: true }))

test('npm pack → install in an empty folder outside the repository → the example type-checks and runs', async () => {
  assert.ok(!path.relative(repo, outside).match(/^[^.]/), 'the folder is outside the repository')
  const packed = await exec('npm', ['pack', '--pack-destination', outside, '--json'], { cwd: path.join(repo, 'sdk') })
  const [{ filename, files }] = JSON.parse(packed.stdout) as [{ filename: string; files: { path: string }[] }]
  const paths = files.map((f) => f.path)
  assert.ok(paths.includes('dist/index.d.ts') && paths.includes('dist/index.js') && paths.includes('LICENSE'))
  assert.ok(!paths.some((p) => p.startsWith('src/')), 'only the build is shipped')

  const app = path.join(outside, 'app')
  fs.mkdirSync(app)
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'sdk-user', private: true, type: 'module' }))
  await exec('npm', ['install', '--no-audit', '--no-fund', '--offline', path.join(outside, filename)], { cwd: app })
  const installed = JSON.parse(
    fs.readFileSync(path.join(app, 'node_modules/procurement-sdk/package.json'), 'utf8'),
  ) as {
    license: string
  }
  assert.equal(installed.license, 'Apache-2.0')

  fs.copyFileSync(path.join(repo, 'examples/sync-vendors.ts'), path.join(app, 'sync-vendors.ts'))
  fs.writeFileSync(
    path.join(app, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        outDir: 'out',
        // Node's own types come from this repository's install: the folder itself has only the SDK.
        typeRoots: [path.join(repo, 'node_modules/@types')],
        types: ['node'],
      },
      files: ['sync-vendors.ts'],
    }),
  )
  const tsc = path.join(repo, 'node_modules/typescript/bin/tsc')
  const compiled = await exec(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: app }).catch(
    (error: { stdout: string }) => ({ stdout: error.stdout, failed: true }),
  )
  assert.ok(!('failed' in compiled), `the example type-checks against the installed package:\n${compiled.stdout}`)

  const dataDir = path.join(outside, 'data')
  const server = run(['serve'], { DATA_DIR: dataDir, PORT: '0' })
  try {
    const [, origin] = await server.waitFor(/listening on (http:\S+)/)
    const [, clientId] = await server.waitFor(/Client ID: (\S+)/)
    const [, clientSecret] = await server.waitFor(/Client Secret: (\S+)/)
    const csv = path.join(outside, 'vendors.csv')
    const example = await exec(process.execPath, ['out/sync-vendors.js', csv], {
      cwd: app,
      env: { PATH: process.env.PATH, PROCUREMENT_URL: origin, CLIENT_ID: clientId, CLIENT_SECRET: clientSecret },
    })
    assert.match(example.stderr, /synced (\d+) of \1 vendors/)
    const lines = fs.readFileSync(csv, 'utf8').trimEnd().split('\r\n')
    assert.equal(lines[0], 'id,name,active,external_id,city,country,email,dateModified')
    assert.ok(lines.length > 10, 'the demo vendors were written')
  } finally {
    server.child.kill('SIGTERM')
    await server.exited
  }
})
