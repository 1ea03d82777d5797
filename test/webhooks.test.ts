/** Webhook endpoints and deliveries (DECISIONS.md, "Events and webhooks"), verified with `standardwebhooks`. */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Webhook } from 'standardwebhooks'
import { loadConfig } from '../src/config.ts'
import { resolveDestination } from '../src/webhooks/destinations.ts'
import { startWebhookWorker } from '../src/webhooks/worker.service.ts'
import { signedIn, testApp, useTestApp, type TestContext } from './helpers/app.ts'
import { startReceiver } from './helpers/receiver.ts'

const LOCAL = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_RETRY_SCHEDULE: '300ms,300ms,300ms',
  WEBHOOK_TIMEOUT: '2s',
}
const ctx = useTestApp(LOCAL)

type Api = Awaited<ReturnType<typeof signedIn>>['api']
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies, asserted on field by field
type Body = any

const quiet = { error: () => undefined, warn: () => undefined }

/** Runs `work` with a delivery worker on the test database (as every serving process runs one). */
async function withWorker<T>(work: () => Promise<T>, env: Record<string, string> = LOCAL): Promise<T> {
  const worker = startWebhookWorker(ctx.database, loadConfig({ ...env, LOG_LEVEL: 'silent' }), quiet)
  try {
    return await work()
  } finally {
    await worker.stop()
  }
}

async function createEndpoint(api: Api, payload: object): Promise<Body> {
  const response = await api({ method: 'POST', url: '/api/v3/webhook-endpoints/', payload })
  assert.equal(response.statusCode, 201, response.body)
  return response.json().data
}

const createVendor = async (api: Api, name: string) => {
  const response = await api({ method: 'POST', url: '/api/v3/vendors/', payload: { name } })
  assert.equal(response.statusCode, 201, response.body)
  return response.json().data
}

async function deliveries(api: Api, endpoint: number): Promise<Body[]> {
  const response = await api({ method: 'GET', url: `/api/v3/webhook-endpoints/${endpoint}/deliveries/` })
  assert.equal(response.statusCode, 200, response.body)
  return response.json().data
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() > end) assert.fail(`condition not reached: ${JSON.stringify(value)}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

test('WEBHOOK_* settings: durations, a timeout of at least 100 ms, a schedule of durations', () => {
  const config = loadConfig({ WEBHOOK_TIMEOUT: '1500ms', WEBHOOK_RETRY_SCHEDULE: '1s, 2m,3h' })
  assert.equal(config.webhookTimeoutMs, 1500)
  assert.deepEqual(config.webhookRetryMs, [1000, 120_000, 10_800_000])
  assert.deepEqual(
    loadConfig({}).webhookRetryMs,
    [5000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
  )
  for (const env of [{ WEBHOOK_TIMEOUT: '0s' }, { WEBHOOK_TIMEOUT: '10' }, { WEBHOOK_RETRY_SCHEDULE: '5s,,5m' }])
    assert.throws(() => loadConfig(env), /Invalid configuration:\n {2}WEBHOOK_/)
})

describe('endpoints', () => {
  test('create shows the secret once; list, read, change, rotate, delete', async () => {
    const { api } = await signedIn(ctx)
    const created = await api({
      method: 'POST',
      url: '/api/v3/webhook-endpoints/',
      payload: { url: 'https://8.8.8.8/hook', event_types: ['vendor.*'], description: 'ERP' },
    })
    assert.equal(created.statusCode, 201, created.body)
    const endpoint = created.json().data
    assert.match(endpoint.secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
    assert.equal(Buffer.from(endpoint.secret.slice(6), 'base64').length, 32)
    assert.deepEqual(
      { ...endpoint, secret: undefined, created_at: undefined, id: undefined },
      {
        id: undefined,
        url: 'https://8.8.8.8/hook',
        event_types: ['vendor.*'],
        description: 'ERP',
        enabled: true,
        secret: undefined,
        created_at: undefined,
      },
    )
    assert.match(String(created.headers.location), new RegExp(`/api/v3/webhook-endpoints/${endpoint.id}/$`))
    const { secret, ...shown } = endpoint
    assert.deepEqual(
      (await api({ method: 'GET', url: `/api/v3/webhook-endpoints/${endpoint.id}/` })).json().data,
      shown,
    )
    const list = (await api({ method: 'GET', url: '/api/v3/webhook-endpoints/' })).json()
    assert.deepEqual(list.data, [shown])
    assert.equal(list.metadata.pagination.count, 1)
    assert.ok(!JSON.stringify(list).includes(secret))
    const patched = await api({
      method: 'PATCH',
      url: `/api/v3/webhook-endpoints/${endpoint.id}`,
      payload: { enabled: false, event_types: ['*'] },
    })
    assert.equal(patched.statusCode, 200, patched.body)
    assert.equal(patched.json().data.enabled, false)
    assert.deepEqual(patched.json().data.event_types, ['*'])
    const unchanged = await api({ method: 'PATCH', url: `/api/v3/webhook-endpoints/${endpoint.id}/`, payload: {} })
    assert.deepEqual(unchanged.json().data, patched.json().data)
    const rotated = await api({ method: 'POST', url: `/api/v3/webhook-endpoints/${endpoint.id}/rotate-secret/` })
    assert.equal(rotated.statusCode, 200)
    assert.notEqual(rotated.json().data.secret, secret)
    assert.equal((await api({ method: 'DELETE', url: `/api/v3/webhook-endpoints/${endpoint.id}/` })).statusCode, 204)
    assert.equal((await api({ method: 'GET', url: `/api/v3/webhook-endpoints/${endpoint.id}/` })).statusCode, 404)
  })

  test('the list pages, orders, searches, filters by enabled and answers CSV like every list', async () => {
    const { api } = await signedIn(ctx)
    const made: Body[] = []
    for (const [host, enabled] of [
      ['c.example.com', true],
      ['a.example.com', false],
      ['b.example.com', true],
    ] as const)
      made.push(await createEndpoint(api, { url: `https://${host}/hook`, enabled, description: `to ${host}` }))
    const list = async (query: string) => {
      const response = await api({ method: 'GET', url: `/api/v3/webhook-endpoints/?${query}` })
      assert.equal(response.statusCode, 200, `${query}: ${response.body}`)
      return response.json()
    }
    const ids = (body: Body) => body.data.map((e: Body) => e.id)
    assert.deepEqual(ids(await list('')), ids({ data: made }))
    const firstTwo = await list('page_size=2')
    assert.deepEqual(ids(firstTwo), ids({ data: made.slice(0, 2) }))
    assert.equal(firstTwo.metadata.pagination.count, 3)
    assert.equal(firstTwo.metadata.pagination.num_pages, 2)
    assert.deepEqual(ids(await list('page_size=2&page=2')), [made[2].id])
    assert.deepEqual(ids(await list('order_by=url')), [made[1].id, made[2].id, made[0].id])
    assert.deepEqual(ids(await list('order_by=-id')), ids({ data: [...made].reverse() }))
    assert.deepEqual(ids(await list('enabled=false')), [made[1].id])
    assert.deepEqual(ids(await list('search=B.EXAMPLE')), [made[2].id])
    const csv = await api({ method: 'GET', url: '/api/v3/webhook-endpoints/?format=csv&order_by=url' })
    assert.equal(csv.statusCode, 200)
    assert.match(String(csv.headers['content-type']), /^text\/csv/)
    assert.ok(csv.body.indexOf('a.example.com') < csv.body.indexOf('c.example.com'))
    assert.ok(!csv.body.includes('whsec_'))
    for (const query of ['order_by=secret', 'enabled=maybe', 'page=0', 'x=1']) {
      const response = await api({ method: 'GET', url: `/api/v3/webhook-endpoints/?${query}` })
      assert.equal(response.statusCode, 400, query)
    }
    assert.equal((await api({ method: 'GET', url: '/api/v3/webhook-endpoints/?page=3' })).statusCode, 404)
  })

  test('bad input is a 400 naming the field; other tenants get 404; only superuser or nav_setting', async () => {
    const { api, tenant } = await signedIn(ctx)
    for (const payload of [
      {},
      { url: 'not a url' },
      { url: 'ftp://example.com/' },
      { url: 'https://user:pw@8.8.8.8/' },
      { url: 'https://8.8.8.8/', event_types: [] },
      { url: 'https://8.8.8.8/', event_types: ['vendor'] },
      { url: 'https://8.8.8.8/', event_types: ['__proto__'] },
      { url: 'https://8.8.8.8/', extra: 1 },
    ]) {
      const response = await api({ method: 'POST', url: '/api/v3/webhook-endpoints/', payload })
      assert.equal(response.statusCode, 400, JSON.stringify(payload))
    }
    const mine = await createEndpoint(api, { url: 'https://8.8.8.8/' })
    const other = await signedIn(ctx)
    for (const [method, url] of [
      ['GET', `/api/v3/webhook-endpoints/${mine.id}/`],
      ['DELETE', `/api/v3/webhook-endpoints/${mine.id}/`],
      ['POST', `/api/v3/webhook-endpoints/${mine.id}/rotate-secret/`],
      ['GET', `/api/v3/webhook-endpoints/${mine.id}/deliveries/`],
      ['POST', `/api/v3/webhook-endpoints/${mine.id}/deliveries/1/retry/`],
    ] as const)
      assert.equal((await other.api({ method, url })).statusCode, 404, `${method} ${url}`)
    const buyer = await signedIn(ctx, 'buyer', tenant)
    assert.equal((await buyer.api({ method: 'GET', url: '/api/v3/webhook-endpoints/' })).statusCode, 403)
    const denied = await buyer.api({
      method: 'POST',
      url: '/api/v3/webhook-endpoints/',
      payload: { url: 'https://8.8.8.8/' },
    })
    assert.equal(denied.statusCode, 403)
  })

  test('without WEBHOOK_ALLOW_*: https only, and no address that is not global unicast, in any spelling', async () => {
    const strict: TestContext = await testApp()
    try {
      const { api } = await signedIn(strict)
      for (const url of [
        'http://8.8.8.8/',
        'https://127.0.0.1/',
        'https://2130706433/',
        'https://127.1/',
        'https://0x7f.1/',
        'https://[::ffff:127.0.0.1]/',
        'https://169.254.169.254/latest/meta-data/',
        'https://[::1]/',
        'https://[::]/',
        'https://0.0.0.0/',
        'https://10.1.2.3/',
        'https://192.168.0.1/',
        'https://172.16.0.1/',
        'https://100.100.100.200/',
        'https://[fd00:ec2::254]/',
        'https://[fe80::1]/',
        'https://224.0.0.1/',
        'https://[64:ff9b::7f00:1]/',
        'https://localhost/',
      ]) {
        const response = await api({ method: 'POST', url: '/api/v3/webhook-endpoints/', payload: { url } })
        assert.equal(response.statusCode, 400, `${url}: ${response.body}`)
        assert.ok(response.json().errors.url, url)
      }
      assert.equal(
        (await api({ method: 'POST', url: '/api/v3/webhook-endpoints/', payload: { url: 'https://8.8.8.8/' } }))
          .statusCode,
        201,
      )
    } finally {
      await strict.close()
    }
  })

  test('a name is judged by every address it resolves to', async () => {
    const policy = { allowHttp: false, allowPrivate: false }
    const resolvesTo =
      (...addresses: string[]) =>
      async () =>
        addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
    const url = new URL('https://hooks.example.com/')
    assert.ok('refused' in (await resolveDestination(url, policy, resolvesTo('10.0.0.7'))))
    assert.ok('refused' in (await resolveDestination(url, policy, resolvesTo('93.184.216.34', '10.0.0.7'))))
    assert.ok('refused' in (await resolveDestination(url, policy, resolvesTo('::ffff:169.254.169.254'))))
    assert.deepEqual(await resolveDestination(url, policy, resolvesTo('93.184.216.34')), {
      address: '93.184.216.34',
      family: 4,
    })
    const nowhere = async () => Promise.reject(Object.assign(new Error('no'), { code: 'ENOTFOUND' }))
    assert.ok('unresolved' in (await resolveDestination(url, policy, nowhere)))
  })
})

describe('deliveries', () => {
  test('signed per Standard Webhooks (verified by the standardwebhooks package), the event as the feed has it', async () => {
    const { api } = await signedIn(ctx)
    const receiver = await startReceiver()
    try {
      const endpoint = await createEndpoint(api, { url: receiver.url, event_types: ['vendor.created'] })
      await withWorker(async () => {
        const vendor = await createVendor(api, 'Signed')
        const patched = await api({ method: 'PATCH', url: `/api/v3/vendors/${vendor.id}/`, payload: { city: 'x' } })
        assert.equal(patched.statusCode, 200)
        await receiver.waitFor(1)
      })
      const [request] = receiver.received
      const verified = new Webhook(endpoint.secret).verify(request!.body, request!.headers) as Body
      // The newest vendor.created (the sample data's own vendors come before it).
      const created = (await api({ method: 'GET', url: '/api/v3/events/?type=vendor.created' })).json().data.at(-1)
      assert.deepEqual(verified, created)
      assert.equal(receiver.received.length, 1, 'vendor.updated is not among its types')
      assert.equal(request!.headers['webhook-id'], created.id)
      assert.equal(request!.headers['content-type'], 'application/json')
      assert.throws(() =>
        new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(request!.body, request!.headers),
      )
      const [delivery] = await until(
        () => deliveries(api, endpoint.id),
        (d) => d[0]?.status === 'succeeded',
      )
      assert.equal(delivery.event, created.id)
      assert.equal(delivery.event_type, 'vendor.created')
      assert.equal(delivery.next_attempt_at, null)
      assert.equal(delivery.attempts.length, 1)
      assert.equal(delivery.attempts[0].response_status, 200)
    } finally {
      await receiver.close()
    }
  })

  test('a receiver failing twice then succeeding gets the same webhook-id three times', async () => {
    const { api } = await signedIn(ctx)
    const receiver = await startReceiver((n) => (n < 2 ? { status: 500, body: `no ${n}` } : 204))
    try {
      const endpoint = await createEndpoint(api, { url: receiver.url })
      await withWorker(async () => {
        await createVendor(api, 'Retried')
        await receiver.waitFor(3)
      })
      const ids = receiver.received.map((r) => r.headers['webhook-id'])
      assert.equal(new Set(ids).size, 1)
      for (const r of receiver.received) new Webhook(endpoint.secret).verify(r.body, r.headers)
      const timestamps = receiver.received.map((r) => Number(r.headers['webhook-timestamp']))
      assert.ok(timestamps.every((t) => Math.abs(t - Date.now() / 1000) < 60))
      const [delivery] = await until(
        () => deliveries(api, endpoint.id),
        (d) => d[0]?.status === 'succeeded',
      )
      assert.deepEqual(
        delivery.attempts.map((a: Body) => [a.response_status, a.response_body]),
        [
          [500, 'no 0'],
          [500, 'no 1'],
          [204, ''],
        ],
      )
      // The waits follow the schedule (300 ms ± 20 %), not a tight loop.
      const gaps = receiver.received.slice(1).map((r, i) => r.at - receiver.received[i]!.at)
      assert.ok(
        gaps.every((g) => g >= 230),
        `gaps ${gaps.join(', ')}`,
      )
    } finally {
      await receiver.close()
    }
  })

  test('after the last retry the delivery is failed; retry by hand is 202 and a new attempt', async () => {
    const { api } = await signedIn(ctx)
    let up = false
    const receiver = await startReceiver(() => (up ? 200 : 302))
    try {
      const endpoint = await createEndpoint(api, { url: receiver.url })
      await withWorker(async () => {
        await createVendor(api, 'Redirected')
        await receiver.waitFor(4)
        const [failed] = await until(
          () => deliveries(api, endpoint.id),
          (d) => d[0]?.status === 'failed',
        )
        assert.equal(failed.attempts.length, 4, '1 + 3 retries')
        assert.equal(failed.next_attempt_at, null)
        assert.equal(receiver.received.length, 4, 'a redirect is not followed')
        up = true
        const retry = await api({
          method: 'POST',
          url: `/api/v3/webhook-endpoints/${endpoint.id}/deliveries/${failed.id}/retry/`,
        })
        assert.equal(retry.statusCode, 202)
        const [done] = await until(
          () => deliveries(api, endpoint.id),
          (d) => d[0]?.status === 'succeeded',
        )
        assert.equal(done.attempts.length, 5)
      })
    } finally {
      await receiver.close()
    }
  })

  test('410 disables the endpoint; a disabled endpoint gets nothing, not even later for events meanwhile', async () => {
    const { api } = await signedIn(ctx)
    let gone = true
    const receiver = await startReceiver(() => (gone ? 410 : 200))
    try {
      const endpoint = await createEndpoint(api, { url: receiver.url })
      await withWorker(async () => {
        await createVendor(api, 'Gone')
        await until(
          async () => (await api({ method: 'GET', url: `/api/v3/webhook-endpoints/${endpoint.id}/` })).json().data,
          (e) => e.enabled === false,
        )
        await createVendor(api, 'While disabled')
        gone = false
        await api({ method: 'PATCH', url: `/api/v3/webhook-endpoints/${endpoint.id}/`, payload: { enabled: true } })
        await createVendor(api, 'After')
        await receiver.waitFor(2)
        await new Promise((resolve) => setTimeout(resolve, 500))
      })
      assert.deepEqual(
        receiver.received.map((r) => JSON.parse(r.body).data.object.name),
        ['Gone', 'After'],
      )
      const list = await deliveries(api, endpoint.id)
      assert.deepEqual(
        list.map((d) => d.status),
        ['succeeded', 'failed'],
        'newest first',
      )
    } finally {
      await receiver.close()
    }
  })

  test('after a rotation both secrets sign; a slow endpoint does not delay another', async () => {
    const { api } = await signedIn(ctx)
    const slow = await startReceiver(() => ({ status: 200, delayMs: 1500 }))
    const fast = await startReceiver()
    try {
      const first = await createEndpoint(api, { url: fast.url })
      const rotated = (
        await api({ method: 'POST', url: `/api/v3/webhook-endpoints/${first.id}/rotate-secret/` })
      ).json().data
      await createEndpoint(api, { url: slow.url })
      // Both endpoints have 20 deliveries due when the worker starts; the slow one answers after 1.5 s, and
      // takes 8 at a time, so its 17th arrives only after two of its rounds (≥ 3 s).
      for (let i = 0; i < 20; i++) await createVendor(api, `N${i}`)
      await withWorker(async () => {
        await fast.waitFor(20)
        await slow.waitFor(20, 30_000)
      })
      assert.ok(fast.received[19]!.at < slow.received[16]!.at, 'the fast endpoint did not wait for the slow one')
      const request = fast.received[0]!
      assert.equal(request.headers['webhook-signature']!.split(' ').length, 2)
      new Webhook(first.secret).verify(request.body, request.headers)
      new Webhook(rotated.secret).verify(request.body, request.headers)
    } finally {
      await slow.close()
      await fast.close()
    }
  })

  test('an address is checked again at delivery: a worker without WEBHOOK_ALLOW_PRIVATE_NETWORKS refuses it', async () => {
    const { api } = await signedIn(ctx)
    const receiver = await startReceiver()
    try {
      const endpoint = await createEndpoint(api, { url: receiver.url })
      await withWorker(
        async () => {
          await createVendor(api, 'Private')
          const [delivery] = await until(
            () => deliveries(api, endpoint.id),
            (d) => (d[0]?.attempts.length ?? 0) > 0,
          )
          assert.equal(delivery.attempts[0].response_status, null)
          assert.match(delivery.attempts[0].error, /refused: 127\.0\.0\.1 is not a public address/)
        },
        { ...LOCAL, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' },
      )
      assert.equal(receiver.received.length, 0)
    } finally {
      await receiver.close()
    }
  })

  test('/metrics: attempts by outcome and the age of the oldest due delivery', async () => {
    const text = (await ctx.app.inject({ method: 'GET', url: '/metrics' })).body
    assert.match(text, /webhook_delivery_attempts_total\{outcome="succeeded"\} [1-9]/)
    assert.match(text, /webhook_delivery_attempts_total\{outcome="retrying"\} [1-9]/)
    assert.match(text, /webhook_delivery_attempts_total\{outcome="failed"\} [1-9]/)
    assert.match(text, /webhook_oldest_due_seconds \d/)
  })
})
