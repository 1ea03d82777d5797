/**
 * Vendors administered in the console over HTTP: a form with a mistake comes back with the error next to
 * its field and the values kept, and nothing is written; a good one is written through the vendor service
 * and answered with a redirect (a reload never writes twice); edit, deactivate, activate, export.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { useTestApp } from './helpers/app.ts'
import { signedInAdmin } from './helpers/console.ts'

const BASE_DOMAIN = 'example.test'
const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn' })

test('create with a mistake, fix it, edit, deactivate, activate and export a vendor', async () => {
  const { b } = await signedInAdmin(ctx, BASE_DOMAIN)
  const form = await b.get('/console/vendors/new')
  assert.equal(form.statusCode, 200)
  assert.match(form.body, /<label for="f-name"\s*>Name<\/label/)
  assert.match(form.body, /<label for="f-external-id"\s*>External ID/)
  const csrf = b.csrfOf(form.body)!

  const bad = await b.post('/console/vendors/new', {
    _csrf: csrf,
    name: '',
    type: '3',
    email: 'orders@quill.test, not-an-address',
    city: 'Leeds',
  })
  assert.equal(bad.statusCode, 400)
  assert.match(bad.body, /There is a problem/)
  assert.match(bad.body, /id="f-name-error"/, 'the name error stands next to the name field')
  assert.match(bad.body, /id="f-email-error"/, 'the bad e-mail is named at its field')
  assert.match(bad.body, /value="Leeds"/, 'what was typed is kept')
  const before = await b.get('/console/vendors?search=Quill')
  assert.match(before.body, /No vendor matches/)

  const good = await b.post('/console/vendors/new', {
    _csrf: csrf,
    name: 'Quill & Co',
    type: '3',
    email: 'orders@quill.test',
    city: 'Leeds',
    external_id: 'V-77',
  })
  assert.equal(good.statusCode, 303, good.body)
  const detailUrl = good.headers.location!.split('?')[0]!
  assert.match(detailUrl, /^\/console\/vendors\/\d+$/)
  const detail = await b.get(good.headers.location!)
  assert.match(detail.body, /The vendor is created/)
  assert.match(detail.body, /Quill &amp; Co/)
  assert.match(detail.body, /<time datetime="/)

  const edit = await b.get(`${detailUrl}/edit`)
  assert.match(edit.body, /value="V-77"/)
  const saved = await b.post(`${detailUrl}/edit`, { _csrf: csrf, name: 'Quill and Company', type: '4', city: 'York' })
  assert.equal(saved.statusCode, 303)
  assert.match((await b.get(detailUrl)).body, /Quill and Company[\s\S]*Regular[\s\S]*York/)

  assert.equal((await b.post(`${detailUrl}/deactivate`, { _csrf: csrf })).statusCode, 303)
  assert.match((await b.get(detailUrl)).body, /<dd>\s*Inactive\s*<\/dd>/)
  assert.equal((await b.post(`${detailUrl}/activate`, { _csrf: csrf })).statusCode, 303)
  assert.match((await b.get(detailUrl)).body, /<dd>\s*Active\s*<\/dd>/)

  const list = await b.get('/console/vendors?search=Quill')
  assert.match(list.body, new RegExp(`href="${detailUrl}"`), 'rows link to the vendor')
  const csv = await b.get('/console/vendors/export?search=Quill')
  assert.equal(csv.statusCode, 200)
  assert.match(String(csv.headers['content-type']), /text\/csv/)
  assert.match(csv.body, /^name,external_id,type,/, "the import's columns")
  assert.match(csv.body, /Quill and Company/)
})

test('a vendor form without the CSRF token, or from someone without Purchase, writes nothing', async () => {
  const { b } = await signedInAdmin(ctx, BASE_DOMAIN)
  const forged = await b.post('/console/vendors/new', { name: 'Forged', type: '3' })
  assert.equal(forged.statusCode, 403)
  assert.doesNotMatch((await b.get('/console/vendors?search=Forged')).body, /href="\/console\/vendors\/\d+"/)
})

test('without a mail server an invitation shows its link, the outbox lists it, and the link works', async () => {
  const { b } = await signedInAdmin(ctx, BASE_DOMAIN)
  const users = await b.get('/console/users')
  const csrf = b.csrfOf(users.body)!
  const email = `new-${Date.now()}@example.test`
  const invited = await b.post('/console/users/invite', { _csrf: csrf, email, first_name: 'Nia' })
  assert.equal(invited.statusCode, 303)
  const page = await b.get(invited.headers.location!)
  assert.match(page.body, /No e-mail was sent/)
  const link = /<code class="secret" id="invite-link">\s*(https?:\/\/\S+?)\s*<\/code>/.exec(page.body)?.[1]
  assert.ok(link, 'the link is shown to copy')
  const outbox = await b.get('/console/outbox')
  assert.equal(outbox.statusCode, 200)
  assert.ok(outbox.body.includes(link), 'the outbox shows the same link')
  assert.match(outbox.body, /No mail server is configured/)
  const path = new URL(link).pathname
  const opened = await ctx.app.inject({ method: 'GET', url: path, headers: { host: new URL(link).host } })
  assert.equal(opened.statusCode, 200)
  assert.ok(opened.body.includes(email), 'the link opens the invited person’s set-password page')
})
