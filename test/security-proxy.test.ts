/**
 * Proxy trust (issue 20 item 3), tried as an attacker behind a reverse proxy: each failed token request
 * carries a new forged left-most X-Forwarded-For, hoping every attempt looks like a new address. The
 * client's address must be the right-most entry that is not a trusted proxy, so the per-address brake
 * still bites — and a real client behind the same proxy must not share the proxy's address.
 */
import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import Fastify from 'fastify'
import { TEST_AUDIENCE, testApp } from './helpers/app.ts'
import { run } from './helpers/process.ts'

/** A token request over a real socket from 127.0.0.1, with the X-Forwarded-For the "proxy" passes on. */
function tokenRequest(port: number, clientId: string, forwardedFor: string): Promise<number> {
  const body = JSON.stringify({
    client_id: clientId,
    client_secret: 'wrong',
    audience: TEST_AUDIENCE,
    grant_type: 'client_credentials',
  })
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/oauth/token',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
      },
      (response) => {
        response.resume()
        response.on('end', () => resolve(response.statusCode!))
      },
    )
    request.on('error', reject)
    request.end(body)
  })
}

const LIMIT = 5
const limits = { TOKEN_FAILURES_PER_ADDRESS: String(LIMIT), TOKEN_FAILURES_PER_CLIENT: '1000', LOG_LEVEL: 'warn' }

async function listening(env: Record<string, string>) {
  const ctx = await testApp({ ...limits, ...env })
  await ctx.app.listen({ port: 0, host: '127.0.0.1' })
  return { ctx, port: (ctx.app.server.address() as AddressInfo).port }
}

/** 3 × LIMIT failures from `client` with rotating forged addresses in front; then one from `bystander`. */
async function attack(port: number, chain: (forged: string, real: string) => string) {
  const statuses: number[] = []
  for (let i = 0; i < 3 * LIMIT; i++) {
    statuses.push(await tokenRequest(port, `client-${i}`, chain(`10.9.${i}.${i}`, '198.51.100.7')))
  }
  const bystander = await tokenRequest(port, 'client-bystander', chain('10.9.99.99', '198.51.100.8'))
  return { statuses, bystander }
}

describe("Fastify's own numeric trustProxy (checked before relying on it)", () => {
  test('trustProxy: 1 in Fastify 5 trusts no hop: every client looks like the proxy', async () => {
    // Fastify's types leave a number out; its code (lib/request.js) takes one and trusts no hop.
    const app = Fastify({ trustProxy: 1 as unknown as boolean })
    app.get('/ip', async (request) => ({ ip: request.ip }))
    await app.listen({ port: 0, host: '127.0.0.1' })
    try {
      const port = (app.server.address() as AddressInfo).port
      const ip = await fetch(`http://127.0.0.1:${port}/ip`, { headers: { 'x-forwarded-for': '198.51.100.7' } })
      assert.equal(((await ip.json()) as { ip: string }).ip, '127.0.0.1', 'so the service passes its own function')
    } finally {
      await app.close()
    }
  })
})

describe('TRUST_PROXY=1 (one reverse proxy)', () => {
  let server: Awaited<ReturnType<typeof listening>>
  before(async () => (server = await listening({ TRUST_PROXY: '1' })))
  after(() => server.ctx.close())

  test('rotating forged left-most entries → 429 after the limit; another client behind the proxy is not braked', async () => {
    const { statuses, bystander } = await attack(server.port, (forged, real) => `${forged}, ${real}`)
    assert.equal(statuses.slice(0, LIMIT).filter((s) => s === 401).length, LIMIT, statuses.join(' '))
    assert.ok(
      statuses.slice(LIMIT).every((s) => s === 429),
      statuses.join(' '),
    )
    assert.equal(bystander, 401, 'the brake is per client address, not per proxy')
  })
})

describe('TRUST_PROXY as a list of proxy addresses', () => {
  let server: Awaited<ReturnType<typeof listening>>
  before(async () => (server = await listening({ TRUST_PROXY: '127.0.0.1, 10.20.0.0/16' })))
  after(() => server.ctx.close())

  test('two proxies in a chain: the client is the right-most untrusted entry', async () => {
    const { statuses, bystander } = await attack(server.port, (forged, real) => `${forged}, ${real}, 10.20.3.4`)
    assert.ok(
      statuses.slice(LIMIT).every((s) => s === 429),
      statuses.join(' '),
    )
    assert.equal(bystander, 401)
  })
})

/** Starts the service; its exit code, or 'running' (then stopped) if it is still up after 20 s. */
async function startWith(env: Record<string, string>) {
  const r = run(['serve'], { PORT: '0', ...env })
  let timer: NodeJS.Timeout | undefined
  const code = await Promise.race([
    r.exited,
    new Promise<'running'>((resolve) => (timer = setTimeout(() => resolve('running'), 20_000))),
  ])
  clearTimeout(timer)
  if (code === 'running') {
    r.child.kill('SIGKILL')
    await r.exited
  }
  return { code, output: r.output() }
}

describe('TRUST_PROXY=true', () => {
  test('is refused at start-up with a message saying what to set instead, as is a malformed list', async () => {
    const { code, output } = await startWith({ TRUST_PROXY: 'true' })
    assert.ok(code !== 0 && code !== 'running', `exit ${code}`)
    assert.match(output, /TRUST_PROXY=true is refused/)
    assert.match(output, /TRUST_PROXY=1/)
    const list = await startWith({ TRUST_PROXY: '10.0.0.0/99,evil' })
    assert.ok(list.code !== 0 && list.code !== 'running', 'and so is a malformed list')
    assert.match(list.output, /TRUST_PROXY/)
  })
})
