/**
 * A newcomer's first day with the console (DECISIONS, "Daily use of the console" and "Rules are checked when
 * saved"), in a real browser (Debian's Chromium driven by playwright-core) against the real `procurement serve`
 * with the demo company, one test per point: an approval rule naming someone who cannot approve at its location
 * is refused with a sentence naming both, and nothing is saved; a draft request's page shows the approval steps
 * it would go through (one approver named by two rules of a step once; whoever approved an earlier step is no
 * candidate of a later one, which is approved at once in their name); the currency form's rate hint, and a rule's
 * minimum total compared in the base currency; the order PDF downloaded from the outbox (US Letter at the Head
 * Office in Chicago; buyer's legal entity, vendor, payment terms, the buyer's contact); the messages (queued in the
 * outbox without SMTP, a matching exception a warning, a bill's approval said of the bill); orders made from a
 * request with two vendors, both listed on its page. The CLI's `users reset-password` while the server runs is
 * daily-use.test.ts's. Every page: axe-core finds no serious or critical violation and at 390 px nothing scrolls
 * sideways. With UPDATE_SCREENSHOTS=1 it writes docs/images/console-rule-refused*.png,
 * console-request-preview*.png and console-order-sent*.png.
 */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { test } from 'node:test'
import { PDFDocument } from 'pdf-lib'
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs'
import type { BrowserContext, Page } from 'playwright-core'
import { checked, noChromium, shotPath } from '../helpers/browser.ts'
import { lastJson, useConsoleServer } from '../helpers/console-server.ts'

const skip = noChromium
const server = useConsoleServer({ demo: true })
const standardFontDataUrl = `${path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'))}/standard_fonts/`

const mainText = (page: Page) => page.locator('main').innerText()

/** The demo's ids, read through the API: a location, a vendor, a person (their profile id) by name or e-mail. */
const locationId = async (name: string) =>
  (await server.api<{ id: number; name: string }[]>('GET', '/api/v3/locations/')).find((l) => l.name === name)!.id
const vendorId = async (name: string) =>
  (await server.api<{ id: number; name: string }[]>('GET', `/api/v3/vendors/?search=${encodeURIComponent(name)}`)).find(
    (v) => v.name === name,
  )!.id
const personId = async (email: string) =>
  (await server.api<{ id: number; email: string }[]>('GET', `/api/v3/users/?search=${encodeURIComponent(email)}`)).find(
    (u) => u.email === email,
  )!.id

/** Someone of the demo signed in through a set-password link `users reset-password` printed (the server running). */
async function signInAs(email: string, width: number) {
  const printed = await server.command(['users', 'reset-password', '--domain', 'demo', '--email', email, '--json'])
  assert.equal(printed.code, 0, printed.output)
  return server.setPassword(lastJson<{ setup_url: string }>(printed.output).setup_url, width)
}

interface Line {
  item: string
  vendor?: string
  quantity: string
  price: string
}

/** A draft request made on the console's New request form (the signed-in person's home location): its id. */
async function newRequest(
  { context, page }: { context: BrowserContext; page: Page },
  description: string,
  lines: Line[],
  currency?: string,
): Promise<number> {
  await page.goto(`${server.base}/console/requests/new`)
  await checked(context, page)
  assert.equal(
    await page
      .getByLabel(/^Location\b/)
      .locator('option:checked')
      .innerText(),
    'Head Office',
    'the form starts at the administrator’s home location',
  )
  if (currency !== undefined) await page.getByLabel(/^Currency\b/).selectOption({ label: currency })
  await page.getByLabel(/^Description\b/).fill(description)
  for (const [i, line] of lines.entries()) {
    await page.locator(`#f-lines-${i}-description`).fill(line.item)
    if (line.vendor !== undefined) await page.locator(`#f-lines-${i}-vendor`).selectOption({ label: line.vendor })
    await page.locator(`#f-lines-${i}-quantity`).fill(line.quantity)
    await page.locator(`#f-lines-${i}-unit-price`).fill(line.price)
  }
  await page.getByRole('button', { name: 'Save draft' }).click()
  await page.waitForURL(/\/console\/requests\/\d+\?done=created/)
  return Number(/\/requests\/(\d+)/.exec(page.url())![1])
}

/** The rows of the draft's "Approval steps if submitted now" box: [step, who may decide]. */
async function previewRows(page: Page): Promise<string[][]> {
  const rows: string[][] = []
  for (const row of await page.locator('section.chain-preview tbody tr').all())
    rows.push((await row.locator('td').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim()))
  return rows
}

test(
  '2. an approval rule naming someone without Approval at its location is refused, naming both; nothing is saved',
  { skip, timeout: 600_000 },
  async () => {
    const rules = () => server.api<{ id: number }[]>('GET', '/api/v3/approval-rules/?page_size=100')
    const before = await rules()
    const { context, page } = await server.signedIn({ width: 390 })
    await page.goto(`${server.base}/console/settings/setup/approval-rules`)
    await checked(context, page)
    // Mia Manager approves at the Head Office only.
    await page.getByLabel(/^Location\b/).selectOption({ label: 'Berlin Office' })
    await page.getByLabel(/^Minimum total\b/).fill('250')
    await page.getByLabel(/^Step\b/).selectOption('3')
    await page.getByLabel('Mia Manager (manager@example.com)').check()
    await page.getByRole('button', { name: 'Add rule' }).click()
    await page.waitForLoadState()
    const main = await mainText(page)
    // The sentence names the approver and the location (and the field error says it at Approvers).
    assert.match(
      main,
      /Every approver must hold nav_approval at Berlin Office: Mia Manager\b[^.;]* holds no nav_approval at Berlin Office/,
    )
    assert.match(main, /Approvers: Mia Manager\b[^.;]* holds no nav_approval at Berlin Office/)
    assert.match(main, /the rule was not saved/)
    assert.equal(await page.getByLabel(/^Minimum total\b/).inputValue(), '250', 'what was typed is kept')
    assert.equal(await page.getByLabel('Mia Manager (manager@example.com)').isChecked(), true)
    await checked(context, page)
    await page.screenshot({ path: shotPath('console-rule-refused-390.png'), fullPage: true })
    await page.setViewportSize({ width: 1280, height: 900 })
    await page.screenshot({ path: shotPath('console-rule-refused.png'), fullPage: true })
    await context.close()

    const after = await rules()
    assert.deepEqual(
      after.map((r) => r.id),
      before.map((r) => r.id),
      'no rule was saved',
    )
  },
)

test(
  '3. a draft shows its approval steps; one named by two rules of a step once, and no candidate of a later step once they approved',
  { skip, timeout: 600_000 },
  async () => {
    const headOffice = await locationId('Head Office')
    const mia = await personId('manager@example.com')
    // Mia is named by the Head Office's step 1 already (with the administrator); a second rule of step 1 names her too.
    await server.api('POST', '/api/v3/approval-rules/', {
      location: headOffice,
      step: 1,
      min_total: '1200',
      approvers: [mia],
    })

    const admin = await server.signedIn({ width: 1280 })
    const id = await newRequest(admin, 'Ergonomic chairs for the analysts', [
      { item: 'Ergonomic chair', vendor: 'Granite Furniture', quantity: '5', price: '300' },
    ])
    const { page } = admin
    const preview = page.locator('section.chain-preview')
    assert.match(
      (await preview.innerText()).replace(/\s+/g, ' '),
      /Submitted now, this request of 1,500\.00 USD goes through 2 steps, in order/,
    )
    // The administrator made it, so is no candidate; Mia, named twice at step 1, is listed once; the
    // every-location rule from 1,000 makes step 2.
    assert.deepEqual(await previewRows(page), [
      ['1', 'Mia Manager'],
      ['2', 'Mia Manager'],
    ])
    await checked(admin.context, page)
    await page.screenshot({ path: shotPath('console-request-preview.png'), fullPage: true })
    await page.setViewportSize({ width: 390, height: 844 })
    await page.screenshot({ path: shotPath('console-request-preview-390.png'), fullPage: true })
    await page.setViewportSize({ width: 1280, height: 900 })

    await page.getByRole('button', { name: 'Submit for approval' }).click()
    await page.waitForURL(/done=submitted/)
    assert.equal(await preview.count(), 0, 'a submitted request shows its chain, not a preview')

    // Mia approves step 1 from her inbox; having approved it, she is no candidate of step 2, which is approved at once.
    const manager = await signInAs('manager@example.com', 390)
    await manager.page.goto(`${server.base}/console/approvals`)
    await checked(manager.context, manager.page)
    await manager.page.getByRole('link', { name: `#${id}`, exact: true }).click()
    await manager.page.waitForURL(/\/console\/approvals\/\d+$/)
    await checked(manager.context, manager.page)
    await manager.page.getByRole('button', { name: 'Approve' }).click()
    await manager.page.waitForURL(/\/console\/approvals\?done=approved/)
    await manager.context.close()

    const request = await server.api<{
      status: string
      approvals: { step: number; status: string; acted_by: { email: string } | null; comment: string | null }[]
    }>('GET', `/api/v3/requests/${id}/`)
    assert.equal(request.status, 'approved')
    assert.deepEqual(
      request.approvals.map((a) => [a.step, a.status, a.acted_by?.email]),
      [
        [1, 'approved', 'manager@example.com'],
        [2, 'approved', 'manager@example.com'],
      ],
    )
    assert.equal(request.approvals[1]!.comment, 'Approved at step 1')
    await page.reload()
    assert.match(await mainText(page), /Approved at step 1/)
    await checked(admin.context, page)
    await admin.context.close()
  },
)

test(
  '4. the rate hint says units per one USD with the demo’s example; a rule’s minimum total is in the base currency',
  { skip, timeout: 600_000 },
  async () => {
    const admin = await server.signedIn({ width: 390 })
    const { page } = admin
    await page.goto(`${server.base}/console/settings/setup/currencies`)
    await checked(admin.context, page)
    assert.match(
      await mainText(page),
      /Units of this currency per one USD\. For example, 1 USD = 1\.35 CAD: enter 1\.35 for CAD\./,
    )

    // 950 EUR is 1,032.61 USD at the demo's 0.92: the every-location rule from 1,000 (USD) makes step 2.
    const id = await newRequest(
      admin,
      'Conference fees, paid in euros',
      [{ item: 'Conference pass', quantity: '1', price: '950' }],
      'EUR',
    )
    assert.match(
      (await page.locator('section.chain-preview').innerText()).replace(/\s+/g, ' '),
      /950\.00 EUR goes through 2 steps/,
    )
    assert.deepEqual(
      (await previewRows(page)).map(([step]) => step),
      ['1', '2'],
    )
    const planned = await server.api<{ total: string; base_total: string }>(
      'GET',
      `/api/v3/requests/${id}/approval-preview/`,
    )
    assert.deepEqual(planned, { ...planned, total: '950.00', base_total: '1032.61' })
    await checked(admin.context, page)

    // 900 EUR is 978.26 USD: under 1,000, one step.
    await page.getByRole('link', { name: 'Edit', exact: true }).click()
    await page.waitForURL(/\/edit$/)
    await page.locator('#f-lines-0-unit-price').fill('900')
    await page.getByRole('button', { name: 'Save draft' }).click()
    await page.waitForURL(/done=saved/)
    assert.match(
      (await page.locator('section.chain-preview').innerText()).replace(/\s+/g, ' '),
      /900\.00 EUR goes through one step/,
    )
    assert.deepEqual(
      (await previewRows(page)).map(([step]) => step),
      ['1'],
    )
    await checked(admin.context, page)
    await admin.context.close()
  },
)

/** An order of the demo's Head Office in Chicago made through the API (set-up), as a draft: its id and number. */
async function draftOrder(vendor: string, lines: { description: string; quantity: string; unit_price: string }[]) {
  return server.api<{ id: number; number: string; lines: { id: number }[]; created_by: { email: string } }>(
    'POST',
    '/api/v3/purchase-orders/',
    {
      vendor: await vendorId(vendor),
      location: await locationId('Head Office'),
      promise_date: '2026-12-15',
      notes: 'Deliver to the loading dock.',
      lines: lines.map((l) => ({ ...l, tax_rate: '0' })),
    },
  )
}

/** On the order's page: Issue, then E-mail to vendor (its addresses prefilled); with no SMTP it is queued. */
async function issueAndSend(page: Page, id: number) {
  await page.goto(`${server.base}/console/orders/${id}`)
  await page.getByRole('button', { name: 'Issue' }).click()
  await page.waitForURL(/done=issue/)
  await page.getByRole('button', { name: 'E-mail to vendor' }).click()
  await page.waitForURL(/done=queued/)
}

test(
  '5. the order PDF from the outbox: US Letter at the Head Office; buyer, vendor, payment terms, contact',
  { skip, timeout: 600_000 },
  async () => {
    const order = await draftOrder('Acme Office Supply', [
      { description: 'Stapler', quantity: '12', unit_price: '14.5' },
    ])
    const admin = await server.signedIn({ width: 1280 })
    const { page } = admin
    await issueAndSend(page, order.id)
    assert.match(await page.locator('main .notice.status').innerText(), /queued in the outbox, not sent/)
    await checked(admin.context, page)
    await page.screenshot({ path: shotPath('console-order-sent.png'), fullPage: true })
    await page.setViewportSize({ width: 390, height: 844 })
    await page.screenshot({ path: shotPath('console-order-sent-390.png'), fullPage: true })

    await page.goto(`${server.base}/console/outbox`)
    await checked(admin.context, page)
    const link = page.locator(`main a[href^="/console/outbox/"][download="${order.number}.pdf"]`)
    assert.equal(await link.count(), 1, `the outbox offers ${order.number}.pdf`)
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()])
    const bytes = fs.readFileSync(await download.path())
    await admin.context.close()

    const sizes = (await PDFDocument.load(bytes)).getPages().map((p) => Object.values(p.getSize()).map(Math.round))
    assert.deepEqual(sizes, [[612, 792]], 'US Letter for the Head Office in Chicago')
    const pdf = await getDocument({ data: new Uint8Array(bytes), standardFontDataUrl }).promise
    const text: string[] = []
    for (let n = 1; n <= pdf.numPages; n++)
      for (const item of (await (await pdf.getPage(n)).getTextContent()).items)
        if ('str' in item && item.str.trim() !== '') text.push(item.str)
    const all = text.join('\n')
    assert.equal(order.created_by.email, 'admin@example.com')
    for (const expected of ['Demo Company Inc.', 'Acme Office Supply', 'Net 30', 'admin@example.com'])
      assert.ok(all.includes(expected), `"${expected}" is in the PDF:\n${all}`)
  },
)

test(
  '6. messages: queued without SMTP; a matching exception is a warning; a bill’s approval speaks of the bill',
  { skip, timeout: 600_000 },
  async () => {
    const order = await draftOrder('Blue Ridge Paper', [
      { description: 'Copy paper, box', quantity: '10', unit_price: '30' },
    ])
    const admin = await server.signedIn({ width: 390 })
    await issueAndSend(admin.page, order.id)
    const sent = admin.page.locator('main .notice')
    assert.equal(await sent.count(), 1)
    assert.match((await sent.getAttribute('class'))!, /\bstatus\b/)
    assert.match(
      await sent.innerText(),
      /^No mail server is set up, so the e-mail to the vendor is queued in the outbox, not sent\./,
    )
    await checked(admin.context, admin.page)
    await server.api('POST', '/api/v3/receipts/', {
      purchase_order: order.id,
      packing_slip: 'BRP-PS-31',
      lines: [{ po_line: order.lines[0]!.id, accepted_quantity: '8' }],
    })

    // Rita enters the vendor's bill (she holds Accounts Payable at the Head Office): 10 billed, 8 received.
    const rita = await signInAs('requester@example.com', 390)
    await rita.page.goto(`${server.base}/console/bills/new?order=${order.id}`)
    await checked(rita.context, rita.page)
    await rita.page.getByLabel('Vendor’s invoice number').fill('BRP-1187')
    await rita.page.getByLabel('Invoice date').fill('2026-11-25')
    await rita.page.getByLabel('Due date').fill('2026-12-25')
    await rita.page.getByLabel('Quantity: Copy paper, box').fill('10')
    await rita.page.getByRole('button', { name: 'Save as draft' }).click()
    await rita.page.waitForURL(/\/console\/bills\/\d+\?done=created/)
    await rita.page.getByRole('button', { name: 'Submit for approval' }).click()
    await rita.page.waitForURL(/done=submit/)
    assert.equal(await rita.page.locator('main .notice.status').count(), 0, 'no success message')
    assert.match(await rita.page.locator('main .notice.warning').innerText(), /^Matching found exceptions/)
    await checked(rita.context, rita.page)
    await rita.context.close()

    // The administrator approves it from the inbox: the message speaks of the bill.
    await admin.page.goto(`${server.base}/console/approvals`)
    await admin.page.getByRole('link', { name: 'Bill BRP-1187', exact: true }).click()
    await admin.page.waitForURL(/\/console\/approvals\/\d+$/)
    await checked(admin.context, admin.page)
    await admin.page.getByRole('button', { name: 'Approve' }).click()
    await admin.page.waitForURL(/\/console\/approvals\?done=approved-bill/)
    const said = await admin.page.locator('main .notice.status').innerText()
    assert.match(said, /^Approved\. The bill /)
    assert.doesNotMatch(said, /request/i)
    await checked(admin.context, admin.page)
    await admin.context.close()
  },
)

test(
  '7. orders made from a request with two vendors: both listed on its page, and the button is gone',
  { skip, timeout: 600_000 },
  async () => {
    // Set-up: an approved request of the Berlin Office (no rule applies under 1,000 USD there).
    const request = await server.api('POST', '/api/v3/requests/', {
      location: await locationId('Berlin Office'),
      description: 'Meeting room fit-out',
      lines: [
        { description: 'Meeting table', vendor: await vendorId('Granite Furniture'), quantity: '2', unit_price: '40' },
        { description: 'Room signs', vendor: await vendorId('Keystone Printing'), quantity: '3', unit_price: '20' },
      ],
    })
    const submitted = await server.api<{ status: string }>('POST', `/api/v3/requests/${request.id}/submit/`)
    assert.equal(submitted.status, 'approved')

    const admin = await server.signedIn({ width: 390 })
    const { page } = admin
    await page.goto(`${server.base}/console/requests/${request.id}`)
    await checked(admin.context, page)
    await page.getByRole('button', { name: 'Make purchase orders' }).click()
    await page.waitForURL(new RegExp(`/console/requests/${request.id}\\?done=ordered`))
    assert.match(await page.locator('main .notice.status').innerText(), /one per vendor/)
    assert.equal(await page.getByRole('button', { name: 'Make purchase orders' }).count(), 0, 'the button is gone')

    const orders = await server.api<{ number: string; vendor: { name: string }; total: string }[]>(
      'GET',
      `/api/v3/purchase-orders/?request=${request.id}`,
    )
    assert.deepEqual(orders.map((o) => [o.vendor.name, o.total]).sort(), [
      ['Granite Furniture', '80.00'],
      ['Keystone Printing', '60.00'],
    ])
    const ledTo = await page.locator('section.led-to').innerText()
    for (const o of orders) assert.ok(ledTo.includes(o.number), `${o.number} is under “What it led to”:\n${ledTo}`)
    assert.match(ledTo, /80\.00 EUR/)
    assert.match(ledTo, /60\.00 EUR/)
    await checked(admin.context, page)

    // Both are in the orders list.
    await page.goto(`${server.base}/console/orders`)
    const list = await mainText(page)
    for (const o of orders) assert.ok(list.includes(o.number), `${o.number} is in the orders list`)
    await checked(admin.context, page)
    await admin.context.close()
  },
)
