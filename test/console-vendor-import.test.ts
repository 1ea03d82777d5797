/**
 * Vendors imported from CSV in the console over HTTP: the template, a preview that names every row's problems
 * (the API's own validation) and imports nothing, then all rows or none — a row the vendor service refuses
 * undoes the lot and is shown at its line; unreadable files, unknown columns and too many rows are said
 * plainly; someone without Purchase is refused.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { useTestApp } from './helpers/app.ts'
import { signedInAdmin, signedInRequester } from './helpers/console.ts'

const BASE_DOMAIN = 'example.test'
const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn' })
const IMPORT = '/console/vendors/import'

const vendorCount = async (tenantId: number) =>
  (await ctx.database.db.selectFrom('vendors').select('id').where('tenant_id', '=', tenantId).execute()).length

const csvOf = (count: number, prefix: string) =>
  [
    'name,external_id,email,city,type',
    ...Array.from(
      { length: count },
      (_, i) => `"${prefix} ${i + 1}, Ltd",X-${i + 1},orders${i + 1}@${prefix.toLowerCase()}.test,Leeds,3`,
    ),
  ].join('\n')

test('the template, a preview that writes nothing, then 50 vendors imported at once', async () => {
  const { tenant, b } = await signedInAdmin(ctx, BASE_DOMAIN)
  const form = await b.get(IMPORT)
  assert.equal(form.statusCode, 200)
  assert.match(form.body, /<label for="csv-file">CSV file<\/label>/)
  assert.match(form.body, /<label for="f-csv">CSV text<\/label>/)
  assert.match((await b.get('/console/vendors')).body, /href="\/console\/vendors\/import"/, 'the list links to it')
  const template = await b.get(`${IMPORT}/template.csv`)
  assert.equal(template.statusCode, 200)
  assert.match(String(template.headers['content-type']), /text\/csv/)
  assert.match(template.body, /^name,external_id,type,/)
  const csrf = b.csrfOf(form.body)!

  const before = await vendorCount(tenant.tenantId)
  const csv = csvOf(50, 'Acme')
  const preview = await b.post(IMPORT, { _csrf: csrf, csv })
  assert.equal(preview.statusCode, 200, preview.body)
  assert.match(preview.body, /50 vendors are ready to import/)
  assert.match(preview.body, /Acme 50, Ltd/)
  assert.match(preview.body, /Import 50 vendors/)
  assert.equal(await vendorCount(tenant.tenantId), before, 'a preview writes nothing')

  const imported = await b.post(`${IMPORT}/confirm`, { _csrf: csrf, csv })
  assert.equal(imported.statusCode, 303, imported.body)
  assert.match((await b.get(imported.headers.location!)).body, /The vendors are imported/)
  assert.equal(await vendorCount(tenant.tenantId), before + 50)
  const one = await ctx.database.db
    .selectFrom('vendors')
    .select(['name', 'external_id', 'city', 'type'])
    .where('tenant_id', '=', tenant.tenantId)
    .where('external_id', '=', 'X-7')
    .executeTakeFirstOrThrow()
  assert.deepEqual(one, { name: 'Acme 7, Ltd', external_id: 'X-7', city: 'Leeds', type: 3 })

  // The template itself imports.
  const fromTemplate = await b.post(`${IMPORT}/confirm`, { _csrf: csrf, csv: template.body })
  assert.equal(fromTemplate.statusCode, 303, fromTemplate.body)
  assert.equal(await vendorCount(tenant.tenantId), before + 51)
})

test('rows with problems are named at their lines, and nothing is imported — all rows or none', async () => {
  const { tenant, b } = await signedInAdmin(ctx, BASE_DOMAIN)
  const csrf = b.csrfOf((await b.get(IMPORT)).body)!
  const before = await vendorCount(tenant.tenantId)
  const bad = ['name,email,type', 'Good One,good@one.test,3', ',nobody@x.test,3', 'Bad Mail,not-an-address,3'].join(
    '\n',
  )
  const preview = await b.post(IMPORT, { _csrf: csrf, csv: bad })
  assert.equal(preview.statusCode, 400)
  assert.match(preview.body, /2 of 3 rows have problems/)
  assert.match(preview.body, /<td>3<\/td>[\s\S]*?Name:/, 'line 3 (the empty name) is named')
  assert.match(preview.body, /<td>4<\/td>[\s\S]*?E-mail addresses:/, 'line 4 (the bad e-mail) is named')
  assert.doesNotMatch(preview.body, /Import \d+ vendor/, 'no import button')
  assert.match(preview.body, /Bad Mail/, 'the text is kept to fix')
  assert.equal((await b.post(`${IMPORT}/confirm`, { _csrf: csrf, csv: bad })).statusCode, 400, 'forcing it fails too')

  // Valid to the schema, refused by the service: a currency that is not the tenant's undoes every row.
  const refused = ['name,currency', 'First Fine,', 'Second Fine,', 'Foreign Money,2000000000'].join('\n')
  assert.equal((await b.post(IMPORT, { _csrf: csrf, csv: refused })).statusCode, 200)
  const undone = await b.post(`${IMPORT}/confirm`, { _csrf: csrf, csv: refused })
  assert.equal(undone.statusCode, 400)
  assert.match(undone.body, /Vendor 3 of 3 was refused; nothing was imported/)
  assert.match(undone.body, /<td>4<\/td>[\s\S]*?Currency: does not exist/)
  assert.equal(await vendorCount(tenant.tenantId), before, 'all or none: none')
})

test('unreadable files, unknown columns, too many rows and hostile text are refused plainly', async () => {
  const { tenant, b } = await signedInAdmin(ctx, BASE_DOMAIN)
  const csrf = b.csrfOf((await b.get(IMPORT)).body)!
  const before = await vendorCount(tenant.tenantId)
  const cases: [string, RegExp][] = [
    ['name,city\n"Unclosed,Leeds', /not valid CSV/],
    ['name,city\nOne,Leeds,Extra', /not valid CSV/],
    ['name,__proto__\nOne,x', /Unknown columns: __proto__/],
    ['name,constructor\nOne,x', /Unknown columns: constructor/],
    ['city\nLeeds', /no name column/],
    ['name,name\nA,B', /named twice/],
    ['name', /no vendors/],
    ['', /no vendors|required/],
    [csvOf(1001, 'Many'), /at most 1000|at most 1,000/],
  ]
  for (const [csv, said] of cases) {
    const answer = await b.post(IMPORT, { _csrf: csrf, csv })
    assert.equal(answer.statusCode, 400, csv.slice(0, 40))
    assert.match(answer.body, said, csv.slice(0, 40))
  }
  for (const name of ['\uD800lone', '<script>alert(1)</script>', 'bidi\u202Eevil', 'x'.repeat(5000)]) {
    const answer = await b.post(IMPORT, { _csrf: csrf, csv: `name\n"${name}"` })
    assert.ok(answer.statusCode < 500, `${answer.statusCode} for ${JSON.stringify(name.slice(0, 20))}`)
    assert.doesNotMatch(answer.body, /<script>alert/)
  }
  assert.equal(await vendorCount(tenant.tenantId), before)
})

test('someone without Purchase cannot open or use the import', async () => {
  const { tenant, b } = await signedInAdmin(ctx, BASE_DOMAIN)
  const r = await signedInRequester(ctx, tenant, b)
  const theirs = r.csrfOf((await r.get('/console/account')).body)!
  const before = await vendorCount(tenant.tenantId)
  assert.equal((await r.get(IMPORT)).statusCode, 403)
  assert.equal((await r.get(`${IMPORT}/template.csv`)).statusCode, 403)
  assert.equal((await r.post(IMPORT, { _csrf: theirs, csv: 'name\nSneaky' })).statusCode, 403)
  assert.equal((await r.post(`${IMPORT}/confirm`, { _csrf: theirs, csv: 'name\nSneaky' })).statusCode, 403)
  assert.equal(await vendorCount(tenant.tenantId), before)
})

test('names as typed: codes, look-up and type names, case-insensitive; an unknown name is said as a sentence', async () => {
  const { tenant, b } = await signedInAdmin(ctx, BASE_DOMAIN)
  const csrf = b.csrfOf((await b.get(IMPORT)).body)!
  const terms = '/console/settings/setup/payment-terms'
  const made = await b.post(terms, { _csrf: csrf, name: 'Net 30', description: 'In 30 days', active: 'on' })
  assert.equal(made.statusCode, 303, made.body.slice(0, 300))
  const before = await vendorCount(tenant.tenantId)
  const csv = ['name,type,currency,payment_term_ref', 'Typed Ltd,preferred,usd,NET 30'].join('\n')
  assert.equal((await b.post(`${IMPORT}/confirm`, { _csrf: csrf, csv })).statusCode, 303)
  const typed = await ctx.database.db
    .selectFrom('vendors as v')
    .innerJoin('currencies as c', 'c.id', 'v.currency_id')
    .innerJoin('payment_terms as t', 't.id', 'v.payment_term_id')
    .select(['v.type', 'c.name as currency', 't.name as term'])
    .where('v.tenant_id', '=', tenant.tenantId)
    .where('v.name', '=', 'Typed Ltd')
    .executeTakeFirstOrThrow()
  assert.deepEqual(typed, { type: 3, currency: 'USD', term: 'Net 30' })

  const unknown = ['name,currency,payment_term_ref', 'Fine,USD,Net 30', 'Wrong,XYZ,Net 31'].join('\n')
  const preview = await b.post(IMPORT, { _csrf: csrf, csv: unknown })
  assert.equal(preview.statusCode, 400)
  assert.match(
    preview.body,
    /Line 3, column &quot;currency&quot;: &quot;XYZ&quot; is not a currency code of this tenant/,
  )
  assert.match(preview.body, /Line 3, column &quot;payment_term_ref&quot;: &quot;Net 31&quot; is not a payment term/)
  const badType = await b.post(IMPORT, { _csrf: csrf, csv: 'name,type\nOdd,Wholesaler' })
  assert.match(badType.body, /Line 2, column &quot;type&quot;: &quot;Wholesaler&quot; is not a vendor type; use one of/)
  assert.equal((await b.post(`${IMPORT}/confirm`, { _csrf: csrf, csv: unknown })).statusCode, 400)
  assert.equal(await vendorCount(tenant.tenantId), before + 1)
})

test('the export is every vendor the list matches, in the import columns, and imports unchanged', async () => {
  const { tenant, b } = await signedInAdmin(ctx, BASE_DOMAIN)
  const csrf = b.csrfOf((await b.get(IMPORT)).body)!
  const terms = '/console/settings/setup/payment-terms'
  assert.equal((await b.post(terms, { _csrf: csrf, name: 'Net 60', active: 'on' })).statusCode, 303)
  const rows = Array.from(
    { length: 55 },
    (_, i) => `Bulk ${i + 1},B-${i + 1},Employee,USD,Net 60,"a${i}@x.test, b${i}@x.test"`,
  )
  const csv = ['name,external_id,type,currency,payment_term_ref,email', '"=SUM(A1)",,Checkout,,,', ...rows].join('\n')
  assert.equal((await b.post(`${IMPORT}/confirm`, { _csrf: csrf, csv })).statusCode, 303)
  const count = await vendorCount(tenant.tenantId)
  const snapshot = async () =>
    await ctx.database.db
      .selectFrom('vendors')
      .selectAll()
      .where('tenant_id', '=', tenant.tenantId)
      .orderBy('id')
      .execute()
  const before = await snapshot()

  const exported = await b.get('/console/vendors/export')
  assert.equal(exported.statusCode, 200)
  assert.match(String(exported.headers['content-type']), /text\/csv/)
  const lines = exported.body.trim().split('\r\n')
  assert.equal(lines.length, count + 1, 'every vendor, not one page')
  assert.equal(
    lines[0],
    'name,external_id,type,contact,email,phoneOne,phoneTwo,fax,url,addressLineOne,addressLineTwo,city,state_province,postalCode,country,currency,payment_term_ref,shipping_term_ref,payment_method_ref,shipping_method_ref,comments',
  )
  assert.ok(lines.includes(`Bulk 7,B-7,Employee,,"a6@x.test, b6@x.test",,,,,,,,,,,USD,Net 60,,,,`), lines[8])
  assert.ok(
    lines.some((l) => l.startsWith(`'=SUM(A1),,Checkout,`)),
    'the formula is defused',
  )
  assert.doesNotMatch(exported.body, /[{[]/, 'no JSON in cells')
  const searched = await b.get('/console/vendors/export?search=Bulk%205')
  assert.equal(searched.body.trim().split('\r\n').length, 1 + 7, 'Bulk 5 and Bulk 50…55')

  const preview = await b.post(IMPORT, { _csrf: csrf, csv: exported.body })
  assert.equal(preview.statusCode, 200, preview.body.slice(0, 500))
  assert.match(preview.body, new RegExp(`0 vendors are ready to import\\. ${count} rows repeat existing vendors`))
  const again = await b.post(`${IMPORT}/confirm`, { _csrf: csrf, csv: exported.body })
  assert.equal(again.statusCode, 303, again.body.slice(0, 500))
  assert.deepEqual(await snapshot(), before, 'export → import changes nothing')
  assert.ok(
    before.some((v) => v.name === '=SUM(A1)'),
    'the name starting with = round-trips',
  )
})
