/**
 * Locations administered in the console over HTTP: create one with two other shipping addresses, remove one,
 * fix the headquarters' placeholder address; a concurrent change is caught by the ETag the form carries.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { useTestApp } from './helpers/app.ts'
import { signedInAdmin } from './helpers/console.ts'

const BASE_DOMAIN = 'example.test'
const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn' })

/** An attribute value as a browser reads it (the page writes quotes and ampersands as entities). */
const decode = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')

const address = (prefix: string, name: string, city: string) => ({
  [`${prefix}.name`]: name,
  [`${prefix}.addressLineOne`]: `1 ${name} Street`,
  [`${prefix}.city`]: city,
  [`${prefix}.postalCode`]: '10001',
  [`${prefix}.country`]: 'United States',
})

test('a location with two other shipping addresses, one removed; the headquarters fixed; a stale edit refused', async () => {
  const { b } = await signedInAdmin(ctx, BASE_DOMAIN)
  const form = await b.get('/console/locations/new')
  assert.equal(form.statusCode, 200)
  const csrf = b.csrfOf(form.body)!
  const fields = {
    _csrf: csrf,
    name: 'North Depot',
    phoneOne: '+1 212 555 0100',
    currency: 'USD',
    ...address('primary_billing_address', 'Billing', 'New York'),
    ...address('primary_shipping_address', 'Dock', 'New York'),
  }
  // "Add another shipping address" twice: the form comes back with more blocks and nothing is written.
  const one = await b.post('/console/locations/new', { ...fields, _alternates: '0', _action: 'add' })
  assert.equal(one.statusCode, 200)
  assert.match(one.body, /Other shipping address 1/)
  const two = await b.post('/console/locations/new', { ...fields, _alternates: '1', _action: 'add' })
  assert.match(two.body, /Other shipping address 2/)
  assert.match(two.body, /value="North Depot"/, 'what was typed is kept')

  const missingCity = await b.post('/console/locations/new', {
    ...fields,
    _alternates: '2',
    _action: 'save',
    ...address('shipping_addresses.0', 'East gate', 'Newark'),
    ...address('shipping_addresses.1', 'West gate', ''),
  })
  assert.equal(missingCity.statusCode, 400)
  assert.match(missingCity.body, /id="f-shipping-addresses-1-city-error"/, 'the error stands at the second block')

  const created = await b.post('/console/locations/new', {
    ...fields,
    _alternates: '2',
    _action: 'save',
    ...address('shipping_addresses.0', 'East gate', 'Newark'),
    ...address('shipping_addresses.1', 'West gate', 'Hoboken'),
  })
  assert.equal(created.statusCode, 303, created.body)
  const url = created.headers.location!.split('?')[0]!
  const detail = await b.get(url)
  assert.match(detail.body, /East gate/)
  assert.match(detail.body, /West gate/)

  const edit = await b.get(`${url}/edit`)
  const etag = decode(/name="_etag" value="([^"]+)"/.exec(edit.body)![1]!)
  const ids = [...edit.body.matchAll(/name="shipping_addresses\.(\d)\.id" value="(\d+)"/g)].map((m) => m[2]!)
  assert.equal(ids.length, 2)
  const saved = await b.post(`${url}/edit`, {
    ...fields,
    _etag: etag,
    _alternates: '2',
    _action: 'save',
    ...address('shipping_addresses.0', 'East gate', 'Newark'),
    'shipping_addresses.0.id': ids[0]!,
    ...address('shipping_addresses.1', 'West gate', 'Hoboken'),
    'shipping_addresses.1.id': ids[1]!,
    'shipping_addresses.1.remove': 'on',
  })
  assert.equal(saved.statusCode, 303, saved.body)
  const after = await b.get(url)
  assert.match(after.body, /East gate/)
  assert.doesNotMatch(after.body, /West gate/, 'the removed address is gone')

  // The same ETag again: the location changed since, so nothing is written and the page says so.
  const stale = await b.post(`${url}/edit`, {
    ...fields,
    name: 'Renamed',
    _etag: etag,
    _alternates: '0',
    _action: 'save',
  })
  assert.equal(stale.statusCode, 409)
  assert.match(stale.body, /changed this location since you opened it/)
  assert.doesNotMatch((await b.get(url)).body, /Renamed/)

  // The headquarters' placeholder address, fixed in the console.
  const list = await b.get('/console/locations')
  const hq = /href="(\/console\/locations\/\d+)">[^<]*<\/a>\s*<span class="tag">Headquarters/.exec(list.body)![1]!
  const hqEdit = await b.get(`${hq}/edit`)
  const hqEtag = decode(/name="_etag" value="([^"]+)"/.exec(hqEdit.body)![1]!)
  const values = Object.fromEntries(
    [...hqEdit.body.matchAll(/<input[^>]*?name="([^"]+)"[^>]*?value="([^"]*)"/g)].map((m) => [m[1]!, decode(m[2]!)]),
  )
  const fixed = await b.post(`${hq}/edit`, {
    ...values,
    _csrf: csrf,
    _etag: hqEtag,
    _action: 'save',
    currency: 'USD',
    phoneOne: '+1 312 555 0000',
    ...address('primary_billing_address', 'Head office', 'Chicago'),
  })
  assert.equal(fixed.statusCode, 303, fixed.body)
  assert.match((await b.get(hq)).body, /1 Head office Street, Chicago/)
})
