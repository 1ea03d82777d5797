/**
 * Settings → Webhooks in the console over HTTP: a form with a mistake comes back with the error at its field
 * and nothing is written; a good one makes the endpoint and shows its signing secret once (POST → redirect →
 * GET: a reload shows it no more); enable/disable, rotate (a new secret, once), deliveries with a retry,
 * delete after a confirmation; someone without Settings is refused and writes nothing.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { loadConfig } from '../src/config.ts'
import { startWebhookWorker } from '../src/webhooks/worker.service.ts'
import { useTestApp } from './helpers/app.ts'
import { signedInAdmin, signedInRequester } from './helpers/console.ts'
import { startReceiver } from './helpers/receiver.ts'

const BASE_DOMAIN = 'example.test'
const LOCAL = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_RETRY_SCHEDULE: '300ms',
  WEBHOOK_TIMEOUT: '2s',
}
const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn', ...LOCAL })
const BASE = '/console/settings/webhooks'
const SECRET = /whsec_[A-Za-z0-9+/]{43}=/

async function until(read: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!(await read())) {
    if (Date.now() > end) assert.fail('condition not reached')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const endpointCount = async (tenantId: number) =>
  (await ctx.database.db.selectFrom('webhook_endpoints').select('id').where('tenant_id', '=', tenantId).execute())
    .length

test('add with mistakes, then add, see the secret once, disable, enable, rotate and delete an endpoint', async () => {
  const { tenant, b } = await signedInAdmin(ctx, BASE_DOMAIN)
  const empty = await b.get(BASE)
  assert.equal(empty.statusCode, 200)
  assert.match(empty.body, /No endpoints yet/)
  assert.match(empty.body, /<label for="f-url"\s*>URL<\/label/)
  assert.match(empty.body, /<label for="f-event-types"\s*>Event types/)
  assert.match(empty.body, /href="\/console\/settings\/webhooks"[^>]*aria-current="page"/, 'the menu names the page')
  const csrf = b.csrfOf(empty.body)!

  const notUrl = await b.post(BASE, { _csrf: csrf, url: 'not a url', description: 'ERP sync' })
  assert.equal(notUrl.statusCode, 400)
  assert.match(notUrl.body, /There is a problem/)
  assert.match(notUrl.body, /id="f-url-error"[^>]*>[^<]*absolute URL/)
  assert.match(notUrl.body, /ERP sync/, 'what was typed is kept')
  const badType = await b.post(BASE, {
    _csrf: csrf,
    url: 'https://erp.example.com/hooks',
    event_types: 'Vendor Created',
  })
  assert.equal(badType.statusCode, 400)
  assert.match(badType.body, /id="f-event-types-error"/)
  const privateUrl = await b.post(BASE, { _csrf: csrf, url: 'ftp://erp.example.com/hooks' })
  assert.equal(privateUrl.statusCode, 400)
  assert.equal(await endpointCount(tenant.tenantId), 0, 'nothing was written')

  const made = await b.post(BASE, {
    _csrf: csrf,
    url: 'http://127.0.0.1:9/hooks',
    event_types: 'vendor.*, user.deactivated',
    description: 'ERP sync',
  })
  assert.equal(made.statusCode, 303, made.body)
  const self = made.headers.location!
  assert.match(self, /^\/console\/settings\/webhooks\/\d+$/)
  const shown = await b.get(self)
  const secret = SECRET.exec(shown.body)?.[0]
  assert.ok(secret !== undefined, 'the secret is shown after the create')
  assert.match(shown.body, /vendor\.\*, user\.deactivated/)
  assert.doesNotMatch((await b.get(self)).body, SECRET, 'a reload shows the secret no more')
  assert.equal(await endpointCount(tenant.tenantId), 1, 'a reload made no second endpoint')
  assert.match((await b.get(BASE)).body, new RegExp(`data-href="${self}"[\\s\\S]*ERP sync[\\s\\S]*Enabled`))

  assert.equal((await b.post(`${self}/disable`, { _csrf: csrf })).statusCode, 303)
  assert.match((await b.get(self)).body, /<dd>\s*Disabled\s*<\/dd>/)
  assert.equal((await b.post(`${self}/enable`, { _csrf: csrf })).statusCode, 303)
  assert.match((await b.get(self)).body, /<dd>\s*Enabled\s*<\/dd>/)

  const rotated = await b.post(`${self}/rotate`, { _csrf: csrf })
  assert.equal(rotated.statusCode, 303)
  const next = SECRET.exec((await b.get(self)).body)?.[0]
  assert.ok(next !== undefined && next !== secret, 'a new secret, shown once')

  const ask = await b.get(`${self}/delete`)
  assert.match(ask.body, /Delete the endpoint/)
  assert.equal(await endpointCount(tenant.tenantId), 1, 'asking deletes nothing')
  const deleted = await b.post(`${self}/delete`, { _csrf: csrf })
  assert.equal(deleted.statusCode, 303)
  assert.match((await b.get(deleted.headers.location!)).body, /The endpoint is deleted/)
  assert.equal(await endpointCount(tenant.tenantId), 0)
  assert.equal((await b.get(self)).statusCode, 404)
})

test('deliveries are listed with their state, and one can be retried', async () => {
  const receiver = await startReceiver()
  const worker = startWebhookWorker(ctx.database, loadConfig({ ...LOCAL, LOG_LEVEL: 'silent' }), {
    error: () => undefined,
    warn: () => undefined,
  })
  try {
    const { b } = await signedInAdmin(ctx, BASE_DOMAIN)
    const csrf = b.csrfOf((await b.get(BASE)).body)!
    const made = await b.post(BASE, { _csrf: csrf, url: receiver.url, event_types: 'vendor.created' })
    assert.equal(made.statusCode, 303, made.body)
    const self = made.headers.location!
    const vendor = await b.post('/console/vendors/new', { _csrf: csrf, name: 'Hooked Supplies', type: '3' })
    assert.equal(vendor.statusCode, 303, vendor.body)
    await receiver.waitFor(1)
    await until(async () => /Delivered/.test((await b.get(self)).body))
    const page = (await b.get(self)).body
    assert.match(page, /vendor\.created/)
    assert.match(page, /HTTP 200 in \d+ ms/)
    const id = /deliveries\/(\d+)\/retry/.exec(page)![1]!
    const retried = await b.post(`${self}/deliveries/${id}/retry`, { _csrf: csrf })
    assert.equal(retried.statusCode, 303)
    assert.match((await b.get(retried.headers.location!)).body, /A new attempt of the delivery is on its way/)
    const both = await receiver.waitFor(2)
    assert.equal(both[0]!.headers['webhook-id'], both[1]!.headers['webhook-id'], 'the same event, the same webhook-id')
    assert.equal((await b.post(`${self}/deliveries/999999999/retry`, { _csrf: csrf })).statusCode, 404)
  } finally {
    await worker.stop()
    await receiver.close()
  }
})

test('someone without Settings is refused on every webhook page and writes nothing; hostile input is a 4xx', async () => {
  const { tenant, b } = await signedInAdmin(ctx, BASE_DOMAIN)
  const csrf = b.csrfOf((await b.get(BASE)).body)!
  const made = await b.post(BASE, { _csrf: csrf, url: 'http://127.0.0.1:9/x' })
  const self = made.headers.location!
  const r = await signedInRequester(ctx, tenant, b)
  const account = await r.get('/console/account')
  assert.doesNotMatch(account.body, /href="\/console\/settings\/webhooks"/, 'the menu leaves it out')
  const theirs = r.csrfOf(account.body)!
  for (const path of [BASE, self, `${self}/delete`]) assert.equal((await r.get(path)).statusCode, 403, path)
  for (const path of [BASE, `${self}/disable`, `${self}/rotate`, `${self}/delete`])
    assert.equal((await r.post(path, { _csrf: theirs, url: 'http://127.0.0.1:9/y' })).statusCode, 403, path)
  assert.equal(await endpointCount(tenant.tenantId), 1)
  assert.match((await b.get(self)).body, /<dd>\s*Enabled\s*<\/dd>/, 'still enabled')

  for (const path of [`${BASE}/abc`, `${BASE}/99999999999`, `${BASE}/__proto__`, `${BASE}/1/deliveries/x/retry`])
    assert.ok([400, 404].includes((await b.get(path)).statusCode), path)
  const hostile = await b.post(BASE, { _csrf: csrf, url: 'https://\uD800.example.com/', event_types: '__proto__' })
  assert.equal(hostile.statusCode, 400)
  assert.equal(await endpointCount(tenant.tenantId), 1)
})
