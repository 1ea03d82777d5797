/** Per-application rate limit on /api/ with RateLimit headers; one limit across processes on PostgreSQL. */
import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { test } from 'node:test'
import { buildApp } from '../src/app.ts'
import { engineUnderTest } from './helpers/db.ts'
import { signedIn, useTestApp } from './helpers/app.ts'

const ctx = useTestApp({ RATE_LIMIT_PER_MINUTE: '5', RATE_LIMIT_SYNC_MS: '100' })

/** Windows are whole minutes: start a test only with a few seconds of its minute left, so it stays in one window. */
async function awayFromMinuteBoundary(needSeconds = 5) {
  const left = 60_000 - (Date.now() % 60_000)
  if (left < needSeconds * 1000) await new Promise((resolve) => setTimeout(resolve, left + 50))
}

const vendors = (api: Awaited<ReturnType<typeof signedIn>>['api']) => api({ method: 'GET', url: '/api/v3/vendors/' })

test('headers on every response; past the limit 429 with Retry-After; other applications unaffected', async () => {
  const first = await signedIn(ctx)
  await awayFromMinuteBoundary()
  const responses = []
  for (let i = 0; i < 6; i++) responses.push(await vendors(first.api))
  assert.deepEqual(
    responses.map((r) => r.statusCode),
    [200, 200, 200, 200, 200, 429],
  )
  assert.equal(responses[0]!.headers['ratelimit-policy'], '"per-application";q=5;w=60')
  assert.match(String(responses[0]!.headers.ratelimit), /^"per-application";r=4;t=\d+$/)
  const limited = responses[5]!
  assert.ok(Number(limited.headers['retry-after']) >= 1)
  assert.match(String(limited.headers['content-type']), /problem\+json/)
  const second = await signedIn(ctx, 'buyer', first.tenant)
  assert.equal((await vendors(second.api)).statusCode, 200)
})

test(
  'processes sharing PostgreSQL enforce one limit',
  { skip: engineUnderTest !== 'postgres' && 'PostgreSQL-only' },
  async () => {
    const quiet = new Writable({ write: (_c, _e, done) => done() })
    const other = await buildApp({ config: ctx.config, database: ctx.database, keys: ctx.keys, logStream: quiet })
    try {
      const { api, token } = await signedIn(ctx)
      const onOther = () =>
        other.inject({
          url: '/api/v3/vendors/',
          headers: { authorization: `Bearer ${token}`, 'x-service-client': 'api' },
        })
      await awayFromMinuteBoundary()
      const statuses: number[] = []
      for (let i = 0; i < 3; i++) statuses.push((await vendors(api)).statusCode)
      await new Promise((resolve) => setTimeout(resolve, 400))
      statuses.push((await onOther()).statusCode)
      await new Promise((resolve) => setTimeout(resolve, 400))
      statuses.push((await onOther()).statusCode, (await onOther()).statusCode)
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429])
    } finally {
      await other.close()
    }
  },
)
