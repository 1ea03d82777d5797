/**
 * The delivery worker's throughput machinery (docs/webhooks.md, "Deliveries"): what it claims ahead is given
 * back at once on stop; connections are kept alive, but only to the address a delivery's own check arrived at.
 */
import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'node:test'
import { loadConfig } from '../src/config.ts'
import { attempt, connectionPool } from '../src/webhooks/delivery.ts'
import { startWebhookWorker } from '../src/webhooks/worker.service.ts'
import { signedIn, useTestApp } from './helpers/app.ts'
import { startReceiver } from './helpers/receiver.ts'

const LOCAL = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_RETRY_SCHEDULE: '300ms',
  WEBHOOK_TIMEOUT: '5s',
}
const ctx = useTestApp(LOCAL)
const quiet = { error: () => undefined, warn: () => undefined }
const config = () => loadConfig({ ...LOCAL, LOG_LEVEL: 'silent' })

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies, asserted on field by field
type Body = any

async function setUp(count: number, receiverUrl: string) {
  const { api } = await signedIn(ctx)
  const created = await api({ method: 'POST', url: '/api/v3/webhook-endpoints/', payload: { url: receiverUrl } })
  assert.equal(created.statusCode, 201, created.body)
  const endpoint = created.json().data
  const names = Array.from({ length: count }, (_, i) => `D${endpoint.id}-${i}`)
  for (const name of names) {
    const response = await api({ method: 'POST', url: '/api/v3/vendors/', payload: { name } })
    assert.equal(response.statusCode, 201, response.body)
  }
  const deliveries = async (): Promise<Body[]> => {
    const response = await api({
      method: 'GET',
      url: `/api/v3/webhook-endpoints/${endpoint.id}/deliveries/?page_size=100`,
    })
    assert.equal(response.statusCode, 200, response.body)
    return response.json().data
  }
  return { names, deliveries }
}

/** A receiver on `host` (and `port`, or any) that counts connections and requests and keeps the bodies. */
async function listener(host: string, port = 0) {
  const seen = { connections: 0, requests: 0 }
  const bodies: string[] = []
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      seen.requests++
      bodies.push(Buffer.concat(chunks).toString('utf8'))
      response.writeHead(204).end()
    })
  })
  server.on('connection', () => seen.connections++)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, resolve)
  })
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return { seen, bodies, port: (server.address() as AddressInfo).port, close }
}

test('stop gives back at once what was claimed ahead and not started; the next worker sends it', async () => {
  // Fast at first (the worker learns the receiver is fast and claims ahead), then slow: 8 attempts hang in
  // flight while the rest wait in the worker for a slot.
  let slow = true
  const receiver = await startReceiver((n) => (n < 16 || !slow ? 204 : { status: 204, delayMs: 1500 }))
  try {
    const { names, deliveries } = await setUp(40, receiver.url)
    const worker = startWebhookWorker(ctx.database, config(), quiet)
    await receiver.waitFor(24)
    const before = await deliveries()
    // Not sent (an attempt in flight has no result yet either, but its request has arrived).
    const sentIds = () => new Set(receiver.received.map((r) => r.headers['webhook-id']))
    const waiting = (list: Body[]) =>
      list.filter((d) => d.status === 'pending' && d.attempts.length === 0 && !sentIds().has(d.event))
    // Leased (due at the lease's end, seconds ahead), not sent: claimed ahead.
    const leased = waiting(before).filter((d) => Date.parse(d.next_attempt_at) > Date.now() + 5000)
    assert.ok(leased.length >= 8, `claimed ahead: ${leased.length} of ${waiting(before).length} waiting`)
    const stopping = worker.stop()
    // While the attempts in flight still have their grace, what waited is due again already.
    await new Promise((resolve) => setTimeout(resolve, 300))
    const during = await deliveries()
    const stillLeased = waiting(during).filter((d) => Date.parse(d.next_attempt_at) > Date.now() + 1000)
    assert.deepEqual(stillLeased, [], 'nothing claimed ahead is held after stop() began')
    assert.ok(receiver.received.length < 40 + 1, 'nothing claimed ahead was sent after stop() began')
    await stopping
    const sent = receiver.received.length
    assert.ok(sent < 40, `${sent} sent before the stop`)
    slow = false
    const next = startWebhookWorker(ctx.database, config(), quiet)
    try {
      await receiver.waitFor(sent + 40 - 24)
      const arrived = new Set(receiver.received.map((r) => JSON.parse(r.body).data.object.name as string))
      assert.deepEqual([...arrived].sort(), [...names].sort())
    } finally {
      await next.stop()
    }
  } finally {
    await receiver.close()
  }
})

test('the worker keeps connections alive: 30 deliveries over at most 8 connections', async () => {
  const receiver = await listener('127.0.0.1')
  try {
    const { names } = await setUp(30, `http://127.0.0.1:${receiver.port}/hook`)
    const worker = startWebhookWorker(ctx.database, config(), quiet)
    try {
      const end = Date.now() + 15_000
      while (receiver.bodies.length < 30 && Date.now() < end) await new Promise((r) => setTimeout(r, 50))
    } finally {
      await worker.stop()
    }
    const arrived = new Set(receiver.bodies.map((body) => JSON.parse(body).data.object.name as string))
    assert.deepEqual([...arrived].sort(), [...names].sort())
    assert.ok(receiver.seen.connections <= 8, `${receiver.seen.connections} connections for 30 deliveries`)
  } finally {
    await receiver.close()
  }
})

test('a kept-alive connection is used only for the address this delivery resolved and checked', async () => {
  const a = await listener('127.0.0.1')
  const b = await listener('127.0.0.2', a.port)
  const connections = connectionPool(8)
  let address = '127.0.0.1'
  const lookup = async () => [{ address, family: 4 }]
  const send = (allowPrivate: boolean) =>
    attempt(
      { url: `http://hooks.test:${a.port}/hook`, headers: {}, body: '{}' },
      { allowHttp: true, allowPrivate },
      2000,
      { connections, scope: 'e1', lookup },
    )
  try {
    assert.equal((await send(true)).status, 204)
    assert.equal((await send(true)).status, 204)
    assert.deepEqual(a.seen, { connections: 1, requests: 2 }, 'the second attempt reused the connection')
    // The name now resolves to an address the policy refuses: no request, pooled connection or not.
    const refused = await send(false)
    assert.equal(refused.status, null)
    assert.match(refused.error!, /refused: hooks\.test resolves to 127\.0\.0\.1, not a public address/)
    assert.deepEqual(a.seen, { connections: 1, requests: 2 })
    // The name now resolves elsewhere: the delivery goes there, not over the connection to the old address.
    address = '127.0.0.2'
    assert.equal((await send(true)).status, 204)
    assert.deepEqual(b.seen, { connections: 1, requests: 1 })
    assert.deepEqual(a.seen, { connections: 1, requests: 2 })
    address = '127.0.0.1'
    assert.equal((await send(true)).status, 204)
    assert.deepEqual(a.seen, { connections: 1, requests: 3 })
  } finally {
    connections.close()
    await a.close()
    await b.close()
  }
})

test('results written in batches keep the endpoint rules: 5 days of failures switch it off, a success clears the streak', async () => {
  const failing = await startReceiver(() => 500)
  const healthy = await startReceiver(() => 204)
  try {
    const { api } = await signedIn(ctx)
    const endpoints: Body[] = []
    for (const url of [failing.url, healthy.url]) {
      const created = await api({ method: 'POST', url: '/api/v3/webhook-endpoints/', payload: { url } })
      assert.equal(created.statusCode, 201, created.body)
      endpoints.push(created.json().data)
    }
    const ids = endpoints.map((e) => e.id as number)
    // Both have failed for 6 days (the streak is the service's own state; no API sets it).
    await ctx.database.db
      .updateTable('webhook_endpoints')
      .set({ failing_since: new Date(Date.now() - 6 * 86400_000) })
      .where('id', 'in', ids)
      .execute()
    for (let i = 0; i < 3; i++) {
      const response = await api({ method: 'POST', url: '/api/v3/vendors/', payload: { name: `F${ids[0]}-${i}` } })
      assert.equal(response.statusCode, 201, response.body)
    }
    const worker = startWebhookWorker(ctx.database, config(), quiet)
    try {
      await healthy.waitFor(3)
      await failing.waitFor(1)
      const end = Date.now() + 15_000
      const read = () =>
        ctx.database.db
          .selectFrom('webhook_endpoints')
          .select(['id', 'enabled', 'disabled_reason', 'failing_since'])
          .where('id', 'in', ids)
          .orderBy('id')
          .execute()
      let rows = await read()
      while ((rows[0]!.enabled || rows[1]!.failing_since !== null) && Date.now() < end) {
        await new Promise((r) => setTimeout(r, 50))
        rows = await read()
      }
      assert.equal(rows[0]!.enabled, false)
      assert.equal(rows[0]!.disabled_reason, 'every delivery failed for 5 days')
      assert.equal(rows[1]!.enabled, true)
      assert.equal(rows[1]!.failing_since, null)
      const shown = await api({ method: 'GET', url: `/api/v3/webhook-endpoints/${ids[0]}/` })
      assert.equal(shown.json().data.enabled, false)
    } finally {
      await worker.stop()
    }
    // Switched off: its other deliveries were not sent (at most those already in flight at the first result).
    assert.ok(failing.received.length <= 3)
  } finally {
    await failing.close()
    await healthy.close()
  }
})

test('a fast receiver that turns slow: what waited is given back after 2 s and not claimed ahead again', async () => {
  const receiver = await startReceiver((n) => (n < 16 ? 204 : { status: 204, delayMs: 8000 }))
  try {
    const { deliveries } = await setUp(40, receiver.url)
    const worker = startWebhookWorker(ctx.database, loadConfig({ ...LOCAL, WEBHOOK_TIMEOUT: '10s' }), quiet, {
      stopGraceMs: 100,
    })
    try {
      await receiver.waitFor(24)
      const sentIds = new Set(receiver.received.map((r) => r.headers['webhook-id']))
      const waiting = (list: Body[]) =>
        list.filter((d) => d.status === 'pending' && d.attempts.length === 0 && !sentIds.has(d.event))
      const leased = (list: Body[]) => waiting(list).filter((d) => Date.parse(d.next_attempt_at) > Date.now() + 5000)
      assert.ok(leased(await deliveries()).length >= 8, 'claimed ahead while the receiver was fast')
      await new Promise((resolve) => setTimeout(resolve, 3500))
      const later = await deliveries()
      assert.equal(waiting(later).length, 16)
      assert.deepEqual(leased(later), [], 'given back (due now), not claimed ahead again')
      assert.equal(receiver.received.length, 24, 'nothing more was sent while the 8 slots were busy')
    } finally {
      await worker.stop()
    }
  } finally {
    await receiver.close()
  }
})

test('startAfter: the worker sends nothing, even when notified, until it is time; then what is due goes out', async () => {
  const receiver = await listener('127.0.0.1')
  try {
    const { names } = await setUp(3, `http://127.0.0.1:${receiver.port}/hook`)
    let start!: () => void
    const worker = startWebhookWorker(ctx.database, config(), quiet, {
      startAfter: new Promise<void>((resolve) => (start = resolve)),
    })
    try {
      // A notification, as the LISTEN connection would bring one, is remembered, not acted on.
      worker.subscriber.notify('')
      await new Promise((resolve) => setTimeout(resolve, 500))
      assert.equal(receiver.seen.requests, 0, 'nothing sent before startAfter')
      start()
      for (let i = 0; i < 100 && receiver.seen.requests < names.length; i++)
        await new Promise((resolve) => setTimeout(resolve, 50))
      assert.equal(receiver.seen.requests, names.length)
    } finally {
      await worker.stop()
    }
  } finally {
    await receiver.close()
  }
})
