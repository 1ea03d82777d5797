/**
 * The console's Attachments box and Comments thread (DECISIONS, "Attachments and comments") over HTTP, as a
 * browser without JavaScript sends them: every one of the seven document pages shows both; an upload is a
 * multipart form whose first part is the CSRF token (a wrong, missing or late token → 403, nothing stored);
 * a refused type is a sentence naming what to attach instead; the download carries the API's headers;
 * deleting follows the service's rules; comments are added (their text shown as text), refused with the
 * text kept, and deleted. On an expense report, each line takes its receipt from its own upload form.
 */
import assert from 'node:assert/strict'
import { beforeEach, describe, test } from 'node:test'
import { useTestApp } from './helpers/app.ts'
import { multipart, PNG, pdf, type Part } from './helpers/attachments.ts'
import { issuedOrder, setUpOrders, type OrderSetup } from './helpers/orders.ts'
import { draft } from './helpers/requests.ts'
import { adminBrowser, userBrowser, type Api, type Browser } from './helpers/security.ts'

const ctx = useTestApp({
  BASE_DOMAIN: 'example.test',
  LOG_LEVEL: 'warn',
  RATE_LIMIT_PER_MINUTE: '0',
  ATTACHMENT_MAX_BYTES: '200000',
})
let s: OrderSetup
let admin: Browser
let requester: Browser
let approver: Browser
let stranger: Browser
let ready = false

beforeEach(async () => {
  if (ready) return
  ready = true
  s = await setUpOrders(ctx)
  await s.user('stranger', s.roles.Requester, s.B)
  admin = await adminBrowser(ctx, s.tenant)
  requester = await userBrowser(ctx, s.tenant, `requester@${s.tenant.domain}.test`)
  approver = await userBrowser(ctx, s.tenant, `approver@${s.tenant.domain}.test`)
  stranger = await userBrowser(ctx, s.tenant, `stranger@${s.tenant.domain}.test`)
})

/** A multipart POST from `b`'s browser (its cookie, the tenant's host), as a form without JavaScript sends it. */
function send(b: Browser, url: string, parts: Part[], headers: Record<string, string> = {}) {
  const body = multipart(parts)
  return ctx.app.inject({
    method: 'POST',
    url,
    payload: body.payload,
    headers: { ...body.headers, host: s.tenant.host, cookie: b.cookie, ...headers },
  })
}

async function csrf(b: Browser, page: string) {
  const got = await b.get(page)
  assert.equal(got.statusCode, 200, got.body)
  return b.csrfOf(got.body)!
}

const ok = async (response: Promise<{ statusCode: number; body: string; json(): { data: unknown } }>, code = 201) => {
  const r = await response
  assert.equal(r.statusCode, code, r.body)
  return r.json().data as { id: number; number: string; lines: { id: number; receipt: number | null }[] }
}
const post = (api: Api, url: string, payload: object) => ok(api({ method: 'POST', url, payload }))
const apiList = async (api: Api, url: string) =>
  ((await api({ method: 'GET', url })).json().data as { id: number }[]).map((a) => a.id)

describe('the console’s attachments and comments', () => {
  test('every one of the seven document pages has the Attachments box and the Comments thread', async () => {
    const request = await draft(s.requester.api, s.A)
    const order = await issuedOrder(s)
    const receipt = await post(s.buyer.api, '/api/v3/receipts/', {
      purchase_order: order.id,
      lines: [{ po_line: order.lines[0].id, accepted_quantity: '1', rejected_quantity: '0' }],
    })
    const bill = await post(s.admin, '/api/v3/bills/', {
      number: `INV-${Date.now()}`,
      vendor: s.vendor,
      location: s.A,
      lines: [{ description: 'Service', quantity: '1', unit_price: '10' }],
    })
    const report = await post(s.requester.api, '/api/v3/expense-reports/', {
      location: s.A,
      lines: [{ date: '2026-11-20', merchant: 'Taxi', amount: '12.50' }],
    })
    const trip = await post(s.requester.api, '/api/v3/travel-requests/', {
      location: s.A,
      purpose: 'Fair',
      destination: 'Lyon',
      departure_date: '2026-12-07',
      return_date: '2026-12-09',
      estimates: [{ category: 'airfare', amount: '300' }],
    })
    const payment = await post(s.admin, '/api/v3/payment-requests/', {
      location: s.A,
      vendor: s.vendor,
      amount: '100.00',
      reason: 'Deposit',
    })
    const pages = [
      `/console/requests/${request.id}`,
      `/console/orders/${order.id}`,
      `/console/receipts/${receipt.id}`,
      `/console/bills/${bill.id}`,
      `/console/expenses/${report.id}`,
      `/console/travel/${trip.id}`,
      `/console/payment-requests/${payment.id}`,
    ]
    for (const path of pages) {
      const page = await admin.get(path)
      assert.equal(page.statusCode, 200, `${path}: ${page.body}`)
      assert.match(page.body, /<h2 id="attachments">Attachments<\/h2>/, path)
      assert.match(page.body, /<h2 id="comments">Comments<\/h2>/, path)
      const form = new RegExp(
        `<form method="post" action="${path}/attachments" enctype="multipart/form-data"[^>]*>\\s*` +
          '<input type="hidden" name="_csrf" value="[^"]+" />[\\s\\S]*?<input type="file"',
      )
      assert.match(page.body, form, `${path}: the upload form, its token before its file`)
      assert.match(page.body, new RegExp(`action="${path}/comments"`), path)
      // And it works on each: a file, then a comment, each back on the page with its sentence.
      const token = admin.csrfOf(page.body)!
      const attached = await send(admin, `${path}/attachments`, [
        { name: '_csrf', value: token },
        { name: 'file', value: pdf(path), filename: 'scan.pdf' },
      ])
      assert.equal(attached.statusCode, 303, `${path}: ${attached.body}`)
      assert.equal(attached.headers.location, `${path}?done=attached`)
      const commented = await admin.post(`${path}/comments`, { _csrf: token, body: `On ${path}` })
      assert.equal(commented.statusCode, 303, commented.body)
      assert.equal(commented.headers.location, `${path}?done=commented`)
      const after = await admin.get(`${path}?done=commented`)
      assert.match(after.body, /Your comment was added\./)
      assert.match(after.body, /scan\.pdf[\s\S]*PDF document/)
      assert.ok(after.body.includes(`On ${path}`), path)
    }
  })

  test('upload: the CSRF token first in the body; wrong, missing or late → 403 and nothing stored', async () => {
    const request = await draft(s.requester.api, s.A)
    const path = `/console/requests/${request.id}`
    const list = `/api/v3/requests/${request.id}/attachments/`
    const token = await csrf(requester, path)
    const file = { name: 'file', value: pdf('quote'), filename: 'C:\\quotes\\quote.pdf' }
    for (const parts of [
      [{ name: '_csrf', value: `${token}x` }, file],
      [file],
      [file, { name: '_csrf', value: token }],
      [{ name: 'description', value: 'x' }, { name: '_csrf', value: token }, file],
    ]) {
      const refused = await send(requester, `${path}/attachments`, parts)
      assert.equal(refused.statusCode, 403, refused.body)
      assert.match(refused.body, /This form has expired or did not come from the console/)
    }
    assert.deepEqual(await apiList(s.requester.api, list), [])
    const foreign = await send(requester, `${path}/attachments`, [{ name: '_csrf', value: token }, file], {
      origin: 'https://evil.example',
    })
    assert.equal(foreign.statusCode, 403)
    assert.deepEqual(await apiList(s.requester.api, list), [])

    const attached = await send(requester, `${path}/attachments`, [
      { name: '_csrf', value: token },
      file,
      { name: 'description', value: 'The <b>quote</b>' },
    ])
    assert.equal(attached.statusCode, 303, attached.body)
    assert.equal(attached.headers.location, `${path}?done=attached`)
    const [id] = await apiList(s.requester.api, list)
    assert.ok(id)
    const page = await requester.get(`${path}?done=attached`)
    assert.match(page.body, /The file is attached\./)
    assert.match(page.body, new RegExp(`<a href="/console/attachments/${id}" download>quote\\.pdf</a>`))
    assert.match(page.body, /PDF document · \d+ bytes · uploaded by requester Tester/)
    assert.match(page.body, /The &lt;b&gt;quote&lt;\/b&gt;/)
    assert.match(page.body, new RegExp(`action="${path}/attachments/${id}/delete"`), 'the uploader may delete')

    // The download: as the API's, to whoever sees the document; others 404.
    const got = await requester.get(`/console/attachments/${id}`)
    assert.equal(got.statusCode, 200)
    assert.deepEqual(got.rawPayload, pdf('quote'))
    assert.equal(got.headers['content-type'], 'application/pdf')
    assert.equal(got.headers['content-disposition'], "attachment; filename*=UTF-8''quote.pdf")
    assert.equal(got.headers['x-content-type-options'], 'nosniff')
    assert.equal(got.headers['content-security-policy'], "sandbox; default-src 'none'")
    const etag = String(got.headers.etag)
    assert.match(etag, /^"[0-9a-f]{64}"$/)
    assert.equal((await requester.get(`/console/attachments/${id}`, { 'if-none-match': etag })).statusCode, 304)
    assert.equal((await stranger.get(`/console/attachments/${id}`)).statusCode, 404)
    assert.equal((await stranger.get(path)).statusCode, 404)
  })

  test('refusals are sentences saying what to do: a refused type (415), no right to act (403), too many (409)', async () => {
    const request = await draft(s.requester.api, s.A)
    const path = `/console/requests/${request.id}`
    const token = await csrf(requester, path)
    const html = await send(requester, `${path}/attachments`, [
      { name: '_csrf', value: token },
      { name: 'file', value: '<!DOCTYPE html><html><body>hi</body></html>', filename: 'invoice.pdf' },
    ])
    assert.equal(html.statusCode, 415, html.body)
    assert.match(html.headers['content-type'] as string, /text\/html/)
    assert.match(html.body, /The file is HTML \(text\/html\), which is not accepted; attach a PDF, an image/)
    assert.match(html.body, new RegExp(`<a href="${path}">Back to `))
    const big = await send(requester, `${path}/attachments`, [
      { name: '_csrf', value: token },
      { name: 'file', value: Buffer.concat([pdf(), Buffer.alloc(200_001, 0x20)]), filename: 'big.pdf' },
    ])
    assert.equal(big.statusCode, 413, big.body)
    assert.match(big.body, /larger than 200000 bytes, the most this service accepts; send a smaller file/)
    assert.match((await requester.get(path)).body, /at most 195 KB\./, 'the form says the limit')
    const empty = await send(requester, `${path}/attachments`, [{ name: '_csrf', value: token }])
    assert.equal(empty.statusCode, 400, empty.body)
    assert.match(empty.body, /Choose a file/)

    // The approver sees the request but may not act on it: no forms, and a 403 sentence if posted anyway.
    const seen = await approver.get(path)
    assert.equal(seen.statusCode, 200)
    assert.doesNotMatch(seen.body, /enctype="multipart\/form-data"/)
    assert.match(seen.body, /Adding files needs the right to act on this request\./)
    const denied = await send(approver, `${path}/attachments`, [
      { name: '_csrf', value: approver.csrfOf(seen.body)! },
      { name: 'file', value: pdf(), filename: 'a.pdf' },
    ])
    assert.equal(denied.statusCode, 403, denied.body)
    assert.match(denied.body, /needs the right to act on it/)

    // Fifty is the most: the 51st is a 409 sentence.
    for (let i = 0; i < 50; i++) {
      const r = await s.requester.api({
        method: 'POST',
        url: `/api/v3/requests/${request.id}/attachments/`,
        ...multipart([{ name: 'file', value: `note ${i}`, filename: `n${i}.txt` }]),
      })
      assert.equal(r.statusCode, 201, r.body)
    }
    const full = await send(requester, `${path}/attachments`, [
      { name: '_csrf', value: token },
      { name: 'file', value: 'one more', filename: 'more.txt' },
    ])
    assert.equal(full.statusCode, 409, full.body)
    assert.match(full.body, /50 attachments, the most it may have; delete one before adding another/)
  })

  test('deleting: the uploader while a draft, not someone else; a superuser always', async () => {
    const request = await draft(s.requester.api, s.A)
    const path = `/console/requests/${request.id}`
    const list = `/api/v3/requests/${request.id}/attachments/`
    const token = await csrf(requester, path)
    for (const name of ['a.pdf', 'b.pdf'])
      assert.equal(
        (
          await send(requester, `${path}/attachments`, [
            { name: '_csrf', value: token },
            { name: 'file', value: pdf(name), filename: name },
          ])
        ).statusCode,
        303,
      )
    const [a, b] = await apiList(s.requester.api, list)
    const approverPage = await approver.get(path)
    assert.doesNotMatch(approverPage.body, /attachments\/\d+\/delete/, 'no Delete for someone else’s file')
    const refused = await approver.post(`${path}/attachments/${a}/delete`, {
      _csrf: approver.csrfOf(approverPage.body)!,
    })
    assert.equal(refused.statusCode, 403, refused.body)
    assert.match(refused.body, /deleted by its uploader while its document is a draft or awaiting approval/)
    const wrongPlace = await requester.post(`/console/requests/${request.id + 100000}/attachments/${a}/delete`, {
      _csrf: token,
    })
    assert.equal(wrongPlace.statusCode, 404)
    const deleted = await requester.post(`${path}/attachments/${a}/delete`, { _csrf: token })
    assert.equal(deleted.statusCode, 303, deleted.body)
    assert.equal(deleted.headers.location, `${path}?done=detached`)
    assert.match((await requester.get(`${path}?done=detached`)).body, /The attachment was deleted\./)
    const adminToken = await csrf(admin, path)
    assert.equal((await admin.post(`${path}/attachments/${b}/delete`, { _csrf: adminToken })).statusCode, 303)
    assert.deepEqual(await apiList(s.requester.api, list), [])
    assert.equal((await requester.post(`${path}/attachments/${b}/delete`, { _csrf: token })).statusCode, 404)
  })

  test('comments: added as plain text, refused with the text kept, deleted by their author', async () => {
    const request = await draft(s.requester.api, s.A)
    const path = `/console/requests/${request.id}`
    const token = await csrf(requester, path)
    const buyer = `buyer@${s.tenant.domain}.test`
    const added = await requester.post(`${path}/comments`, {
      _csrf: token,
      body: `Please look, @${buyer} <script>alert(1)</script>`,
    })
    assert.equal(added.statusCode, 303, added.body)
    const page = await requester.get(`${path}?done=commented`)
    assert.match(page.body, /Your comment was added\./)
    assert.match(page.body, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/)
    assert.doesNotMatch(page.body, /<script>alert/)
    assert.match(page.body, /Mentions buyer Tester/)
    const mail = await ctx.database.db
      .selectFrom('email_outbox')
      .select('body_text')
      .where('tenant_id', '=', s.tenant.tenantId)
      .where('to_address', '=', buyer)
      .execute()
    assert.ok(mail.some((m) => m.body_text.includes(`/console/requests/${request.id}`)))

    const blank = await requester.post(`${path}/comments`, { _csrf: token, body: '   ' })
    assert.equal(blank.statusCode, 400, blank.body)
    assert.match(blank.body, /Write something in the comment\./)
    const unknown = await requester.post(`${path}/comments`, { _csrf: token, body: 'Ask @nobody@nowhere.test' })
    assert.equal(unknown.statusCode, 400, unknown.body)
    assert.match(unknown.body, /nobody@nowhere\.test/)
    assert.match(unknown.body, /<textarea[^>]*>\n?Ask @nobody@nowhere\.test<\/textarea>/, 'the text is kept')
    const long = await requester.post(`${path}/comments`, { _csrf: token, body: 'x'.repeat(5001) })
    assert.equal(long.statusCode, 400, long.body)
    assert.match(long.body, /5,000 characters/)
    const approverPage = await approver.get(path)
    const denied = await approver.post(`${path}/comments`, { _csrf: approver.csrfOf(approverPage.body)!, body: 'hi' })
    assert.equal(denied.statusCode, 403, denied.body)
    assert.match(denied.body, /needs the right to act on it/)
    assert.equal((await requester.post(`${path}/comments`, { _csrf: 'forged', body: 'x' })).statusCode, 403)

    const comments = (await s.requester.api({ method: 'GET', url: `/api/v3/requests/${request.id}/comments/` })).json()
      .data as { id: number }[]
    assert.equal(comments.length, 1)
    const id = comments[0]!.id
    assert.match(page.body, new RegExp(`action="${path}/comments/${id}/delete"`))
    assert.doesNotMatch(approverPage.body, /comments\/\d+\/delete/)
    const notHis = await approver.post(`${path}/comments/${id}/delete`, { _csrf: approver.csrfOf(approverPage.body)! })
    assert.equal(notHis.statusCode, 403, notHis.body)
    const gone = await requester.post(`${path}/comments/${id}/delete`, { _csrf: token })
    assert.equal(gone.statusCode, 303, gone.body)
    assert.equal(gone.headers.location, `${path}?done=uncommented`)
    assert.match((await requester.get(`${path}?done=uncommented`)).body, /No comments on this request yet\./)
  })

  test('an expense report: each line takes its receipt from its own form while a draft', async () => {
    const report = await post(s.requester.api, '/api/v3/expense-reports/', {
      location: s.A,
      title: 'Visit',
      lines: [
        { date: '2026-11-20', merchant: 'Taxi', amount: '30' },
        { date: '2026-11-21', merchant: 'Hotel', amount: '90.5' },
      ],
    })
    const path = `/console/expenses/${report.id}`
    const page = await requester.get(path)
    const [first, second] = report.lines
    for (const line of [first!, second!])
      assert.match(
        page.body,
        new RegExp(
          `action="${path}/lines/${line.id}/receipt"\\s+enctype="multipart/form-data"[\\s\\S]*?` +
            `accept="image/\\*,application/pdf" capture required`,
        ),
      )
    const token = requester.csrfOf(page.body)!
    const photo = await send(requester, `${path}/lines/${first!.id}/receipt`, [
      { name: '_csrf', value: token },
      { name: 'file', value: PNG, filename: 'taxi.png' },
    ])
    assert.equal(photo.statusCode, 303, photo.body)
    assert.equal(photo.headers.location, `${path}?done=receipt`)
    const paper = await send(requester, `${path}/lines/${second!.id}/receipt`, [
      { name: '_csrf', value: token },
      { name: 'file', value: pdf('hotel'), filename: 'hotel.pdf' },
    ])
    assert.equal(paper.statusCode, 303, paper.body)
    const now = await ok(s.requester.api({ method: 'GET', url: `/api/v3/expense-reports/${report.id}/` }), 200)
    const [taxi, hotel] = now.lines.map((l) => l.receipt)
    assert.ok(taxi !== null && hotel !== null && taxi !== hotel)
    const shown = await requester.get(`${path}?done=receipt`)
    assert.match(shown.body, /The receipt is attached to its line\./)
    assert.match(shown.body, new RegExp(`<img class="receipt" src="${path}/receipts/${taxi}" alt="Receipt for line 1"`))
    assert.match(shown.body, new RegExp(`<a href="${path}/receipts/${hotel}">Open the receipt of line 2</a>`))
    assert.match(shown.body, /taxi\.png[\s\S]*PNG image/, 'the receipts are attachments of the report')

    const html = await send(requester, `${path}/lines/${first!.id}/receipt`, [
      { name: '_csrf', value: token },
      { name: 'file', value: '<html><body>x</body></html>', filename: 'x.png' },
    ])
    assert.equal(html.statusCode, 415, html.body)
    assert.match(html.body, /not accepted; attach a PDF, an image/)
    const late = await send(requester, `${path}/lines/${first!.id}/receipt`, [
      { name: 'file', value: PNG, filename: 'x.png' },
      { name: '_csrf', value: token },
    ])
    assert.equal(late.statusCode, 403)

    await ok(s.requester.api({ method: 'POST', url: `/api/v3/expense-reports/${report.id}/submit/` }), 200)
    const submitted = await requester.get(path)
    assert.doesNotMatch(submitted.body, /\/receipt"/, 'no receipt forms once submitted')
    const refused = await send(requester, `${path}/lines/${first!.id}/receipt`, [
      { name: '_csrf', value: token },
      { name: 'file', value: PNG, filename: 'again.png' },
    ])
    assert.equal(refused.statusCode, 409, refused.body)
    assert.match(refused.body, /no longer a draft/)
    const count = await apiList(s.requester.api, `/api/v3/expense-reports/${report.id}/attachments/`)
    assert.equal(count.length, 2, 'nothing stored by the refused uploads')
  })
})
