/**
 * Bills in the console over HTTP, with the data made in the test: a bill entered from an order (each line
 * pre-filled with received minus already billed, at the order's price), refusals said on the form (a
 * duplicate invoice number, a quantity that is not a number, no line), edit while draft, submit with the
 * exception shown beside its line, the bill approval decided from the accounts-payable colleague's inbox,
 * pay with a reference (none: a sentence), a second submit refused on the page, cancel; the list's status,
 * match and search filters; a buyer without accounts_payable refused in words; a requester sees no bill.
 */
import assert from 'node:assert/strict'
import { beforeEach, test } from 'node:test'
import { resetPasswordLink } from '../src/tenants/service.ts'
import { useTestApp } from './helpers/app.ts'
import { issuedOrder, poLine, setUpOrders, type OrderSetup } from './helpers/orders.ts'
import type { Person } from './helpers/requests.ts'
import { BASE_DOMAIN, roleWith, throughLink, type Browser } from './helpers/security.ts'

const ctx = useTestApp({ BASE_DOMAIN, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' })
let s: OrderSetup
let clerk: Browser
let clerk2: Browser
let buyer: Browser
let requester: Browser
let clerkApi: Person

const signIn = async (name: string) =>
  throughLink(
    ctx,
    s.tenant.host,
    await resetPasswordLink(ctx.database.db, s.tenant.domain, `${name}@${s.tenant.domain}.test`),
  )

let ready = false
beforeEach(async () => {
  if (ready) return
  ready = true
  s = await setUpOrders(ctx)
  const ap = await roleWith(ctx, s.tenant, 'Payables', ['accounts_payable'], 8)
  clerkApi = await s.user('clerk', ap, s.A)
  await s.user('clerk2', ap, s.A)
  clerk = await signIn('clerk')
  clerk2 = await signIn('clerk2')
  buyer = await signIn('buyer')
  requester = await signIn('requester')
})

/** An issued order (10 chairs at 5, 4 lamps at 2.5 with 10 % tax), `chairs` of the chairs received. */
async function orderWithReceipt(chairs: string) {
  const po = await issuedOrder(s, [poLine('10', '5', '0', 'Chair'), poLine('4', '2.5', '10', 'Lamp')])
  const r = await s.buyer.api({
    method: 'POST',
    url: '/api/v3/receipts/',
    payload: { purchase_order: po.id, lines: [{ po_line: po.lines[0].id, accepted_quantity: chairs }] },
  })
  assert.equal(r.statusCode, 201, r.body)
  return po
}
const idOf = (location: unknown) => Number(/\/console\/bills\/(\d+)/.exec(String(location))![1])
const apiBill = async (id: number) => (await clerkApi.api({ method: 'GET', url: `/api/v3/bills/${id}/` })).json().data

test('enter a bill from an order, submit it, see the exception beside its line, approve it, pay it', async () => {
  const po = await orderWithReceipt('6')
  const form = `/console/bills/new?order=${po.id}`
  const page = await clerk.get(form)
  assert.equal(page.statusCode, 200, page.body)
  assert.match(page.body, /Enter a bill for PO-/)
  assert.match(page.body, /name="lines\.0\.quantity"[^>]*value="6"/, 'received minus billed')
  assert.match(page.body, /name="lines\.0\.unit_price"[^>]*value="5"/)
  assert.match(page.body, /name="lines\.1\.quantity"[^>]*value=""/, 'nothing received: blank')
  assert.match(page.body, /name="lines\.1\.tax_rate"[^>]*value="10"/)

  const number = `INV-C-${po.id}`
  const lines = { rows: '2', 'lines.0.po_line': String(po.lines[0].id), 'lines.1.po_line': String(po.lines[1].id) }
  const none = await clerk.submit(form, form, { ...lines, number, 'lines.0.quantity': '' })
  assert.equal(none.statusCode, 400)
  assert.match(none.body, /Enter a quantity for at least one line/)
  const bad = await clerk.submit(form, form, { ...lines, number, 'lines.0.quantity': 'six' })
  assert.equal(bad.statusCode, 400)
  assert.match(bad.body, /Quantity \(Chair\)/)
  assert.match(bad.body, /value="six"/, 'what was typed is kept')

  const made = await clerk.submit(form, form, {
    ...lines,
    number,
    invoice_date: '2026-11-20',
    'lines.0.quantity': '6',
    'lines.0.unit_price': '5',
  })
  assert.equal(made.statusCode, 303, made.body)
  const id = idOf(made.headers.location)
  assert.match((await clerk.get(String(made.headers.location))).body, /saved as a draft/)
  const twice = await clerk.submit(form, form, { ...lines, number, 'lines.0.quantity': '1' })
  assert.equal(twice.statusCode, 409)
  assert.match(twice.body, /already has a bill numbered/)

  // Edited while a draft: 8 chairs, 2 more than were received.
  const edit = `/console/bills/${id}/edit`
  assert.match((await clerk.get(edit)).body, /name="lines\.0\.quantity"[^>]*value="6"/)
  const saved = await clerk.submit(edit, edit, { ...lines, number, 'lines.0.quantity': '8', 'lines.0.unit_price': '5' })
  assert.equal(saved.statusCode, 303, saved.body)
  assert.equal((await apiBill(id)).lines[0].quantity, '8')

  const submitted = await clerk.submit(`/console/bills/${id}`, `/console/bills/${id}/submit`, {})
  assert.equal(submitted.statusCode, 303, submitted.body)
  const detail = await clerk.get(`/console/bills/${id}`)
  assert.match(detail.body, /Waiting for approval/)
  assert.match(detail.body, /<td>Chair<\/td>[\s\S]*?Exception:<\/strong> Line 1 \(Chair\): billed 8, received 6\./)
  assert.equal((await clerk.get(edit)).statusCode, 409, 'no edit once submitted')

  const inbox = await clerk2.get('/console/approvals')
  assert.match(inbox.body, new RegExp(`Bill ${number}`))
  assert.match(inbox.body, /Bill from Acme Supplies · 1 exception/)
  const approval = (await apiBill(id)).approvals[0]
  const decide = `/console/approvals/${approval.id}`
  const decision = await clerk2.get(decide)
  assert.match(decision.body, new RegExp(`Approve bill ${number} from Acme Supplies\\?`))
  assert.match(decision.body, /billed 8, received 6/)
  const approved = await clerk2.submit(decide, decide, { decision: 'approve', comment: 'Two more on the way' })
  assert.equal(approved.statusCode, 303, approved.body)
  assert.equal((await apiBill(id)).status, 'approved')

  const noRef = await clerk.submit(`/console/bills/${id}`, `/console/bills/${id}/pay`, { payment_reference: ' ' })
  assert.equal(noRef.statusCode, 400)
  assert.match(noRef.body, /Enter the payment reference/)
  const paid = await clerk.submit(`/console/bills/${id}`, `/console/bills/${id}/pay`, { payment_reference: 'WIRE-1' })
  assert.equal(paid.statusCode, 303, paid.body)
  const after = await clerk.get(String(paid.headers.location))
  assert.match(after.body, /marked paid/)
  assert.match(after.body, /reference WIRE-1/)
  const again = await clerk.submit(`/console/bills/${id}`, `/console/bills/${id}/submit`, {})
  assert.equal(again.statusCode, 409)
  assert.match(again.body, /is paid; only a draft bill can be submitted/)

  assert.match((await clerk.get('/console/bills?match=exception')).body, new RegExp(`>${number}<`))
  assert.doesNotMatch((await clerk.get('/console/bills?match=matched')).body, new RegExp(`>${number}<`))
  assert.match((await clerk.get('/console/bills?status=paid')).body, new RegExp(`>${number}<`))
  assert.doesNotMatch((await clerk.get('/console/bills?status=draft')).body, new RegExp(`>${number}<`))
  assert.match((await clerk.get(`/console/bills?search=${number}`)).body, /1 in all/)
  assert.equal((await clerk.get('/console/bills?match=nonsense')).statusCode, 400)
})

test('a matched bill is approved at once; a draft is cancelled; the billed quantity leaves the next form', async () => {
  const po = await orderWithReceipt('10')
  const form = `/console/bills/new?order=${po.id}`
  const made = await clerk.submit(form, form, {
    rows: '2',
    number: `INV-M-${po.id}`,
    'lines.0.po_line': String(po.lines[0].id),
    'lines.0.quantity': '4',
    'lines.1.po_line': String(po.lines[1].id),
  })
  assert.equal(made.statusCode, 303, made.body)
  const id = idOf(made.headers.location)
  assert.equal((await clerk.submit(`/console/bills/${id}`, `/console/bills/${id}/submit`, {})).statusCode, 303)
  const detail = await clerk.get(`/console/bills/${id}`)
  assert.match(detail.body, /Approved/)
  assert.match(detail.body, /<td>\s*Matched\s*<\/td>/)
  assert.match(detail.body, /Mark paid/)
  // 10 received, 4 billed: the next bill starts at 6.
  assert.match((await clerk.get(form)).body, /name="lines\.0\.quantity"[^>]*value="6"/)

  const draft = await clerk.submit(form, form, {
    rows: '1',
    number: `INV-X-${po.id}`,
    'lines.0.po_line': String(po.lines[0].id),
    'lines.0.quantity': '1',
  })
  const draftId = idOf(draft.headers.location)
  const cancelled = await clerk.submit(`/console/bills/${draftId}`, `/console/bills/${draftId}/cancel`, {})
  assert.equal(cancelled.statusCode, 303)
  assert.equal((await apiBill(draftId)).status, 'cancelled')
})

test('who may: a buyer sees bills but is refused entering or submitting one; a requester sees none', async () => {
  const po = await orderWithReceipt('2')
  const form = `/console/bills/new?order=${po.id}`
  const made = await clerk.submit(form, form, {
    rows: '1',
    number: `INV-W-${po.id}`,
    'lines.0.po_line': String(po.lines[0].id),
    'lines.0.quantity': '2',
  })
  const id = idOf(made.headers.location)

  const refused = await buyer.get(form)
  assert.equal(refused.statusCode, 403)
  assert.match(refused.body, /Entering a bill needs the accounts_payable permission/)
  const seen = await buyer.get(`/console/bills/${id}`)
  assert.equal(seen.statusCode, 200)
  assert.doesNotMatch(seen.body, /Submit for approval/)
  assert.match(seen.body, /href="\/console\/bills"/, 'the menu shows Bills to a buyer')
  const submit = await buyer.submit(`/console/bills/${id}`, `/console/bills/${id}/submit`, {})
  assert.equal(submit.statusCode, 403)
  assert.match(submit.body, /needs the accounts_payable permission/)

  assert.equal((await requester.get(`/console/bills/${id}`)).statusCode, 404)
  assert.equal((await requester.get(form)).statusCode, 404)
  const list = await requester.get('/console/bills')
  assert.match(list.body, /No bills you may see yet/)
  assert.doesNotMatch(list.body, /href="\/console\/bills"/, 'no Bills in a requester’s menu')
  assert.equal((await clerk.get('/console/bills/new?order=999999')).statusCode, 404)
  assert.equal((await clerk.get('/console/bills/new')).statusCode, 400)
})
