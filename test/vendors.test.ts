/** Vendors and the shared list mechanism: paging, filters, search, ordering, CSV (docs/api.md, Lists). */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { signedIn, useTestApp } from './helpers/app.ts'

const ctx = useTestApp()

type Api = Awaited<ReturnType<typeof signedIn>>['api']

interface Page {
  data: { id: number }[]
  metadata: { pagination: { next: string | null; previous: string | null } }
}

/** Follows `next` links from page 1 to the end, then `previous` links back; returns the ids seen each way. */
async function walk(api: Api, query: string) {
  const forward: number[] = []
  const backward: number[] = []
  let url: string | null = `/api/v3/vendors/?${query}`
  let last = ''
  while (url !== null) {
    const response = await api({ method: 'GET', url })
    assert.equal(response.statusCode, 200, `${url}: ${response.body}`)
    const body: Page = response.json()
    forward.push(...body.data.map((v: { id: number }) => v.id))
    last = url
    url = body.metadata.pagination.next === null ? null : body.metadata.pagination.next
  }
  let back: string | null = last
  while (back !== null) {
    const body: Page = (await api({ method: 'GET', url: back })).json()
    backward.unshift(...body.data.map((v: { id: number }) => v.id))
    back = body.metadata.pagination.previous === null ? null : body.metadata.pagination.previous
  }
  return { forward, backward }
}

/** RFC 4180 parser, enough for the CSV the service writes. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let field = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quoted && c === '"' && text[i + 1] === '"') {
      field += '"'
      i++
    } else if (c === '"') {
      quoted = !quoted
    } else if (!quoted && c === ',') {
      row.push(field)
      field = ''
    } else if (!quoted && c === '\r' && text[i + 1] === '\n') {
      row.push(field)
      rows.push(row)
      row = []
      field = ''
      i++
    } else {
      field += c
    }
  }
  return rows
}

describe('pagination', () => {
  test('metadata, next/previous links followed to the end and back give every row once, in order', async () => {
    const { api, tenant } = await signedIn(ctx)
    const ids = (
      await ctx.database.db
        .selectFrom('vendors')
        .select('id')
        .where('tenant_id', '=', tenant.tenantId)
        .orderBy('id')
        .execute()
    ).map((r) => r.id)
    assert.equal(ids.length, 28)
    for (const size of [1, 3, 10, 28, 100]) {
      const { forward, backward } = await walk(api, `page_size=${size}`)
      assert.deepEqual(forward, ids, `page_size=${size} forward`)
      assert.deepEqual(backward, ids, `page_size=${size} backward`)
    }
    const first = (await api({ method: 'GET', url: '/api/v3/vendors/' })).json().metadata.pagination
    assert.equal(first.count, 28)
    assert.equal(first.page_size, 10)
    assert.equal(first.num_pages, 3)
    assert.equal(first.current_page, 1)
    assert.equal(first.previous, null)
    assert.equal(
      first.next,
      'http://127.0.0.1:3000/api/v3/vendors/?page=2',
      'absolute: the configured HOST and PORT when not listening',
    )
  })

  test('page_size above 100 is read as 100; a page past the last is 404; bad values are 400', async () => {
    const { api } = await signedIn(ctx)
    const clamped = (await api({ method: 'GET', url: '/api/v3/vendors/?page_size=1000' })).json().metadata.pagination
    assert.equal(clamped.page_size, 100)
    assert.equal(clamped.num_pages, 1)
    const past = await api({ method: 'GET', url: '/api/v3/vendors/?page=4' })
    assert.equal(past.statusCode, 404)
    assert.match(String(past.headers['content-type']), /problem\+json/)
    for (const bad of ['page=0', 'page=x', 'page_size=0', 'order_by=comments', 'active=maybe', 'colour=red']) {
      const response = await api({ method: 'GET', url: `/api/v3/vendors/?${bad}` })
      assert.equal(response.statusCode, 400, bad)
      assert.ok(response.json().errors, bad)
    }
  })

  test('filters and search combine with paging and keep every other parameter in the links', async () => {
    const { api } = await signedIn(ctx)
    const page1 = (
      await api({ method: 'GET', url: '/api/v3/vendors/?search=O&active=true&page_size=4&order_by=-name' })
    ).json()
    const next = new URL(page1.metadata.pagination.next, 'http://localhost')
    assert.equal(next.searchParams.get('search'), 'O')
    assert.equal(next.searchParams.get('active'), 'true')
    assert.equal(next.searchParams.get('order_by'), '-name')
    assert.equal(next.searchParams.get('page'), '2')
    const { forward } = await walk(api, 'search=o&active=true&page_size=4&order_by=-name')
    const all = (await api({ method: 'GET', url: '/api/v3/vendors/?page_size=100' })).json().data as {
      id: number
      name: string
      active: boolean
    }[]
    const expected = all
      .filter((v) => v.active && v.name.toLowerCase().includes('o'))
      .sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : b.id - a.id))
      .map((v) => v.id)
    assert.deepEqual(forward, expected)
    const typed = (await api({ method: 'GET', url: '/api/v3/vendors/?type=4' })).json()
    assert.ok(typed.data.length > 0 && typed.data.every((v: { type: number }) => v.type === 4))
    const byExternal = (await api({ method: 'GET', url: '/api/v3/vendors/?external_id=V-1003' })).json()
    assert.equal(byExternal.metadata.pagination.count, 1)
    const empty = (await api({ method: 'GET', url: '/api/v3/vendors/?search=%25' })).json()
    assert.deepEqual(empty.metadata.pagination, {
      count: 0,
      next: null,
      previous: null,
      page_size: 10,
      num_pages: 1,
      current_page: 1,
    })
  })

  test('format=csv returns the page as CSV that parses back to the same rows', async () => {
    const { api } = await signedIn(ctx)
    const json = (await api({ method: 'GET', url: '/api/v3/vendors/?page_size=5&page=2' })).json()
    const csv = await api({ method: 'GET', url: '/api/v3/vendors/?page_size=5&page=2&format=csv' })
    assert.equal(csv.statusCode, 200)
    assert.match(String(csv.headers['content-type']), /^text\/csv/)
    assert.match(String(csv.headers.link), /rel="next".*rel="prev"/)
    const [header, ...rows] = parseCsv(csv.body)
    assert.deepEqual(header, Object.keys(json.data[0]))
    assert.equal(rows.length, 5)
    const none = await api({ method: 'GET', url: '/api/v3/vendors/?search=no-such-vendor&format=csv' })
    assert.deepEqual(parseCsv(none.body), [header], 'an empty page still has its header row')
    rows.forEach((row, i) => {
      const item = json.data[i]
      header.forEach((key, k) => {
        const value = item[key]
        const text = value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value)
        // A text cell that a spreadsheet would read as a formula (`+1 217…`) carries a leading ' (issue 30).
        const expected = typeof value === 'string' && /^[=+\-@\t\r]/.test(value) ? `'${text}` : text
        assert.equal(row[k], expected, `${key} of row ${i}`)
      })
    })
  })
})

describe('vendor writes', () => {
  const body = {
    name: 'Quill & Ink, "Ltd"',
    type: 4,
    email: ['sales@quill.example.com'],
    addressLineOne: '1 Pen Road',
    overall_score: '4.5',
  }

  test('create (201), get, full replace (omitted → defaults), partial update', async () => {
    const { api, tenant } = await signedIn(ctx, 'buyer')
    const term = await ctx.database.db
      .selectFrom('payment_terms')
      .select('id')
      .where('tenant_id', '=', tenant.tenantId)
      .executeTakeFirstOrThrow()
    const created = await api({
      method: 'POST',
      url: '/api/v3/vendors/',
      payload: { ...body, payment_term_ref: term.id },
    })
    assert.equal(created.statusCode, 201, created.body)
    const vendor = created.json().data
    assert.equal(vendor.name, body.name)
    assert.equal(vendor.active, true)
    assert.equal(vendor.overall_score, '4.500')
    assert.equal(vendor.payment_term_ref.name, 'Net 30')
    assert.deepEqual((await api({ method: 'GET', url: `/api/v3/vendors/${vendor.id}/` })).json().data, vendor)

    const roundTrip = await api({ method: 'PUT', url: `/api/v3/vendors/${vendor.id}/`, payload: vendor })
    assert.equal(roundTrip.statusCode, 200, roundTrip.body)
    assert.deepEqual(
      { ...roundTrip.json().data, dateModified: null },
      { ...vendor, dateModified: null },
      'a GET body PUT back keeps every field',
    )

    const replaced = (
      await api({ method: 'PUT', url: `/api/v3/vendors/${vendor.id}/`, payload: { name: 'Quill' } })
    ).json().data
    assert.equal(replaced.addressLineOne, '')
    assert.deepEqual(replaced.email, [])
    assert.equal(replaced.payment_term_ref, null)
    assert.equal(replaced.type, 3)

    const patched = (
      await api({ method: 'PATCH', url: `/api/v3/vendors/${vendor.id}/`, payload: { active: false, city: 'Leeds' } })
    ).json().data
    assert.equal(patched.name, 'Quill')
    assert.equal(patched.active, false)
    assert.equal(patched.city, 'Leeds')
    assert.equal(
      (await api({ method: 'GET', url: `/api/v3/vendors/?active=false&search=quill` })).json().metadata.pagination
        .count,
      1,
    )
  })

  test('references must exist in the tenant; bad bodies are 400 and write nothing', async () => {
    const { api } = await signedIn(ctx)
    const other = await signedIn(ctx)
    const foreignCurrency = await ctx.database.db
      .selectFrom('currencies')
      .select('id')
      .where('tenant_id', '=', other.tenant.tenantId)
      .executeTakeFirstOrThrow()
    const count = async () => (await api({ method: 'GET', url: '/api/v3/vendors/' })).json().metadata.pagination.count
    const before = await count()
    const refs = await api({
      method: 'POST',
      url: '/api/v3/vendors/',
      payload: { name: 'X', currency: foreignCurrency.id, shipping_method_ref: 999999 },
    })
    assert.equal(refs.statusCode, 400)
    assert.deepEqual(Object.keys(refs.json().errors).sort(), ['currency', 'shipping_method_ref'])
    for (const payload of [
      {},
      { name: '' },
      { name: 'X', type: 9 },
      { name: 'X', email: ['not-an-email'] },
      { name: 'X', overall_score: '123.4' },
      { name: 'X', overall_score: '' },
      { name: 'X', overall_score: '-' },
      { name: 'X', overall_score: '.' },
      { name: 'X', currency: 2147483648 },
      { name: 'X', payment_term_ref: { id: 99999999999 } },
      { name: 'X', vendor_group: 'all' },
    ]) {
      const response = await api({ method: 'POST', url: '/api/v3/vendors/', payload })
      assert.equal(response.statusCode, 400, JSON.stringify(payload))
    }
    assert.equal(await count(), before)
    const foreignVendor = (await other.api({ method: 'GET', url: '/api/v3/vendors/?page_size=1' })).json().data[0]
    assert.equal((await api({ method: 'GET', url: `/api/v3/vendors/${foreignVendor.id}/` })).statusCode, 404)
    assert.equal(
      (await api({ method: 'PATCH', url: `/api/v3/vendors/${foreignVendor.id}/`, payload: { name: 'Mine' } }))
        .statusCode,
      404,
    )
    assert.equal(
      (
        await api({
          method: 'PUT',
          url: `/api/v3/vendors/${foreignVendor.id}/`,
          payload: { name: 'Mine', currency: 999999 },
        })
      ).statusCode,
      404,
      '404 before any reference check',
    )
  })

  test('a Requester cannot create or change vendors (403, nothing written)', async () => {
    const { api } = await signedIn(ctx, 'requester')
    const vendor = (await api({ method: 'GET', url: '/api/v3/vendors/?page_size=1' })).json().data[0]
    assert.equal((await api({ method: 'POST', url: '/api/v3/vendors/', payload: { name: 'Nope' } })).statusCode, 403)
    assert.equal(
      (await api({ method: 'PUT', url: `/api/v3/vendors/${vendor.id}/`, payload: { name: 'Nope' } })).statusCode,
      403,
    )
    assert.equal(
      (await api({ method: 'PATCH', url: `/api/v3/vendors/${vendor.id}/`, payload: { name: 'Nope' } })).statusCode,
      403,
    )
    assert.deepEqual((await api({ method: 'GET', url: `/api/v3/vendors/${vendor.id}/` })).json().data, vendor)
  })
})
