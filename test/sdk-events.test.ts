/** The SDK's events: the feed as an async iterator, and verifyWebhook against an independent signer. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Webhook } from 'standardwebhooks'
import { ProcurementClient, verifyWebhook, WebhookVerificationError } from '../sdk/src/index.ts'
import { clientFor, sampleTenant, TEST_AUDIENCE, useTestApp } from './helpers/app.ts'

const ctx = useTestApp({ RATE_LIMIT_PER_MINUTE: '0' })

test('client.events.list({ after }) iterates every event after the cursor, over pages', async () => {
  const base = await ctx.app.listen({ port: 0, host: '127.0.0.1' })
  const creds = await clientFor(ctx, await sampleTenant(ctx))
  const client = new ProcurementClient({
    baseUrl: base,
    clientId: creds.client_id,
    clientSecret: creds.client_secret,
    audience: TEST_AUDIENCE,
  })
  // The sample data has events of its own (it is made through the services): start after them.
  let start: string | undefined
  for await (const event of client.events.list({ page_size: 1000 })) start = event.id
  for (let i = 0; i < 7; i++) await client.vendors.create({ name: `E${i}` })
  const all = []
  for await (const event of client.events.list({ ...(start === undefined ? {} : { after: start }), page_size: 3 }))
    all.push(event)
  assert.deepEqual(
    all.map((e) => (e.type === 'vendor.created' ? e.data.object.name : '?')),
    ['E0', 'E1', 'E2', 'E3', 'E4', 'E5', 'E6'],
  )
  const rest = []
  for await (const event of client.events.list({ after: all[3]!.id, page_size: 2 })) rest.push(event.id)
  assert.deepEqual(
    rest,
    all.slice(4).map((e) => e.id),
  )
  assert.deepEqual(await client.events.get(all[0]!.id), all[0])
})

test('verifyWebhook accepts what an independent Standard Webhooks signer signs, and nothing else', async () => {
  const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`
  const other = `whsec_${Buffer.alloc(32, 9).toString('base64')}`
  const body = JSON.stringify({ id: 'evt_1', type: 'vendor.created', created_at: '', data: { object: { id: 1 } } })
  const now = new Date()
  const sign = (key: string, at = now, payload = body) => new Webhook(key).sign('evt_1', at, payload)
  const headers = (signature: string, at = now) => ({
    'webhook-id': 'evt_1',
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signature,
  })
  assert.deepEqual(await verifyWebhook(body, headers(sign(secret)), secret), JSON.parse(body))
  assert.deepEqual(await verifyWebhook(Buffer.from(body), new Headers(headers(sign(secret))), secret), JSON.parse(body))
  // Two signatures (a rotation): either secret verifies.
  const both = `${sign(other)} ${sign(secret)}`
  assert.ok(await verifyWebhook(body, headers(both), secret))
  assert.ok(await verifyWebhook(body, headers(both), other))
  const refused = async (promise: Promise<unknown>) =>
    assert.rejects(promise, (error) => error instanceof WebhookVerificationError)
  await refused(verifyWebhook(`${body} `, headers(sign(secret)), secret))
  await refused(verifyWebhook(body, headers(sign(other)), secret))
  await refused(verifyWebhook(body, {}, secret))
  const old = new Date(now.getTime() - 6 * 60_000)
  await refused(verifyWebhook(body, headers(sign(secret, old), old), secret))
  await refused(verifyWebhook(body, { ...headers(sign(secret)), 'webhook-id': 'evt_2' }, secret))
  await refused(verifyWebhook(body, headers('v1,!!!notbase64'), secret))
  await refused(verifyWebhook(body, headers(sign(secret).replace('v1,', 'v2,')), secret))
})
