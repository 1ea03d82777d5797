/**
 * Receipts of expense report lines (DECISIONS, "Expense reports and travel requests" with "Attachments and
 * comments"), through HTTP: a receipt is uploaded to the report (multipart), named on its line with PUT, and
 * then the line above the threshold may be submitted; an attachment of another report as a receipt → 400
 * naming the line; a receipt deleted before submit is missing again (409). Someone who cannot see the report
 * cannot upload to it (404).
 */
import assert from 'node:assert/strict'
import { beforeEach, describe, test } from 'node:test'
import { useTestApp } from './helpers/app.ts'
import { setUp, type Person, type Setup } from './helpers/requests.ts'
import { BASE_DOMAIN, type Api } from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' })
let s: Setup
let employee: Person
let other: Person
let ready = false

beforeEach(async () => {
  if (ready) return
  ready = true
  s = await setUp(ctx)
  employee = await s.user('emp', s.roles.Requester, s.A)
  other = await s.user('other', s.roles.Requester, s.A)
})

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
)

/** Uploads a PNG to the report as `api`; the response. */
function upload(api: Api, report: number, name = 'receipt.png') {
  const boundary = '----receipt-boundary'
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n` +
        'Content-Type: image/png\r\n\r\n',
    ),
    PNG,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ])
  return api({
    method: 'POST',
    url: `/api/v3/expense-reports/${report}/attachments/`,
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload,
  })
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function ok(response: Promise<{ statusCode: number; body: string; json(): any }>, status = 200): Promise<any> {
  const r = await response
  assert.equal(r.statusCode, status, r.body)
  return r.json().data
}
const create = (lines: object[]) =>
  ok(employee.api({ method: 'POST', url: '/api/v3/expense-reports/', payload: { location: s.A, lines } }), 201)
const put = (id: number, body: object) =>
  employee.api({ method: 'PUT', url: `/api/v3/expense-reports/${id}/`, payload: body })

describe('expense report receipts', () => {
  test('upload, name on the line, submit; another report’s attachment → 400; a deleted receipt → 409', async () => {
    const report = await create([
      { date: '2026-11-20', merchant: 'Hotel', amount: '120' },
      { date: '2026-11-20', merchant: 'Coffee', amount: '4' },
    ])
    const elsewhere = await create([{ date: '2026-11-20', amount: '1' }])
    const mine = await ok(upload(employee.api, report.id), 201)
    assert.deepEqual(mine.document, { type: 'expense_report', id: report.id })
    const foreign = await ok(upload(employee.api, elsewhere.id), 201)
    assert.equal((await upload(other.api, report.id)).statusCode, 404)

    const wrong = await put(report.id, {
      ...report,
      lines: [{ ...report.lines[0], receipt: foreign.id }, report.lines[1]],
    })
    assert.equal(wrong.statusCode, 400, wrong.body)
    assert.match(wrong.body, /lines\.0\.receipt/)

    const refused = await employee.api({ method: 'POST', url: `/api/v3/expense-reports/${report.id}/submit/` })
    assert.equal(refused.statusCode, 409, refused.body)
    assert.match(refused.json().detail, /line 1 \(2026-11-20, Hotel\)/)

    const named = await ok(
      put(report.id, { ...report, lines: [{ ...report.lines[0], receipt: mine.id }, report.lines[1]] }),
    )
    assert.equal(named.lines[0].receipt, mine.id)
    assert.equal(named.lines[0].id, report.lines[0].id)

    // Deleted by its uploader while the report is a draft: the line needs a receipt again.
    const second = await ok(upload(employee.api, report.id, 'again.png'), 201)
    await ok(put(report.id, { ...named, lines: [{ ...named.lines[0], receipt: second.id }, named.lines[1]] }))
    const deleted = await employee.api({ method: 'DELETE', url: `/api/v3/attachments/${second.id}/` })
    assert.equal(deleted.statusCode, 204, deleted.body)
    const missing = await employee.api({ method: 'POST', url: `/api/v3/expense-reports/${report.id}/submit/` })
    assert.equal(missing.statusCode, 409, missing.body)

    await ok(put(report.id, { ...named, lines: [{ ...named.lines[0], receipt: mine.id }, named.lines[1]] }))
    const submitted = await ok(employee.api({ method: 'POST', url: `/api/v3/expense-reports/${report.id}/submit/` }))
    assert.equal(submitted.status, 'approved')
    assert.equal(submitted.lines[0].receipt, mine.id)
  })
})
