/**
 * The Kubernetes example (deploy/kubernetes/) starts: its environment (the Deployment's `env` and the Secret's
 * `stringData`) passes the service's own configuration check, and the service serves with it — on the
 * embedded database here, as far as this machine allows (no cluster, no PostgreSQL named in the example).
 */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, test } from 'node:test'
import { loadConfig } from '../src/config.ts'
import { run, type Running } from './helpers/process.ts'

const dir = path.resolve(import.meta.dirname, '../deploy/kubernetes')
const unquote = (v: string) =>
  v
    .trim()
    .replace(/^'(.*)'$/, '$1')
    .replace(/^"(.*)"$/, '$1')

/** The Deployment's `- { name: X, value: Y }` entries and the Secret's `stringData` lines. */
function exampleEnv(): Record<string, string> {
  const env: Record<string, string> = {}
  const deployment = fs.readFileSync(path.join(dir, 'deployment.yaml'), 'utf8')
  for (const m of deployment.matchAll(/^\s*- \{ name: (\w+), value: (.+) \}\s*$/gm)) env[m[1]!] = unquote(m[2]!)
  const secret = fs.readFileSync(path.join(dir, 'secret.yaml'), 'utf8')
  const data = secret.split(/^stringData:\s*$/m)[1] ?? ''
  for (const m of data.matchAll(/^ {2}(\w+): (.+)$/gm)) env[m[1]!] = unquote(m[2]!)
  return env
}

const children: Running[] = []
const dirs: string[] = []
after(() => {
  for (const c of children) c.child.kill('SIGKILL')
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true })
})

test("the example's environment passes the configuration check", () => {
  const env = exampleEnv()
  assert.equal(env.TRUST_PROXY, '1')
  assert.ok(env.DATABASE_URL && env.TOKEN_SIGNING_KEY && env.PUBLIC_URL, JSON.stringify(Object.keys(env)))
  const config = loadConfig(env)
  assert.equal(config.trustProxy, 1)
  assert.throws(() => loadConfig({ ...env, TRUST_PROXY: 'true' }), /TRUST_PROXY=true is refused/)
})

test('the service serves with that environment (embedded database instead of the example PostgreSQL)', async () => {
  const env: Record<string, string | undefined> = exampleEnv()
  delete env.DATABASE_URL
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procurement-k8s-'))
  dirs.push(dataDir)
  const r = run(['serve'], {
    ...env,
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: dataDir,
    DEMO_SEED: 'false',
    LOG_LEVEL: 'info',
  })
  children.push(r)
  const base = (await r.waitFor(/listening on (http:\/\/\S+)/))[1]!
  for (const probe of ['/healthz', '/readyz']) {
    const response = await fetch(`${base}${probe}`, { headers: { 'x-forwarded-for': '203.0.113.9' } })
    assert.equal(response.status, 200, `${probe}: ${await response.text()}`)
  }
  r.child.kill('SIGTERM')
  assert.equal(await r.exited, 0, r.output())
})
