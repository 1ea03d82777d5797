/**
 * Bills and matching (DECISIONS, "Bills and matching"): entry against an order (vendor and currency the
 * order's) or with free lines, exact totals, the invoice number unique per vendor, edit only while draft;
 * matching at submit — matched, each exception code, two-way vs three-way, cumulative over earlier bills —
 * and what follows: approved at once, the accounts-payable step for exceptions (counted in
 * pending_approvals_count.bill only), rejection back to draft with the comment, pay, cancel; the order's
 * billed quantities and billing_status; a receipt void refused below billed under three_way; permissions,
 * events, Idempotency-Key, lists and CSV; and two bills submitted in parallel on one line.
 */
import assert from 'node:assert/strict'
import http from 'node:http'
import { beforeEach, describe, test } from 'node:test'
import { useTestApp } from './helpers/app.ts'
import { issuedOrder, poLine, rule, setUpOrders, type OrderSetup } from './helpers/orders.ts'
import type { Person } from './helpers/requests.ts'
import { apiAs, BASE_DOMAIN, roleWith, type Api } from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' })
let s: OrderSetup
let clerk: Person
let clerk2: Person
let ready = false
let seq = 0
beforeEach(async () => {
  if (ready) return
  ready = true
  s = await setUpOrders(ctx)
  const ap = await roleWith(ctx, s.tenant, 'Payables', ['accounts_payable'], 8)
  clerk = await s.user('clerk', ap, s.A)
  clerk2 = await s.user('clerk2', ap, s.A)
})

const nextNumber = () => `INV-${++seq}`
const post = (api: Api, url: string, payload?: object, headers: Record<string, string> = {}) =>
  api({ method: 'POST', url, ...(payload === undefined ? {} : { payload }), headers })
const act = (api: Api, id: number, action: string, payload?: object) =>
  post(api, `/api/v3/bills/${id}/${action}/`, payload)
const order = async (id: number) =>
  (await s.admin({ method: 'GET', url: `/api/v3/purchase-orders/${id}/` })).json().data
async function receive(po: number, line: number, quantity: string) {
  const r = await post(s.buyer.api, '/api/v3/receipts/', {
    purchase_order: po,
    lines: [{ po_line: line, accepted_quantity: quantity }],
  })
  assert.equal(r.statusCode, 201, r.body)
  return r.json().data
}
async function newBill(body: object, api: Api = clerk.api) {
  const r = await post(api, '/api/v3/bills/', { number: nextNumber(), ...body })
  assert.equal(r.statusCode, 201, r.body)
  return r.json().data
}
async function submitted(id: number, api: Api = clerk.api) {
  const r = await act(api, id, 'submit')
  assert.equal(r.statusCode, 200, r.body)
  return r.json().data
}
/** An issued order of 10 at 5 with `received` accepted. */
async function received(received: string, lines = [poLine('10', '5')]) {
  const po = await issuedOrder(s, lines)
  if (received !== '0') await receive(po.id, po.lines[0].id, received)
  return po
}
const settings = (payload: object) => s.admin({ method: 'PUT', url: '/api/v3/procurement-settings/', payload })
const pendingBills = async (api: Api) =>
  (await api({ method: 'GET', url: '/api/v3/users/me/' })).json().data.pending_approvals_count

describe('bills', () => {
  test('a matched bill: order vendor and currency, exact totals, approved at once, paid; order billed', async () => {
    const po = await received('10', [poLine('10', '5', '8.25'), poLine('3', '1.005')])
    const [a, b] = po.lines.map((l: { id: number }) => l.id)
    await receive(po.id, b, '3')
    const bill = await newBill({
      purchase_order: po.id,
      invoice_date: '2026-11-20',
      due_date: '2026-12-20',
      lines: [
        { po_line: a, quantity: '10' },
        { po_line: b, quantity: '3' },
      ],
    })
    assert.equal(bill.status, 'draft')
    assert.equal(bill.vendor.id, s.vendor)
    assert.equal(bill.currency, po.currency)
    assert.equal(bill.location.id, s.A)
    assert.equal(bill.purchase_order, po.id)
    assert.equal(bill.lines[0].unit_price, '5') // defaults from the order line
    assert.equal(bill.lines[1].amount, '3.02') // 3 × 1.005 = 3.015 → 3.02 half-up
    assert.equal(bill.subtotal, '53.02')
    assert.equal(bill.tax, '4.13') // 50 × 8.25 % = 4.125 → 4.13
    assert.equal(bill.total, '57.15')
    assert.equal(bill.invoice_date, '2026-11-20')
    const done = await submitted(bill.id)
    assert.equal(done.match_status, 'matched')
    assert.deepEqual(done.exceptions, [])
    assert.equal(done.status, 'approved') // no bill rule
    const now = await order(po.id)
    assert.equal(now.lines[0].billed_quantity, '10')
    assert.equal(now.billing_status, 'full')
    const paid = await act(clerk.api, bill.id, 'pay', { payment_reference: 'WIRE-1', paid_at: '2026-11-25T10:00:00Z' })
    assert.equal(paid.statusCode, 200, paid.body)
    assert.equal(paid.json().data.status, 'paid')
    assert.equal(paid.json().data.payment_reference, 'WIRE-1')
    assert.equal(paid.json().data.paid_at, '2026-11-25T10:00:00.000Z')
    assert.equal((await act(clerk.api, bill.id, 'pay')).statusCode, 409)
    assert.equal((await act(clerk.api, bill.id, 'cancel')).statusCode, 409)
    const events = (await s.admin({ method: 'GET', url: '/api/v3/events/?page_size=1000' })).json().data
    const mine = events.filter(
      (e: { data: { object: { id: number } }; type: string }) =>
        e.type.startsWith('bill.') && e.data.object.id === bill.id,
    )
    assert.deepEqual(mine.map((e: { type: string }) => e.type).sort(), [
      'bill.approved',
      'bill.created',
      'bill.paid',
      'bill.submitted',
    ])
  })

  test('exceptions: over ordered, over received, price beyond tolerance; the payables step; rejection', async () => {
    const po = await received('8')
    const line = po.lines[0].id
    const bill = await newBill({
      purchase_order: po.id,
      lines: [{ po_line: line, quantity: '12', unit_price: '5.26' }],
    })
    const before = await pendingBills(clerk2.api)
    const done = await submitted(bill.id)
    assert.equal(done.match_status, 'exception')
    assert.equal(done.status, 'pending_approval')
    const codes = done.exceptions.map((e: { code: string }) => e.code).sort()
    assert.deepEqual(codes, ['price_over_tolerance', 'quantity_over_ordered', 'quantity_over_received'])
    for (const e of done.exceptions) assert.equal(e.line, done.lines[0].id)
    const byCode = Object.fromEntries(
      done.exceptions.map((e: { code: string; message: string }) => [e.code, e.message]),
    )
    assert.match(byCode.quantity_over_received, /billed 12, received 8/)
    assert.match(byCode.quantity_over_ordered, /billed 12, ordered 10/)
    assert.match(byCode.price_over_tolerance, /unit price 5\.26, ordered at 5 \(at most 5\.25/)
    assert.equal(done.approvals.length, 1)
    assert.equal(done.approvals[0].kind, 'bill')
    const after = await pendingBills(clerk2.api)
    assert.equal(after.bill, before.bill + 1)
    assert.equal(after.order, before.order)
    assert.equal((await order(po.id)).lines[0].billed_quantity, '12')
    assert.equal((await order(po.id)).billing_status, 'full')
    // The submitter is no candidate; another accounts-payable holder is.
    assert.equal(
      (await post(clerk.api, `/api/v3/approvals/${done.approvals[0].id}/reject/`, { comment: 'x' })).statusCode,
      403,
    )
    const rejected = await post(clerk2.api, `/api/v3/approvals/${done.approvals[0].id}/reject/`, {
      comment: 'Only 8 arrived; ask for a credit note',
    })
    assert.equal(rejected.statusCode, 200, rejected.body)
    const back = (await clerk.api({ method: 'GET', url: `/api/v3/bills/${bill.id}/` })).json().data
    assert.equal(back.status, 'draft')
    assert.equal(back.approvals[0].comment, 'Only 8 arrived; ask for a credit note')
    assert.equal((await order(po.id)).lines[0].billed_quantity, '0')
    assert.equal((await pendingBills(clerk2.api)).bill, before.bill)
    // Corrected and resubmitted: matched, approved.
    const put = await clerk.api({
      method: 'PUT',
      url: `/api/v3/bills/${bill.id}/`,
      payload: {
        number: back.number,
        purchase_order: po.id,
        lines: [{ po_line: line, quantity: '8', unit_price: '5.25' }],
      },
    })
    assert.equal(put.statusCode, 200, put.body)
    const again = await submitted(bill.id)
    assert.equal(again.match_status, 'matched')
    assert.equal(again.status, 'approved')
    assert.equal((await order(po.id)).billing_status, 'partial')
  })

  test('approving the payables step ends the chain when no bill rule matches', async () => {
    const po = await received('5')
    const bill = await newBill({ purchase_order: po.id, lines: [{ po_line: po.lines[0].id, quantity: '6' }] })
    const done = await submitted(bill.id)
    assert.deepEqual(
      done.exceptions.map((e: { code: string }) => e.code),
      ['quantity_over_received'],
    )
    const ok = await post(clerk2.api, `/api/v3/approvals/${done.approvals[0].id}/approve/`, {})
    assert.equal(ok.statusCode, 200, ok.body)
    assert.equal((await clerk.api({ method: 'GET', url: `/api/v3/bills/${bill.id}/` })).json().data.status, 'approved')
  })

  test('cumulative over earlier bills; two_way ignores receipts; closed lines', async () => {
    const po = await received('10')
    const line = po.lines[0].id
    await submitted((await newBill({ purchase_order: po.id, lines: [{ po_line: line, quantity: '7' }] })).id)
    const second = await submitted(
      (await newBill({ purchase_order: po.id, lines: [{ po_line: line, quantity: '4' }] })).id,
    )
    assert.deepEqual(second.exceptions.map((e: { code: string }) => e.code).sort(), [
      'quantity_over_ordered',
      'quantity_over_received',
    ])
    assert.match(second.exceptions[0].message, /billed 11 \(7 on earlier bills\)/)
    await settings({ match_mode: 'two_way' })
    try {
      const unreceived = await received('0')
      const two = await submitted(
        (await newBill({ purchase_order: unreceived.id, lines: [{ po_line: unreceived.lines[0].id, quantity: '10' }] }))
          .id,
      )
      assert.equal(two.match_status, 'matched')
    } finally {
      await settings({ match_mode: 'three_way' })
    }
    const closing = await received('2')
    const closed = await post(s.buyer.api, `/api/v3/purchase-orders/${closing.id}/lines/${closing.lines[0].id}/close/`)
    assert.equal(closed.statusCode, 200, closed.body)
    const late = await submitted(
      (await newBill({ purchase_order: closing.id, lines: [{ po_line: closing.lines[0].id, quantity: '2' }] })).id,
    )
    assert.deepEqual(
      late.exceptions.map((e: { code: string }) => e.code),
      ['line_closed'],
    )
  })

  test('a bill without an order is not_required and follows the bill rules', async () => {
    const ruleRow = await rule(s.admin, { location: s.A, step: 1, approvers: [s.approver.profileId], document: 'bill' })
    try {
      const bill = await newBill({
        vendor: s.vendor2,
        location: s.A,
        lines: [{ description: 'Consulting', quantity: '2', unit_price: '150' }],
      })
      assert.equal(bill.total, '300.00')
      assert.equal(bill.purchase_order, null)
      const done = await submitted(bill.id)
      assert.equal(done.match_status, 'not_required')
      assert.equal(done.status, 'pending_approval')
      assert.equal(done.approvals[0].step, 1)
      const ok = await post(s.approver.api, `/api/v3/approvals/${done.approvals[0].id}/approve/`, {})
      assert.equal(ok.statusCode, 200, ok.body)
      assert.equal(
        (await clerk.api({ method: 'GET', url: `/api/v3/bills/${bill.id}/` })).json().data.status,
        'approved',
      )
      // With an exception the payables step comes first, then the rule's step.
      const po = await received('1')
      const odd = await submitted(
        (await newBill({ purchase_order: po.id, lines: [{ po_line: po.lines[0].id, quantity: '2' }] })).id,
      )
      assert.equal(odd.approvals[0].step, 1)
      const candidates = odd.approvals[0].candidates.map((c: { id: number }) => c.id)
      assert.ok(candidates.includes(clerk2.profileId), String(candidates)) // accounts_payable at A (a superuser too)
      assert.ok(!candidates.includes(clerk.profileId)) // never the submitter
      assert.ok(!candidates.includes(s.buyer.profileId)) // no accounts_payable
      const first = await post(clerk2.api, `/api/v3/approvals/${odd.approvals[0].id}/approve/`, {})
      assert.equal(first.statusCode, 200, first.body)
      const next = (await clerk.api({ method: 'GET', url: `/api/v3/bills/${odd.id}/` })).json().data
      assert.equal(next.status, 'pending_approval')
      assert.equal(next.approvals.length, 2)
      assert.equal(next.approvals[1].step, 2)
    } finally {
      await s.admin({ method: 'DELETE', url: `/api/v3/approval-rules/${ruleRow.id}/` })
    }
  })

  test('an order or a bill waiting for approval e-mails the deciders of its first step, with a link', async () => {
    const outbox = async (since: number) =>
      ctx.database.db
        .selectFrom('email_outbox')
        .select(['id', 'to_address', 'subject', 'body_text'])
        .where('tenant_id', '=', s.tenant.tenantId)
        .where('id', '>', since)
        .orderBy('id')
        .execute()
    const last = async () => (await outbox(0)).at(-1)?.id ?? 0
    const approverEmail = `approver@${s.tenant.domain}.test`
    const approvers = [s.approver.profileId]
    const rules = [
      await rule(s.admin, { location: s.A, min_total: '10000', step: 1, approvers, document: 'purchase_order' }),
      await rule(s.admin, { location: s.A, min_total: '10000', step: 1, approvers, document: 'bill' }),
    ]
    try {
      let since = await last()
      const draft = await s.buyer.api({
        method: 'POST',
        url: '/api/v3/purchase-orders/',
        payload: { vendor: s.vendor, location: s.A, lines: [poLine('100', '150')] },
      })
      assert.equal(draft.statusCode, 201, draft.body)
      const issued = await post(s.buyer.api, `/api/v3/purchase-orders/${draft.json().data.id}/issue/`)
      assert.equal(issued.json().data.status, 'pending_approval', issued.body)
      const po = issued.json().data
      let mail = (await outbox(since)).filter((m) => m.to_address === approverEmail)
      assert.deepEqual(
        mail.map((m) => m.subject),
        [`Approval needed: purchase order ${po.number}`],
      )
      assert.match(mail[0]!.body_text, new RegExp(`/console/approvals/${po.approvals[0].id}\\n`))

      since = await last()
      const bill = await newBill({
        vendor: s.vendor2,
        location: s.A,
        lines: [{ description: 'Fit-out', quantity: '1', unit_price: '20000' }],
      })
      const waiting = await submitted(bill.id)
      assert.equal(waiting.status, 'pending_approval')
      mail = (await outbox(since)).filter((m) => m.to_address === approverEmail)
      assert.deepEqual(
        mail.map((m) => m.subject),
        [`Approval needed: bill ${bill.number}`],
      )
      assert.match(mail[0]!.body_text, new RegExp(`/console/approvals/${waiting.approvals[0].id}\\n`))
    } finally {
      for (const r of rules) await s.admin({ method: 'DELETE', url: `/api/v3/approval-rules/${r.id}/` })
    }
  })

  test('number unique per vendor; edit only while draft; cancel; bad input is 400', async () => {
    const po = await received('10')
    const bill = await newBill({ purchase_order: po.id, lines: [{ po_line: po.lines[0].id, quantity: '1' }] })
    const dup = await post(clerk.api, '/api/v3/bills/', {
      number: bill.number,
      purchase_order: po.id,
      lines: [{ po_line: po.lines[0].id, quantity: '1' }],
    })
    assert.equal(dup.statusCode, 409, dup.body)
    const other = await post(clerk.api, '/api/v3/bills/', {
      number: bill.number,
      vendor: s.vendor2,
      location: s.A,
      lines: [{ quantity: '1', unit_price: '1' }],
    })
    assert.equal(other.statusCode, 201, other.body)
    const bad = await post(clerk.api, '/api/v3/bills/', {
      number: 'X-1',
      purchase_order: po.id,
      vendor: s.vendor2,
      lines: [{ po_line: 999999, quantity: '0' }],
    })
    assert.equal(bad.statusCode, 400, bad.body)
    const fields = JSON.stringify(bad.json())
    for (const f of ['vendor', 'lines.0.po_line', 'lines.0.quantity'])
      assert.match(fields, new RegExp(f.replace('.', '\\.')))
    assert.equal(
      (await post(clerk.api, '/api/v3/bills/', { number: 'X-2', lines: [{ quantity: '1', unit_price: '1' }] }))
        .statusCode,
      400,
    )
    await submitted(bill.id)
    const put = await clerk.api({
      method: 'PUT',
      url: `/api/v3/bills/${bill.id}/`,
      payload: { number: 'Y', purchase_order: po.id, lines: [{ po_line: po.lines[0].id, quantity: '1' }] },
    })
    assert.equal(put.statusCode, 409)
    assert.match(put.json().detail, /approved/)
    const cancelled = await act(clerk.api, bill.id, 'cancel')
    assert.equal(cancelled.statusCode, 200, cancelled.body)
    assert.equal(cancelled.json().data.status, 'cancelled')
    assert.equal((await order(po.id)).lines[0].billed_quantity, '0')
    assert.equal((await act(clerk.api, bill.id, 'submit')).statusCode, 409)
  })

  test('a receipt void that would leave received below billed is refused under three_way', async () => {
    const po = await issuedOrder(s, [poLine('10', '5')])
    const receipt = await receive(po.id, po.lines[0].id, '10')
    await submitted((await newBill({ purchase_order: po.id, lines: [{ po_line: po.lines[0].id, quantity: '10' }] })).id)
    const refused = await post(s.buyer.api, `/api/v3/receipts/${receipt.id}/void/`)
    assert.equal(refused.statusCode, 409, refused.body)
    assert.match(refused.json().detail, /0 received but 10 billed/)
  })

  test('permissions: accounts_payable writes; nav_purchase reads; others 404', async () => {
    const po = await received('10')
    const bill = await newBill({ purchase_order: po.id, lines: [{ po_line: po.lines[0].id, quantity: '1' }] })
    assert.equal((await s.buyer.api({ method: 'GET', url: `/api/v3/bills/${bill.id}/` })).statusCode, 200)
    assert.equal((await act(s.buyer.api, bill.id, 'submit')).statusCode, 403)
    const denied = await post(s.buyer.api, '/api/v3/bills/', {
      number: 'Z',
      purchase_order: po.id,
      lines: [{ po_line: po.lines[0].id, quantity: '1' }],
    })
    assert.equal(denied.statusCode, 403)
    assert.equal((await s.requester.api({ method: 'GET', url: `/api/v3/bills/${bill.id}/` })).statusCode, 404)
    assert.equal((await act(s.requester.api, bill.id, 'cancel')).statusCode, 404)
    const list = (await s.requester.api({ method: 'GET', url: '/api/v3/bills/' })).json().data
    assert.equal(list.length, 0)
  })

  test('lists filter and search; CSV; Idempotency-Key', async () => {
    const po = await received('10')
    const key = { 'idempotency-key': `bill-${po.id}` }
    const body = { number: `IDEM-${po.id}`, purchase_order: po.id, lines: [{ po_line: po.lines[0].id, quantity: '1' }] }
    const first = await post(clerk.api, '/api/v3/bills/', body, key)
    const again = await post(clerk.api, '/api/v3/bills/', body, key)
    assert.equal(first.statusCode, 201, first.body)
    assert.equal(again.json().data.id, first.json().data.id)
    const id = first.json().data.id
    const get = async (q: string) =>
      (await clerk.api({ method: 'GET', url: `/api/v3/bills/?page_size=1000&${q}` }))
        .json()
        .data.map((b: { id: number }) => b.id)
    assert.ok((await get(`purchase_order=${po.id}`)).includes(id))
    assert.ok((await get('status=draft')).includes(id))
    assert.ok(!(await get('status=paid')).includes(id))
    assert.ok((await get('match_status=not_required')).includes(id))
    assert.ok((await get(`vendor=${s.vendor}&location=${s.A}`)).includes(id))
    assert.ok(!(await get(`vendor=${s.vendor2}`)).includes(id))
    assert.deepEqual(await get(`search=IDEM-${po.id}`), [id])
    assert.ok((await get('search=Acme')).includes(id))
    assert.ok((await get('updated_since=2000-01-01T00:00:00Z')).includes(id))
    const csv = await clerk.api({ method: 'GET', url: `/api/v3/bills/?format=csv&search=IDEM-${po.id}` })
    assert.equal(csv.statusCode, 200)
    assert.match(String(csv.headers['content-type']), /text\/csv/)
    assert.match(csv.body, new RegExp(`IDEM-${po.id}`))
  })
})

describe('concurrency', () => {
  test('two bills submitted at the same instant on one line never both match', async () => {
    const address = await ctx.app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = new URL(address)
    const api = await apiAs(ctx, s.tenant, clerk.userId)
    const po = await received('10')
    const bills = [
      await newBill({ purchase_order: po.id, lines: [{ po_line: po.lines[0].id, quantity: '6' }] }),
      await newBill({ purchase_order: po.id, lines: [{ po_line: po.lines[0].id, quantity: '6' }] }),
    ]
    const submit = (id: number) =>
      new Promise<number>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: `/api/v3/bills/${id}/submit/`,
            headers: { host: s.tenant.host, authorization: `Bearer ${api.token}`, 'x-service-client': 'api' },
          },
          (res) => {
            res.resume()
            res.on('end', () => resolve(res.statusCode ?? 0))
          },
        )
        req.on('error', reject)
        req.end()
      })
    const statuses = await Promise.all(bills.map((b) => submit(b.id)))
    assert.deepEqual(statuses, [200, 200])
    const after = await Promise.all(
      bills.map(
        async (b) => (await clerk.api({ method: 'GET', url: `/api/v3/bills/${b.id}/` })).json().data.match_status,
      ),
    )
    assert.deepEqual(after.sort(), ['exception', 'matched'])
    assert.equal((await order(po.id)).lines[0].billed_quantity, '12')
  })
})
